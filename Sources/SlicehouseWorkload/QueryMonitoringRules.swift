// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime

/// A metric a query monitoring rule tests (Redshift's names and units).
public enum QMRMetric: String, Sendable, CaseIterable {
    /// Seconds the query has run (queue time excluded).
    case queryExecutionTime = "query_execution_time"
    /// Seconds the query waited for a slot.
    case queryQueueTime = "query_queue_time"
    /// CPU seconds of the query's tasks.
    case queryCPUTime = "query_cpu_time"
    case scanRowCount = "scan_row_count"
    case joinRowCount = "join_row_count"
    case returnRowCount = "return_row_count"
    /// 1 MB blocks written to temporary (spill) files.
    case queryTempBlocksToDisk = "query_temp_blocks_to_disk"
    /// Accepted; always 0 (no Spectrum).
    case spectrumScanRowCount = "spectrum_scan_row_count"
}

/// What a rule does when its predicates hold. Ordered by severity: when several rules
/// fire together, the most severe action wins (abort, then hop, then log).
public enum QMRAction: String, Sendable, Comparable {
    case log, hop, abort

    var severity: Int {
        switch self {
        case .log: return 0
        case .hop: return 1
        case .abort: return 2
        }
    }

    public static func < (a: QMRAction, b: QMRAction) -> Bool { a.severity < b.severity }
}

/// `metric operator value`.
public struct QMRPredicate: Sendable, Equatable {
    public enum Comparison: String, Sendable { case greater = ">", less = "<", equal = "=" }
    public var metric: QMRMetric
    public var comparison: Comparison
    public var value: Int64

    public init(metric: QMRMetric, comparison: Comparison, value: Int64) {
        self.metric = metric
        self.comparison = comparison
        self.value = value
    }

    func holds(_ metrics: QMRValues) -> Bool {
        let v = metrics[metric]
        switch comparison {
        case .greater: return v > value
        case .less: return v < value
        case .equal: return v == value
        }
    }
}

/// One query monitoring rule: up to three predicates, all of which must hold.
public struct QueryMonitoringRule: Sendable, Equatable {
    public var name: String
    public var predicates: [QMRPredicate]
    public var action: QMRAction

    public init(name: String, predicates: [QMRPredicate], action: QMRAction) {
        self.name = name
        self.predicates = predicates
        self.action = action
    }

    public func holds(_ metrics: QMRValues) -> Bool { predicates.allSatisfy { $0.holds(metrics) } }

    static func parse(_ json: Any, queue at: String) throws -> QueryMonitoringRule {
        guard let object = json as? [String: Any] else {
            throw WLMConfiguration.invalid("a rule in \(at) is not a JSON object")
        }
        for key in object.keys.sorted() where !["rule_name", "predicate", "action", "value"].contains(key) {
            throw WLMConfiguration.invalid("unknown property \"\(key)\" in a rule of \(at)")
        }
        guard let name = object["rule_name"] as? String, !name.isEmpty else {
            throw WLMConfiguration.invalid("a rule in \(at) has no rule_name")
        }
        // Redshift: up to 32 alphanumeric characters or underscores, no spaces or quotes.
        guard name.count <= 32, name.allSatisfy({ ($0.isLetter || $0.isNumber || $0 == "_") && $0.isASCII }) else {
            throw WLMConfiguration.invalid("rule name \"\(name)\" in \(at) must be 1 to 32 letters, digits or underscores")
        }
        let at = "rule \"\(name)\" of \(at)"
        guard let list = object["predicate"] as? [Any], !list.isEmpty else {
            throw WLMConfiguration.invalid("\(at) needs a predicate: a list of 1 to \(WLMConfiguration.maxPredicates) conditions")
        }
        guard list.count <= WLMConfiguration.maxPredicates else {
            throw WLMConfiguration.invalid("\(at) has \(list.count) predicates; a rule can have at most \(WLMConfiguration.maxPredicates)")
        }
        var predicates: [QMRPredicate] = []
        for p in list {
            guard let o = p as? [String: Any] else { throw WLMConfiguration.invalid("a predicate of \(at) is not a JSON object") }
            for key in o.keys.sorted() where !["metric_name", "operator", "value"].contains(key) {
                throw WLMConfiguration.invalid("unknown property \"\(key)\" in a predicate of \(at)")
            }
            guard let m = o["metric_name"] as? String else {
                throw WLMConfiguration.invalid("a predicate of \(at) has no metric_name")
            }
            guard let metric = QMRMetric(rawValue: m.lowercased()) else {
                throw WLMConfiguration.invalid("unknown metric_name \"\(m)\" in \(at) (known: "
                                               + QMRMetric.allCases.map { $0.rawValue }.joined(separator: ", ") + ")")
            }
            guard let op = o["operator"] as? String, let comparison = QMRPredicate.Comparison(rawValue: op) else {
                throw WLMConfiguration.invalid("the operator of a predicate of \(at) must be \">\", \"<\" or \"=\"")
            }
            guard let raw = o["value"], let value = WLMConfiguration.integer(raw), value >= 0 else {
                throw WLMConfiguration.invalid("the value of \(metric.rawValue) in \(at) must be a whole number of at least 0")
            }
            predicates.append(QMRPredicate(metric: metric, comparison: comparison, value: Int64(value)))
        }
        guard let a = object["action"] as? String else {
            throw WLMConfiguration.invalid("\(at) has no action (log, hop or abort)")
        }
        guard let action = QMRAction(rawValue: a.lowercased()) else {
            if a.lowercased() == "change_query_priority" {
                throw WLMConfiguration.invalid("the change_query_priority action of \(at) needs automatic WLM")
            }
            throw WLMConfiguration.invalid("unknown action \"\(a)\" in \(at) (log, hop or abort)")
        }
        return QueryMonitoringRule(name: name, predicates: predicates, action: action)
    }
}

/// A query's metrics as rules see them.
public struct QMRValues: Sendable, Equatable {
    public var executionSeconds: Int64 = 0
    public var queueSeconds: Int64 = 0
    public var cpuSeconds: Int64 = 0
    public var scanRows: Int64 = 0
    public var joinRows: Int64 = 0
    public var returnRows: Int64 = 0
    public var tempBlocksToDisk: Int64 = 0

    public init() {}

    public subscript(metric: QMRMetric) -> Int64 {
        switch metric {
        case .queryExecutionTime: return executionSeconds
        case .queryQueueTime: return queueSeconds
        case .queryCPUTime: return cpuSeconds
        case .scanRowCount: return scanRows
        case .joinRowCount: return joinRows
        case .returnRowCount: return returnRows
        case .queryTempBlocksToDisk: return tempBlocksToDisk
        case .spectrumScanRowCount: return 0
        }
    }
}

extension Array where Element == QueryMonitoringRule {
    /// The rules that hold for `metrics` and have not fired yet for this query, and the
    /// most severe action among them.
    public func firing(_ metrics: QMRValues, alreadyFired: Set<String>) -> (rules: [QueryMonitoringRule], action: QMRAction?) {
        let hits = filter { !alreadyFired.contains($0.name) && $0.holds(metrics) }
        return (hits, hits.map { $0.action }.max())
    }
}
