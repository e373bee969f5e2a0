// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime

/// Redshift's manual workload management configuration: the `wlm_json_configuration`
/// document, parsed and checked.
///
/// The document is a JSON array. Each object is a queue, in routing order, the last
/// queue being the default queue; one object may instead be
/// `{"short_query_queue": true, "max_execution_time": ms}` (short query acceleration).
/// The superuser queue (service class 5, one slot) is always there and is not listed.
/// User queues get service classes 6, 7, ... in order; the SQA space is service class 14.
public struct WLMConfiguration: Sendable, Equatable {
    /// User queues in routing order; the last is the default queue.
    public var queues: [WLMQueue]
    /// The superuser queue (service class 5).
    public var superuser: WLMQueue
    /// Short query acceleration (service class 14), or nil when it is off.
    public var shortQuery: WLMQueue?

    public static let superuserServiceClass = 5
    public static let firstUserServiceClass = 6
    public static let shortQueryServiceClass = 14
    /// Redshift's limits for manual WLM.
    public static let maxUserQueues = 8
    public static let maxTotalSlots = 50
    public static let maxRules = 25
    public static let maxPredicates = 3
    /// Slots of the SQA space (Redshift sizes it dynamically; Slicehouse fixes it).
    public static let shortQuerySlots = 6
    /// SQA's longest run before a query moves to its normal queue, when the document
    /// leaves it to WLM (`max_execution_time` 0 or absent): 5 seconds.
    public static let defaultShortQueryMilliseconds = 5_000

    /// Redshift's default: one queue (the default queue) of 5 slots with all the memory,
    /// and no SQA.
    public static let `default` = WLMConfiguration(
        queues: [WLMQueue(serviceClass: firstUserServiceClass, name: "Default queue", kind: .defaultQueue,
                          concurrency: 5, memoryPercent: 100)],
        superuser: WLMQueue.superuserQueue, shortQuery: nil)

    public init(queues: [WLMQueue], superuser: WLMQueue = WLMQueue.superuserQueue, shortQuery: WLMQueue? = nil) {
        self.queues = queues
        self.superuser = superuser
        self.shortQuery = shortQuery
    }

    /// The default queue (the last user queue).
    public var defaultQueue: WLMQueue { queues[queues.count - 1] }

    /// Every service class: superuser, user queues, SQA.
    public var allQueues: [WLMQueue] { [superuser] + queues + (shortQuery.map { [$0] } ?? []) }

    public func queue(serviceClass: Int) -> WLMQueue? { allQueues.first { $0.serviceClass == serviceClass } }

    // MARK: - Routing

    /// The queue a query goes to, as Redshift routes it: a superuser whose query group is
    /// `superuser` goes to the superuser queue; otherwise the first user queue that lists
    /// the query group or one of the user's groups; otherwise the default queue.
    public func route(queryGroup: String?, userGroups: [String], isSuperuser: Bool) -> WLMQueue {
        let group = queryGroup.flatMap { $0.isEmpty || $0 == "unset" ? nil : $0 }
        if isSuperuser, group?.lowercased() == "superuser" { return superuser }
        for q in queues.dropLast() where q.matches(queryGroup: group, userGroups: userGroups) { return q }
        return defaultQueue
    }

    /// Where a hopped query goes from `serviceClass`: the next user queue after it that
    /// matches the query (never the default queue), or nil when none does.
    public func hopTarget(from serviceClass: Int, queryGroup: String?, userGroups: [String]) -> WLMQueue? {
        let group = queryGroup.flatMap { $0.isEmpty || $0 == "unset" ? nil : $0 }
        guard let i = queues.firstIndex(where: { $0.serviceClass == serviceClass }) else { return nil }
        for q in queues.dropLast().dropFirst(i + 1) where q.matches(queryGroup: group, userGroups: userGroups) { return q }
        return nil
    }

    // MARK: - Memory

    /// Bytes of one slot of `queue` when the database may use `limit` bytes: the queue's
    /// share of the memory divided among its slots. The superuser queue and the SQA space
    /// take one default-queue slot's worth per slot (outside the user queues' percentages).
    public func slotBytes(_ queue: WLMQueue, limit: Int) -> Int {
        switch queue.kind {
        case .superuser, .shortQuery:
            return slotBytes(defaultQueue, limit: limit)
        case .user, .defaultQueue:
            let share = Double(limit) * queue.memoryPercent / 100
            return max(1 << 20, Int(share / Double(max(1, queue.concurrency))))
        }
    }

