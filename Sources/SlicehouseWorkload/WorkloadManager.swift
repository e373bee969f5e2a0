// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime

/// What WLM needs to know to route and admit one query.
public struct WLMRequest: Sendable {
    public var queryID: Int
    public var userID: Int
    public var process: Int
    public var xid: Int
    public var isSuperuser: Bool
    public var userGroups: [String]
    /// `SET query_group` (nil or "unset": none).
    public var queryGroup: String?
    /// `wlm_query_slot_count`.
    public var slotCount: Int
    /// The query may be stopped and run again in another queue (a read-only SELECT outside
    /// a transaction block, before it has returned rows): hops and SQA moves restart it.
    public var restartable: Bool
    /// `max_execution_time` applies (COPY and maintenance run on past it, as in Redshift).
    public var timeLimited: Bool
    /// SQA: the query's shape (constants blanked) and the plan's estimated cost; nil when
    /// the query may not be accelerated (only SELECTs may).
    public var shortQueryShape: String?
    public var estimatedCost: Double?
    /// The query's transaction holds table locks: it is admitted without waiting (even
    /// past the queue's slots), so a query waiting for a slot never holds a lock that a
    /// slot's holder waits for — WLM and table locks cannot deadlock.
    public var holdsLocks = false

    public init(queryID: Int, userID: Int = 100, process: Int = 0, xid: Int = 0, isSuperuser: Bool = false,
                userGroups: [String] = [], queryGroup: String? = nil, slotCount: Int = 1, restartable: Bool = false,
                timeLimited: Bool = true, shortQueryShape: String? = nil, estimatedCost: Double? = nil) {
        self.queryID = queryID
        self.userID = userID
        self.process = process
        self.xid = xid
        self.isSuperuser = isSuperuser
        self.userGroups = userGroups
        self.queryGroup = queryGroup
        self.slotCount = slotCount
        self.restartable = restartable
        self.timeLimited = timeLimited
        self.shortQueryShape = shortQueryShape
        self.estimatedCost = estimatedCost
    }
}

/// One query under WLM, from routing to its end (across hops). Its mutable state is
/// guarded by the manager's lock.
public final class WLMQuery: @unchecked Sendable {
    public enum State: String, Sendable { case queued = "Queued", running = "Running", returning = "Returning", done = "Done" }

    public let request: WLMRequest
    public let context: QueryContext
    public var queryID: Int { request.queryID }
    // Guarded by the manager's lock.
    fileprivate(set) var serviceClass = 0
    /// The transaction (from the request; set at the end for a query admitted before it began).
    fileprivate(set) var xid: Int
    fileprivate(set) var slots = 1
    fileprivate(set) var state = State.queued
    fileprivate var serviceClassStart = Date()
    fileprivate var queueStart = Date()
    fileprivate var queueStartNanos: UInt64 = 0
    fileprivate var execStart: Date?
    fileprivate var execStartNanos: UInt64 = 0
    fileprivate var queueMicros: Int64 = 0
    fileprivate var fired: Set<String> = []
    /// Live counters when this run (in this queue) started: rules see what it did here.
    fileprivate var baseline = LiveCounters()
    fileprivate var baselineSpill = 0
    /// The service class a hop or SQA move sends the query to, and the error that stopped it.
    fileprivate var pendingMove: Int?
    fileprivate var restarts = 0
    /// Rows have gone to the client: the query can no longer be restarted.
    fileprivate var delivering = false
    /// SQA's prediction for this query (nil: not eligible or SQA off).
    public fileprivate(set) var prediction: ShortQueryPredictor.Prediction?
    fileprivate var sqaTimedOut = false

    init(request: WLMRequest, context: QueryContext) {
        self.request = request
        self.context = context
        xid = request.xid
    }
}