    // MARK: - Parsing

    /// Parse a `wlm_json_configuration` document. Errors name the queue (1-based, as the
    /// console numbers them) and the property.
    public static func parse(_ text: String) throws -> WLMConfiguration {
        let json: Any
        do {
            json = try JSONDecoder().decode(WLMJSONValue.self, from: Data(text.utf8)).native
        } catch {
            throw invalid("the document is not valid JSON")
        }
        guard let array = json as? [Any] else {
            throw invalid("the document must be a JSON array of queue objects")
        }
        var queueObjects: [(Int, [String: Any])] = []
        var shortQuery: WLMQueue?
        for (i, element) in array.enumerated() {
            guard let object = element as? [String: Any] else {
                throw invalid("element \(i + 1) is not a JSON object")
            }
            if let auto = object["auto_wlm"] {
                if (auto as? Bool) == true || integer(auto) == 1 {
                    throw invalid("automatic WLM (\"auto_wlm\": true) is not supported; configure manual WLM queues")
                }
                if object.count == 1 { continue }
            }
            if let sqa = object["short_query_queue"] {
                guard let on = sqa as? Bool else { throw invalid("short_query_queue must be true or false") }
                guard shortQuery == nil else { throw invalid("short_query_queue is given more than once") }
                for key in object.keys where !["short_query_queue", "max_execution_time", "auto_wlm"].contains(key) {
                    throw invalid("unknown property \"\(key)\" in the short_query_queue entry")
                }
                var limit = defaultShortQueryMilliseconds
                if let v = object["max_execution_time"] {
                    guard let ms = integer(v), ms == 0 || (1_000...20_000).contains(ms) else {
                        throw invalid("max_execution_time of short_query_queue must be 0 (dynamic) or 1000 to 20000 milliseconds")
                    }
                    if ms > 0 { limit = ms }
                }
                if on {
                    shortQuery = WLMQueue(serviceClass: shortQueryServiceClass, name: "Short query queue", kind: .shortQuery,
                                          concurrency: shortQuerySlots, memoryPercent: 0, maxExecutionTime: limit)
                } else {
                    shortQuery = nil
                }
                continue
            }
            queueObjects.append((i, object))
        }
        guard !queueObjects.isEmpty else {
            throw invalid("the configuration needs at least one queue (the default queue)")
        }
        guard queueObjects.count <= maxUserQueues else {
            throw invalid("a configuration can have at most \(maxUserQueues) queues, this one has \(queueObjects.count)")
        }
        var queues: [WLMQueue] = []
        var explicitPercents: [Double?] = []
        for (n, (_, object)) in queueObjects.enumerated() {
            let isDefault = n == queueObjects.count - 1
            let (queue, percent) = try parseQueue(object, number: n + 1, isDefault: isDefault)
            queues.append(queue)
            explicitPercents.append(percent)
        }
        let totalSlots = queues.reduce(0) { $0 + $1.concurrency }
        guard totalSlots <= maxTotalSlots else {
            throw invalid("the total query_concurrency of all queues is \(totalSlots); it can't exceed \(maxTotalSlots)")
        }
        let assigned = explicitPercents.compactMap { $0 }.reduce(0, +)
        guard assigned <= 100 else {
            throw invalid("the memory_percent_to_use of all queues adds up to \(format(assigned)); it can't exceed 100")
        }
        // Queues without a percentage share what the others leave, evenly; when every
        // queue has one and they add up to less than 100, the rest stays unallocated.
        let unassigned = explicitPercents.filter { $0 == nil }.count
        let each = unassigned > 0 ? (100 - assigned) / Double(unassigned) : 0
        for k in queues.indices {
            queues[k].memoryPercent = explicitPercents[k] ?? each
        }
        let ruleCount = queues.reduce(0) { $0 + $1.rules.count }
        guard ruleCount <= maxRules else {
            throw invalid("a configuration can have at most \(maxRules) query monitoring rules in all queues, this one has \(ruleCount)")
        }
        return WLMConfiguration(queues: queues, superuser: WLMQueue.superuserQueue, shortQuery: shortQuery)
    }

    /// Properties of a queue object that are accepted and not used (automatic WLM's and
    /// the console's).
    static let ignoredProperties: Set<String> = ["priority", "queue_type", "user_role", "user_role_wild_card", "auto_wlm"]
    static let queueProperties: Set<String> = [
        "query_concurrency", "memory_percent_to_use", "user_group", "user_group_wild_card", "query_group",
        "query_group_wild_card", "max_execution_time", "concurrency_scaling", "rules", "name",
    ]

    private static func parseQueue(_ object: [String: Any], number: Int, isDefault: Bool) throws -> (WLMQueue, Double?) {
        let at = "queue \(number)"
        for key in object.keys.sorted() where !queueProperties.contains(key) && !ignoredProperties.contains(key) {
            throw invalid("unknown property \"\(key)\" in \(at)")
        }
        var concurrency = 5
        if let v = object["query_concurrency"] {
            guard let n = integer(v), (1...maxTotalSlots).contains(n) else {
                throw invalid("query_concurrency in \(at) must be an integer from 1 to \(maxTotalSlots)")
            }
            concurrency = n
        }
        var percent: Double?
        if let v = object["memory_percent_to_use"] {
            guard let p = v as? Double, p >= 0, p <= 100 else {
                throw invalid("memory_percent_to_use in \(at) must be a number from 0 to 100")
            }
            // 0 means "not set": the queue shares the unallocated memory.
            percent = p > 0 ? p : nil
        }
        let userGroups = try stringList(object["user_group"], "user_group", at)
        let queryGroups = try stringList(object["query_group"], "query_group", at)
        let userWild = try flag(object["user_group_wild_card"], "user_group_wild_card", at)
        let queryWild = try flag(object["query_group_wild_card"], "query_group_wild_card", at)
        if isDefault && (!userGroups.isEmpty || !queryGroups.isEmpty) {
            throw invalid("the default queue (the last queue, \(at)) can't have a user_group or query_group")
        }
        var maxTime = 0
        if let v = object["max_execution_time"] {
            guard let ms = integer(v), ms >= 0, ms <= 86_400_000 else {
                throw invalid("max_execution_time in \(at) must be 0 (no limit) to 86400000 milliseconds")
            }
            maxTime = ms
        }
        var scaling = "off"
        if let v = object["concurrency_scaling"] {
            guard let s = (v as? String)?.lowercased(), s == "off" || s == "auto" else {
                throw invalid("concurrency_scaling in \(at) must be \"off\" or \"auto\"")
            }
            scaling = s
        }
        var name = isDefault ? "Default queue" : "Queue \(number)"
        if let v = object["name"] {
            guard let s = v as? String, !s.isEmpty, s.count <= 64 else {
                throw invalid("name in \(at) must be a string of 1 to 64 characters")
            }
            name = s
        }
        var rules: [QueryMonitoringRule] = []
        if let v = object["rules"] {
            guard let list = v as? [Any] else { throw invalid("rules in \(at) must be an array") }
            for item in list {
                let rule = try QueryMonitoringRule.parse(item, queue: at)
                if rules.contains(where: { $0.name == rule.name }) {
                    throw invalid("rule name \"\(rule.name)\" appears twice in \(at)")
                }
                rules.append(rule)
            }
        }
        let queue = WLMQueue(serviceClass: firstUserServiceClass + number - 1, name: name,
                             kind: isDefault ? .defaultQueue : .user, concurrency: concurrency, memoryPercent: 0,
                             userGroups: userGroups, userGroupWildcard: userWild, queryGroups: queryGroups,
                             queryGroupWildcard: queryWild, maxExecutionTime: maxTime, concurrencyScaling: scaling,
                             rules: rules)
        return (queue, percent)
    }

    static func invalid(_ message: String) -> SQLError {
        SQLError(.invalidParameter, "invalid wlm_json_configuration: \(message)")
    }

    static func integer(_ v: Any) -> Int? {
        guard let d = v as? Double else { return nil }
        guard d == d.rounded(), abs(d) < 1e15 else { return nil }
        return Int(d)
    }

    private static func stringList(_ v: Any?, _ key: String, _ at: String) throws -> [String] {
        guard let v else { return [] }
        if let s = v as? String { return s.isEmpty ? [] : [s] }
        guard let list = v as? [Any], list.allSatisfy({ $0 is String }), let strings = list as? [String] else {
            throw invalid("\(key) in \(at) must be a list of names")
        }
        return strings.filter { !$0.isEmpty }
    }