/// Manual workload management: routes queries to queues, makes them wait for a slot,
/// gives them their memory budget, watches them (max_execution_time, query monitoring
/// rules, SQA's limit) and keeps what the STV_WLM_* / STL_WLM_* views show.
///
/// Waiting is a condition wait with a timeout: a waiting query wakes when a slot is
/// given back, and at least every 50 ms to see whether it was cancelled or timed out.
/// A monitor thread looks at running queries every `monitorInterval` (Redshift checks
/// rules every 10 seconds; a short interval lets tests and short limits act promptly).
public final class WorkloadManager: @unchecked Sendable {
    /// The memory budgets are shares of this pool's limit (`--memory`), or of
    /// `MemoryPool.defaultLimit` (60% of RAM) when the pool has none.
    public let pool: MemoryPool
    public let predictor = ShortQueryPredictor()
    /// Rows kept for STL_WLM_QUERY / STL_QUERY_METRICS and STL_WLM_RULE_ACTION.
    public static let historyLimit = 10_000
    public static let monitorInterval: TimeInterval = 0.1

    private let condition = NSCondition()
    private var config = WLMConfiguration.default
    private var used: [Int: Int] = [:]
    /// Waiting queries, oldest first (FIFO within each service class).
    private var waiting: [WLMQuery] = []
    private var running: [WLMQuery] = []
    private var counts: [Int: ClassCounts] = [:]
    private var completed: [WLMHistoryRecord] = []
    private var actions: [WLMRuleActionRecord] = []
    /// Where finished runs and fired rules go instead of `history` and `ruleActions`
    /// (the database's logs, which outlive the process); set before the first query.
    private var recorder: WLMRecorder?

    /// Send finished runs and fired rules to `recorder` from now on (called while
    /// WLM's lock is held: it must not call back into WLM).
    public func setRecorder(_ recorder: WLMRecorder) { condition.withLock { self.recorder = recorder } }
    private var monitorStarted = false
    private var configurationFile: String?
    private var fileStamp: FileStamp?
    /// The last reload that failed (the previous configuration stays), for the log.
    public private(set) var reloadError: String?

    struct ClassCounts { var serviced = 0; var executed = 0; var restarted = 0 }
    private struct FileStamp: Equatable { var modified: Date; var size: Int }

    public init(pool: MemoryPool) { self.pool = pool }

    // MARK: - Configuration

    public var configuration: WLMConfiguration {
        get { condition.withLock { config } }
        set { condition.withLock { config = newValue; condition.broadcast() } }
    }