    private static func flag(_ v: Any?, _ key: String, _ at: String) throws -> Bool {
        guard let v else { return false }
        if let b = v as? Bool { return b }
        guard let n = integer(v), n == 0 || n == 1 else { throw invalid("\(key) in \(at) must be 0 or 1") }
        return n == 1
    }

    static func format(_ d: Double) -> String {
        d == d.rounded() ? String(Int(d)) : String(d)
    }
}

/// One WLM queue (service class).
public struct WLMQueue: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case superuser, user, defaultQueue, shortQuery }

    public var serviceClass: Int
    public var name: String
    public var kind: Kind
    /// Slots: queries that may run at once (`query_concurrency`).
    public var concurrency: Int
    /// Share of the database's memory (the configured or the evenly split percentage).
    public var memoryPercent: Double
    public var userGroups: [String]
    public var userGroupWildcard: Bool
    public var queryGroups: [String]
    public var queryGroupWildcard: Bool
    /// Longest execution (queue time excluded) in milliseconds; 0: no limit.
    public var maxExecutionTime: Int
    /// `off` or `auto` (accepted; there is one cluster).
    public var concurrencyScaling: String
    public var rules: [QueryMonitoringRule]

    public init(serviceClass: Int, name: String, kind: Kind, concurrency: Int, memoryPercent: Double,
                userGroups: [String] = [], userGroupWildcard: Bool = false, queryGroups: [String] = [],
                queryGroupWildcard: Bool = false, maxExecutionTime: Int = 0, concurrencyScaling: String = "off",
                rules: [QueryMonitoringRule] = []) {
        self.serviceClass = serviceClass
        self.name = name
        self.kind = kind
        self.concurrency = concurrency
        self.memoryPercent = memoryPercent
        self.userGroups = userGroups
        self.userGroupWildcard = userGroupWildcard
        self.queryGroups = queryGroups
        self.queryGroupWildcard = queryGroupWildcard
        self.maxExecutionTime = maxExecutionTime
        self.concurrencyScaling = concurrencyScaling
        self.rules = rules
    }

    public static let superuserQueue = WLMQueue(serviceClass: WLMConfiguration.superuserServiceClass,
                                                name: "Superuser queue", kind: .superuser, concurrency: 1, memoryPercent: 0)

    /// Whether the queue lists `queryGroup` or one of `userGroups` (with `*` and `?`
    /// wildcards when the queue's wildcard flag is set). Names compare case-insensitively.
    public func matches(queryGroup: String?, userGroups groups: [String]) -> Bool {
        if let g = queryGroup, queryGroups.contains(where: { WLMQueue.match($0, g, wildcards: queryGroupWildcard) }) {
            return true
        }
        for g in groups where userGroups.contains(where: { WLMQueue.match($0, g, wildcards: userGroupWildcard) }) {
            return true
        }
        return false
    }

    /// Whether `name` matches `pattern`: equal ignoring case, or, with wildcards, `*`
    /// standing for any run of characters and `?` for one.
    public static func match(_ pattern: String, _ name: String, wildcards: Bool) -> Bool {
        let p = Array(pattern.lowercased()), s = Array(name.lowercased())
        guard wildcards else { return p == s }
        // Iterative glob match with one backtracking point (the last `*`).
        var i = 0, j = 0
        var star = -1, mark = 0
        while j < s.count {
            if i < p.count && (p[i] == "?" || p[i] == s[j]) {
                i += 1; j += 1
            } else if i < p.count && p[i] == "*" {
                star = i; mark = j; i += 1
            } else if star >= 0 {
                i = star + 1; mark += 1; j = mark
            } else {
                return false
            }
        }
        while i < p.count && p[i] == "*" { i += 1 }
        return i == p.count
    }
}

/// A JSON value as the parser reads it: booleans and numbers kept apart (Foundation's
/// JSONSerialization gives both as NSNumber, and on Linux a 1 casts to `true`).
/// `native` gives Swift values: Bool, Double, String, [Any], [String: Any], NSNull.
enum WLMJSONValue: Decodable {
    case null, bool(Bool), number(Double), string(String), array([WLMJSONValue]), object([String: WLMJSONValue])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([WLMJSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: WLMJSONValue].self)) }
    }

    var native: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let b): return b
        case .number(let d): return d
        case .string(let s): return s
        case .array(let a): return a.map { $0.native }
        case .object(let o): return o.mapValues { $0.native }
        }
    }
}