    /// Read the configuration from `path` now and again whenever the file changes
    /// (checked when a query is admitted). A missing file means the default
    /// configuration unless `required`. Throws when the document is invalid.
    public func setConfigurationFile(_ path: String?, required: Bool) throws {
        guard let path else {
            condition.withLock { configurationFile = nil; fileStamp = nil }
            return
        }
        let stamp = Self.stamp(path)
        if stamp == nil && required {
            throw SQLError(.invalidParameter, "cannot read the WLM configuration file \"\(path)\"")
        }
        var parsed = WLMConfiguration.default
        if stamp != nil {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw SQLError(.invalidParameter, "cannot read the WLM configuration file \"\(path)\"")
            }
            do {
                parsed = try WLMConfiguration.parse(text)
            } catch let e as SQLError {
                throw SQLError(e.code, "\(path): \(e.message)")
            }
        }
        condition.withLock {
            configurationFile = path
            fileStamp = stamp
            config = parsed
            reloadError = nil
            condition.broadcast()
        }
    }

    /// Re-read the configuration file if it changed since it was read. An invalid new
    /// document is reported (`reloadError`, standard error) and the running
    /// configuration stays.
    public func reloadIfChanged() {
        guard let (path, old) = condition.withLock({ configurationFile.map { ($0, fileStamp) } }) else { return }
        let stamp = Self.stamp(path)
        guard stamp != old else { return }
        var next = WLMConfiguration.default
        var failure: String?
        if stamp != nil {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                do { next = try WLMConfiguration.parse(text) } catch { failure = "\(error)" }
            } else {
                failure = "cannot read \(path)"
            }
        }
        condition.withLock {
            fileStamp = stamp
            if let failure {
                reloadError = failure
            } else {
                config = next
                reloadError = nil
                condition.broadcast()
            }
        }
        if let failure {
            FileHandle.standardError.write(Data("slicehouse: WLM configuration \(path) not reloaded: \(failure)\n".utf8))
        }
    }

    private static func stamp(_ path: String) -> FileStamp? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let modified = attributes[.modificationDate] as? Date else { return nil }
        return FileStamp(modified: modified, size: (attributes[.size] as? NSNumber)?.intValue ?? 0)
    }

    /// The memory the budgets are shares of.
    public var memoryLimit: Int { pool.limit ?? MemoryPool.defaultLimit }

    // MARK: - Admission

    /// Route `request` and wait for its slots; on return the query runs, its context
    /// carrying the queue's service class, priority and memory budget. Throws the
    /// context's cancellation reason (a cancel, `statement_timeout`) while waiting, or
    /// an error when `wlm_query_slot_count` exceeds the queue's slots.
    public func admit(_ request: WLMRequest, context: QueryContext) throws -> WLMQuery {
        // WLM cancels the queries it watches: never the shared token of internal work.
        guard context.cancellation !== Cancellation.none else {
            throw SQLError.internalError("a query under WLM needs a cancellation of its own")
        }
        reloadIfChanged()
        let q = WLMQuery(request: request, context: context)
        try enqueue(q, into: nil)
        return q
    }

    /// Admit a query again after a hop or SQA move stopped it (`restartAfter`).
    public func readmit(_ q: WLMQuery) throws {
        let target = condition.withLock { () -> Int? in
            defer { q.pendingMove = nil }
            return q.pendingMove
        }
        try enqueue(q, into: target)
    }

    private func enqueue(_ q: WLMQuery, into target: Int?) throws {
        let request = q.request
        condition.lock()
        let configuration = config
        var queue: WLMQueue
        if let target, let t = configuration.queue(serviceClass: target) {
            queue = t
        } else {
            queue = configuration.route(queryGroup: request.queryGroup, userGroups: request.userGroups,
                                        isSuperuser: request.isSuperuser)
            // SQA: a short SELECT bound for a user queue runs in the SQA space instead.
            if target == nil, let sqa = configuration.shortQuery, queue.kind != .superuser, request.slotCount == 1,
               let cost = request.estimatedCost, request.shortQueryShape != nil {
                let p = predictor.predict(shape: request.shortQueryShape, estimatedCost: cost,
                                          shortLimitMilliseconds: sqa.maxExecutionTime)
                q.prediction = p
                if p.isShort { queue = sqa }
            }
        }
        guard request.slotCount <= queue.concurrency else {
            condition.unlock()
            throw SQLError(.invalidParameter, "wlm_query_slot_count (\(request.slotCount)) exceeds the concurrency of "
                           + "the queue it runs in (service class \(queue.serviceClass), \(queue.concurrency) "
                           + "slot\(queue.concurrency == 1 ? "" : "s")); set wlm_query_slot_count to \(queue.concurrency) or less")
        }
        let now = Date()
        q.serviceClass = queue.serviceClass
        q.slots = request.slotCount
        q.state = .queued
        q.serviceClassStart = now
        q.queueStart = now
        q.queueStartNanos = DispatchTime.now().uptimeNanoseconds
        q.execStart = nil
        q.fired = []
        q.delivering = false
        waiting.append(q)
        counts[queue.serviceClass, default: ClassCounts()].serviced += 1
        while true {
            if let e = q.context.cancellation.error {
                waiting.removeAll { $0 === q }
                q.state = .done
                condition.broadcast()
                let record = historyRecord(q, configuration: config, end: Date(), finalState: "Aborted")
                appendHistory(record)
                condition.unlock()
                throw e
            }
            let sc = q.serviceClass
            let capacity = config.queue(serviceClass: sc)?.concurrency ?? 1
            let head = waiting.first { $0.serviceClass == sc }
            if request.holdsLocks || (head === q && used[sc, default: 0] + q.slots <= max(capacity, q.slots)) {
                break
            }
            _ = condition.wait(until: Date().addingTimeInterval(0.05))
        }
        waiting.removeAll { $0 === q }
        used[q.serviceClass, default: 0] += q.slots
        let startNanos = DispatchTime.now().uptimeNanoseconds
        q.queueMicros = Int64((startNanos &- q.queueStartNanos) / 1_000)
        q.execStart = Date()
        q.execStartNanos = startNanos
        q.state = .running
        q.baseline = q.context.metrics.live
        q.baselineSpill = q.context.memory.spilledBytes
        running.append(q)
        let limit = memoryLimit
        let admittedQueue = config.queue(serviceClass: q.serviceClass) ?? queue
        let slotBytes = config.slotBytes(admittedQueue, limit: limit)
        let startMonitor = !monitorStarted
        monitorStarted = true
        condition.unlock()
        q.context.serviceClass = q.serviceClass
        q.context.memory.budget = slotBytes.multipliedReportingOverflow(by: q.slots).overflow ? Int.max : slotBytes * q.slots
        // SQA runs ahead of queued work on the cores too (the shortest first); the
        // superuser queue next.
        q.context.priority = admittedQueue.kind == .shortQuery ? Self.shortQueryPriority(q.prediction)
            : (admittedQueue.kind == .superuser ? 5 : 0)
        q.context.reserveQueryID(q.queryID)
        if startMonitor { startMonitorThread() }
    }

    /// The scheduler priority of a query SQA admitted: instant when it is predicted to take
    /// a few milliseconds (its shape's shortest run under `instantMilliseconds` — the
    /// shortest, since contention stretches every run — or, without history, a plan under
    /// `instantCost` rows), so that a lookup runs ahead of the heavier queries SQA also
    /// lets through; urgent otherwise.
    static func shortQueryPriority(_ p: ShortQueryPredictor.Prediction?) -> Int {
        guard let p else { return Scheduler.urgentPriority }
        let instant = p.minimumMilliseconds.map { $0 < instantMilliseconds } ?? (p.estimatedCost < instantCost)
        return instant ? Scheduler.instantPriority : Scheduler.urgentPriority
    }
    static let instantMilliseconds = 10.0
    static let instantCost = 10_000.0

    // MARK: - Running and finishing

    /// The query is about to hand rows to the client. False when WLM has already decided
    /// to restart it (the rows must not go out; the query stops with its cancellation).
    public func beginReturning(_ q: WLMQuery) -> Bool {
        condition.withLock {
            if q.pendingMove != nil { return false }
            q.delivering = true
            if q.state == .running { q.state = .returning }
            return true
        }
    }

    /// The query stopped with `error`: if WLM stopped it to run it again in another queue
    /// (a hop or an SQA move), give back its slots, record this run and return true — the
    /// caller runs the statement again and `readmit`s it. Otherwise false.
    public func restartAfter(_ q: WLMQuery, error: Error) -> Bool {
        guard let e = error as? SQLError, e.message == Self.restartSignal.message else { return false }
        condition.lock()
        guard q.pendingMove != nil, q.state != .done else {
            condition.unlock()
            return false
        }
        let record = historyRecord(q, configuration: config, end: Date(), finalState: "Evicted")
        releaseLocked(q)
        counts[q.serviceClass, default: ClassCounts()].restarted += 1
        q.restarts += 1
        q.state = .queued
        q.execStart = nil
        appendHistory(record)
        let timedOutOfSQA = q.sqaTimedOut
        q.sqaTimedOut = false
        condition.broadcast()
        condition.unlock()
        if timedOutOfSQA, let shape = q.request.shortQueryShape, let limit = configuration.shortQuery?.maxExecutionTime {
            predictor.record(shape: shape, milliseconds: Double(limit))
        }
        q.context.cancellation.withdraw(Self.restartSignal)
        return true
    }

    /// The query ended (`error` nil: it completed): give back its slots and record it.
    /// `xid`: its transaction, when it began only after the query was admitted.
    public func finish(_ q: WLMQuery, error: Error?, xid: Int? = nil) {
        condition.lock()
        if let xid { q.xid = xid }
        guard q.state != .done else {
            condition.unlock()
            return
        }
        let wasRunning = q.execStart != nil
        let end = Date()
        let record = historyRecord(q, configuration: config, end: end, finalState: error == nil ? "Completed" : "Aborted")
        if wasRunning {
            releaseLocked(q)
            if error == nil { counts[q.serviceClass, default: ClassCounts()].executed += 1 }
        } else {
            waiting.removeAll { $0 === q }
        }
        q.state = .done
        appendHistory(record)
        condition.broadcast()
        condition.unlock()
        if error == nil, wasRunning, let shape = q.request.shortQueryShape {
            predictor.record(shape: shape, milliseconds: Double(record.execMicros) / 1000)
        }
    }

    private func releaseLocked(_ q: WLMQuery) {
        if running.contains(where: { $0 === q }) {
            used[q.serviceClass, default: q.slots] -= q.slots
            running.removeAll { $0 === q }
        }
    }

    private func appendHistory(_ r: WLMHistoryRecord) {
        if let recorder { return recorder.record(r) }
        completed.append(r)
        if completed.count > Self.historyLimit { completed.removeFirst(completed.count - Self.historyLimit) }
    }

    /// The internal reason a query is stopped to run again elsewhere (never shown: the
    /// statement reruns, or — when it cannot — fails with Redshift's message instead).
    public static let restartSignal = SQLError(.queryCanceled, "query restarted by WLM in another queue")

    static func ranOutOfQueues(_ query: Int) -> SQLError {
        SQLError(.queryCanceled, "Query (\(query)) cancelled on user's request and ran out of wlm queues for restart.")
    }

    static func aborted(_ query: Int, rule: String) -> SQLError {
        SQLError(.queryCanceled, "Query (\(query)) cancelled by WLM abort action of Query Monitoring Rule \"\(rule)\".")
    }

    // MARK: - Monitoring

    private func startMonitorThread() {
        let thread = Thread { [weak self] in
            while let manager = self {
                manager.checkRunning()
                Thread.sleep(forTimeInterval: WorkloadManager.monitorInterval)
            }
        }
        thread.name = "slicehouse-wlm-monitor"
        thread.start()
    }

    /// Apply max_execution_time, SQA's limit and the query monitoring rules to every
    /// running query (the monitor calls this every `monitorInterval`).
    public func checkRunning() {
        var stops: [(WLMQuery, SQLError)] = []
        condition.lock()
        let configuration = config
        let nowNanos = DispatchTime.now().uptimeNanoseconds
        for q in running where q.pendingMove == nil {
            if let e = evaluate(q, configuration, nowNanos: nowNanos, atEnd: false) { stops.append((q, e)) }
        }
        condition.unlock()
        for (q, e) in stops { q.context.cancellation.cancel(e) }
    }

    /// The rules once more when `q` has done its work, so a rule its final counts meet
    /// fires even when the query was quicker than the monitor. With `mayStop` (a read-only
    /// query, which changed nothing) an abort applies, and a hop when no rows have gone to
    /// the client yet: the error it is stopped with is returned (the restart signal for a
    /// hop); otherwise rules only log.
    public func checkAtEnd(_ q: WLMQuery, mayStop: Bool) -> SQLError? {
        condition.lock()
        guard q.pendingMove == nil, running.contains(where: { $0 === q }) else {
            condition.unlock()
            return nil
        }
        let e = evaluate(q, config, nowNanos: DispatchTime.now().uptimeNanoseconds, atEnd: true, logOnly: !mayStop)
        condition.unlock()
        if let e { q.context.cancellation.cancel(e) }
        return e
    }

    /// What happens to running query `q` now (lock held): rule actions are recorded; the
    /// error to stop it with is returned (nil: it goes on).
    private func evaluate(_ q: WLMQuery, _ configuration: WLMConfiguration, nowNanos: UInt64, atEnd: Bool,
                          logOnly: Bool = false) -> SQLError? {
        guard let queue = configuration.queue(serviceClass: q.serviceClass) else { return nil }
        let values = metrics(q, nowNanos: nowNanos)
        let (hits, action) = queue.rules.firing(values, alreadyFired: q.fired)
        let now = Date()
        for rule in hits {
            q.fired.insert(rule.name)
            let a = WLMRuleActionRecord(userID: q.request.userID, query: q.queryID, serviceClass: q.serviceClass,
                                        rule: rule.name, action: rule.action.rawValue, time: now)
            if let recorder { recorder.record(a) } else { actions.append(a) }
        }
        if actions.count > Self.historyLimit { actions.removeFirst(actions.count - Self.historyLimit) }
        if logOnly { return nil }
        // The most severe action of the rules that fired wins.
        switch action {
        case .abort:
            if let rule = hits.first(where: { $0.action == .abort }) { return Self.aborted(q.queryID, rule: rule.name) }
        case .hop:
            // A query that has finished sending its rows is not stopped to be moved.
            if !(atEnd && q.delivering) { return hop(q, configuration) }
        case .log, nil:
            break
        }
        if atEnd { return nil }
        let execMillis = Int((nowNanos &- q.execStartNanos) / 1_000_000)
        if queue.kind == .shortQuery, execMillis > queue.maxExecutionTime, q.request.restartable, !q.delivering {
            // Past SQA's limit: the query moves to the queue it would have gone to.
            let normal = configuration.route(queryGroup: q.request.queryGroup, userGroups: q.request.userGroups,
                                             isSuperuser: q.request.isSuperuser)
            q.pendingMove = normal.serviceClass
            q.sqaTimedOut = true
            return Self.restartSignal
        }
        if queue.kind != .shortQuery, queue.maxExecutionTime > 0, execMillis > queue.maxExecutionTime,
           q.request.timeLimited, !q.delivering {
            // WLM timeout: hop to the next matching queue, else cancel (a query returning
            // rows is past the timeout's reach, as in Redshift).
            return hop(q, configuration)
        }
        return nil
    }

    /// Decide a hop of `q` (lock held): the restart signal when it can move to a next
    /// matching queue, else the error it is cancelled with.
    private func hop(_ q: WLMQuery, _ configuration: WLMConfiguration) -> SQLError {
        if q.request.restartable, !q.delivering,
           let next = configuration.hopTarget(from: q.serviceClass, queryGroup: q.request.queryGroup,
                                              userGroups: q.request.userGroups) {
            q.pendingMove = next.serviceClass
            return Self.restartSignal
        }
        return Self.ranOutOfQueues(q.queryID)
    }

    /// What the rules see of `q` now (lock held).
    private func metrics(_ q: WLMQuery, nowNanos: UInt64) -> QMRValues {
        let live = q.context.metrics.live
        var v = QMRValues()
        v.executionSeconds = Int64((nowNanos &- q.execStartNanos) / 1_000_000_000)
        v.queueSeconds = q.queueMicros / 1_000_000
        v.cpuSeconds = Int64((live.cpuNanos &- q.baseline.cpuNanos) / 1_000_000_000)
        v.scanRows = Int64(live.scanRows - q.baseline.scanRows)
        v.joinRows = Int64(live.joinRows - q.baseline.joinRows)
        v.returnRows = Int64(live.returnRows - q.baseline.returnRows)
        v.tempBlocksToDisk = Int64(max(0, q.context.memory.spilledBytes - q.baselineSpill) >> 20)
        return v
    }

    // MARK: - What the views show

    /// STV_WLM_SERVICE_CLASS_CONFIG / _STATE: every service class with its queue and
    /// counts.
    public func serviceClasses() -> [WLMServiceClassState] {
        condition.withLock {
            let limit = memoryLimit
            return config.allQueues.map { queue in
                let c = counts[queue.serviceClass] ?? ClassCounts()
                return WLMServiceClassState(queue: queue, slotBytes: config.slotBytes(queue, limit: limit),
                                            queued: waiting.filter { $0.serviceClass == queue.serviceClass }.count,
                                            executing: running.filter { $0.serviceClass == queue.serviceClass }.count,
                                            serviced: c.serviced, executed: c.executed, restarted: c.restarted)
            }
        }
    }

    /// STV_WLM_QUERY_STATE, STV_WLM_QUERY_QUEUE_STATE, STV_QUERY_METRICS: queued then
    /// running queries, with their times so far.
    public func activeQueries() -> [WLMActiveQuery] {
        condition.withLock {
            let nowNanos = DispatchTime.now().uptimeNanoseconds
            var out: [WLMActiveQuery] = []
            var positions: [Int: Int] = [:]
            for q in waiting {
                let position = positions[q.serviceClass, default: 0]
                positions[q.serviceClass] = position + 1
                out.append(WLMActiveQuery(query: q.queryID, userID: q.request.userID, xid: q.xid,
                                          serviceClass: q.serviceClass, slots: q.slots, state: q.state.rawValue,
                                          start: q.queueStart, queueMicros: Int64((nowNanos &- q.queueStartNanos) / 1_000),
                                          execMicros: 0, position: position, metrics: metrics(q, nowNanos: nowNanos),
                                          live: q.context.metrics.live, spilledBytes: q.context.memory.spilledBytes))
            }
            for q in running {
                out.append(WLMActiveQuery(query: q.queryID, userID: q.request.userID, xid: q.xid,
                                          serviceClass: q.serviceClass, slots: q.slots, state: q.state.rawValue,
                                          start: q.queueStart, queueMicros: q.queueMicros,
                                          execMicros: Int64((nowNanos &- q.execStartNanos) / 1_000), position: nil,
                                          metrics: metrics(q, nowNanos: nowNanos), live: q.context.metrics.live,
                                          spilledBytes: q.context.memory.spilledBytes))
            }
            return out
        }
    }

    /// STL_WLM_QUERY and STL_QUERY_METRICS: finished runs, oldest first (none once a
    /// recorder takes them).
    public var history: [WLMHistoryRecord] { condition.withLock { completed } }

    /// STL_WLM_RULE_ACTION, oldest first (none once a recorder takes them).
    public var ruleActions: [WLMRuleActionRecord] { condition.withLock { actions } }

    /// One finished run of `q` (lock held).
    private func historyRecord(_ q: WLMQuery, configuration: WLMConfiguration, end: Date, finalState: String) -> WLMHistoryRecord {
        let queueEnd = q.execStart ?? end
        let queueMicros = q.execStart == nil ? Int64(max(0, end.timeIntervalSince(q.queueStart)) * 1_000_000) : q.queueMicros
        let execMicros = q.execStart.map { Int64(max(0, end.timeIntervalSince($0)) * 1_000_000) } ?? 0
        let live = q.context.metrics.live
        return WLMHistoryRecord(
            query: q.queryID, userID: q.request.userID, xid: q.xid, serviceClass: q.serviceClass,
            serviceClassName: configuration.queue(serviceClass: q.serviceClass)?.name ?? "",
            slots: q.slots, serviceClassStart: q.serviceClassStart, queueStart: q.queueStart, queueEnd: queueEnd,
            queueMicros: queueMicros, execStart: q.execStart ?? end, execEnd: end, execMicros: execMicros, end: end,
            finalState: finalState, peakMemory: q.context.memory.peakBytes,
            shortQueryPredicted: q.prediction?.isShort, predictionSource: q.prediction?.source,
            live: live, spilledBytes: q.context.memory.spilledBytes)
    }
}

extension NSCondition {
    fileprivate func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A service class with its configuration and counts.
public struct WLMServiceClassState: Sendable {
    public var queue: WLMQueue
    /// Memory of one slot, in bytes.
    public var slotBytes: Int
    public var queued: Int
    public var executing: Int
    public var serviced: Int
    public var executed: Int
    public var restarted: Int
}

/// A queued or running query.
public struct WLMActiveQuery: Sendable {
    public var query: Int
    public var userID: Int
    public var xid: Int
    public var serviceClass: Int
    public var slots: Int
    public var state: String
    /// When it entered its queue.
    public var start: Date
    public var queueMicros: Int64
    public var execMicros: Int64
    /// Its place in the queue (0 first), nil when running.
    public var position: Int?
    public var metrics: QMRValues
    public var live: LiveCounters
    public var spilledBytes: Int
}

/// Where WLM's history goes when it must outlive the process (the database's STL logs).
public protocol WLMRecorder: AnyObject, Sendable {
    func record(_ run: WLMHistoryRecord)
    func record(_ action: WLMRuleActionRecord)
}

/// One finished run of a query in one service class (STL_WLM_QUERY).
public struct WLMHistoryRecord: Sendable {
    public var query: Int
    public var userID: Int
    public var xid: Int
    public var serviceClass: Int
    public var serviceClassName: String
    public var slots: Int
    public var serviceClassStart: Date
    public var queueStart: Date
    public var queueEnd: Date
    public var queueMicros: Int64
    public var execStart: Date
    public var execEnd: Date
    public var execMicros: Int64
    public var end: Date
    /// Completed, Evicted (moved to another queue by a hop or SQA) or Aborted.
    public var finalState: String
    public var peakMemory: Int
    /// SQA's prediction (nil: the query was not a candidate).
    public var shortQueryPredicted: Bool?
    public var predictionSource: String?
    public var live: LiveCounters
    public var spilledBytes: Int

    public init(query: Int, userID: Int, xid: Int, serviceClass: Int, serviceClassName: String, slots: Int,
                serviceClassStart: Date, queueStart: Date, queueEnd: Date, queueMicros: Int64, execStart: Date,
                execEnd: Date, execMicros: Int64, end: Date, finalState: String, peakMemory: Int,
                shortQueryPredicted: Bool?, predictionSource: String?, live: LiveCounters, spilledBytes: Int) {
        self.query = query; self.userID = userID; self.xid = xid; self.serviceClass = serviceClass
        self.serviceClassName = serviceClassName; self.slots = slots; self.serviceClassStart = serviceClassStart
        self.queueStart = queueStart; self.queueEnd = queueEnd; self.queueMicros = queueMicros; self.execStart = execStart
        self.execEnd = execEnd; self.execMicros = execMicros; self.end = end; self.finalState = finalState
        self.peakMemory = peakMemory; self.shortQueryPredicted = shortQueryPredicted
        self.predictionSource = predictionSource; self.live = live; self.spilledBytes = spilledBytes
    }
}

/// One rule that fired (STL_WLM_RULE_ACTION).
public struct WLMRuleActionRecord: Sendable {
    public var userID: Int
    public var query: Int
    public var serviceClass: Int
    public var rule: String
    public var action: String
    public var time: Date

    public init(userID: Int, query: Int, serviceClass: Int, rule: String, action: String, time: Date) {
        self.userID = userID; self.query = query; self.serviceClass = serviceClass; self.rule = rule
        self.action = action; self.time = time
    }
}
