// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseStorage
import SlicehousePlan
import SlicehousePlanner
import SlicehouseExecution

/// The conditions in a finished query's run that Redshift records in
/// STL_ALERT_EVENT_LOG, each with Redshift's event text and suggested solution:
///
/// | event | when | solution |
/// |---|---|---|
/// | Missing query planner statistics | a scanned table with rows was never analyzed | Run the ANALYZE command |
/// | Nested Loop Join in the query plan | the plan has a nested loop join | Review the join predicates to avoid Cartesian products |
/// | Distributed a large number of rows across the network | a `dist` step moved more than 1,000,000 rows | Review the choice of distribution key to collocate the join or aggregation |
/// | Broadcasted a large number of rows across the network | a `bcast` step sent more than 1,000,000 rows | Review the choice of distribution key to collocate the join and consider using distributed tables |
/// | Very selective query filter | a scan that no runtime filter narrowed read at least 100,000 rows (after zone maps) and its filter kept under 5% | Review the choice of sort key to enable range restricted scans |
/// | Scanned a large number of deleted rows | a scanned table has at least 1,000 deleted rows, 10% of its rows or more (when automatic VACUUM DELETE would run) | Run the VACUUM command to reclaim deleted space |
enum QueryAlerts {
    struct Alert: Equatable {
        var slice: Int
        var segment: Int
        var step: Int
        var event: String
        var solution: String
    }

    /// Rows a `dist` or `bcast` step must pass to be large (Redshift's 1,000,000).
    static let largeMovement = 1_000_000
    /// Rows a scan must read before its filter counts as very selective, and the share it keeps under.
    static let selectiveScanRows = 100_000
    static let selectiveRatio = 0.05

    static func find(plan: PhysicalNode, steps: [StepRecord], scans: [Int: ScanCounters],
                     snapshots: [Int: TableSnapshot]) -> [Alert] {
        var nestedLoop = false
        plan.visit { node in if case .nestedLoopJoin = node.kind { nestedLoop = true } }
        return find(nestedLoop: nestedLoop, steps: steps, scans: scans, snapshots: snapshots)
    }

    /// The alerts of a run with these step records, scan counters and table snapshots
    /// (`nestedLoop`: the plan has a nested loop join).
    static func find(nestedLoop: Bool, steps: [StepRecord], scans: [Int: ScanCounters],
                     snapshots: [Int: TableSnapshot]) -> [Alert] {
        var alerts: [Alert] = []
        // The query's steps with their slices together, in the order they were recorded.
        var order: [Int] = []
        var byStep: [Int: (stage: Int, step: Int, label: String, rows: Int, preFilter: Int)] = [:]
        for r in steps {
            let key = r.stage << 32 | r.step
            if var s = byStep[key] {
                s.rows += r.metrics.rows
                s.preFilter += r.metrics.rowsPreFilter
                byStep[key] = s
            } else {
                order.append(key)
                byStep[key] = (r.stage, r.step, r.label, r.metrics.rows, r.metrics.rowsPreFilter)
            }
        }
        let grouped = order.compactMap { byStep[$0] }
        /// The table id a scan step's label names (`scan   tbl=100000 name=t`).
        func table(_ label: String) -> Int? {
            guard label.hasPrefix("scan"), let r = label.range(of: "tbl=") else { return nil }
            return Int(label[r.upperBound...].prefix { $0 == "-" || $0.isNumber })
        }
        var scanStep: [Int: (stage: Int, step: Int)] = [:]
        for s in grouped { if let t = table(s.label), scanStep[t] == nil { scanStep[t] = (s.stage, s.step) } }

        for t in scans.keys.sorted() where t >= 0 {
            guard let snap = snapshots[t] else { continue }
            let at = scanStep[t] ?? (-1, -1)
            if snap.analyzed == nil && snap.rowCount > 0 {
                alerts.append(Alert(slice: -1, segment: at.stage, step: at.step, event: "Missing query planner statistics",
                                    solution: "Run the ANALYZE command"))
            }
            let counts = TableVacuum.Counts(snap)
            if counts.deleted >= 1_000 && counts.deleted * 10 >= counts.rows {
                alerts.append(Alert(slice: 0, segment: at.stage, step: at.step,
                                    event: "Scanned a large number of deleted rows",
                                    solution: "Run the VACUUM command to reclaim deleted space"))
            }
        }
        if nestedLoop {
            let at = grouped.first { $0.label == "nloop" }
            alerts.append(Alert(slice: -1, segment: at?.stage ?? -1, step: at?.step ?? -1,
                                event: "Nested Loop Join in the query plan",
                                solution: "Review the join predicates to avoid Cartesian products"))
        }
        for s in grouped {
            if s.label == "dist" && s.rows > largeMovement {
                alerts.append(Alert(slice: 0, segment: s.stage, step: s.step,
                                    event: "Distributed a large number of rows across the network:\(s.rows) rows were distributed in order to process the join or aggregation",
                                    solution: "Review the choice of distribution key to collocate the join or aggregation"))
            } else if s.label == "bcast" && s.rows > largeMovement {
                alerts.append(Alert(slice: 0, segment: s.stage, step: s.step,
                                    event: "Broadcasted a large number of rows across the network:\(s.rows) rows were broadcasted",
                                    solution: "Review the choice of distribution key to collocate the join and consider using distributed tables"))
            } else if let t = table(s.label), s.preFilter >= selectiveScanRows, !(scans[t]?.runtimeFiltering ?? false),
                      Double(s.rows) < selectiveRatio * Double(s.preFilter) {
                let ratio = Double(s.rows) / Double(s.preFilter)
                alerts.append(Alert(slice: 0, segment: s.stage, step: s.step,
                                    event: "Very selective query filter:ratio=rows(\(s.rows))/rows_pre_user_filter(\(s.preFilter))=\(String(format: "%.6f", ratio))",
                                    solution: "Review the choice of sort key to enable range restricted scans"))
            }
        }
        return alerts
    }
}

extension Database {
    /// STL_EXPLAIN: one row per step of the plan EXPLAIN prints (`lines`), numbered from
    /// the top; each step's detail lines (conditions, filters, keys) in `info`.
    func logExplain(_ lines: [String], query: Int, userID: Int) {
        var rows: [[Value]] = []
        var parents: [Int] = []   // the node id at each depth
        for line in lines {
            let trimmed = line.drop { $0 == " " }
            let depth: Int
            let title: Substring
            if line.hasPrefix("XN") {
                depth = 0
                title = Substring(line)
            } else if trimmed.hasPrefix("->") {
                depth = (line.count - trimmed.count - 2) / 6 + 1
                title = trimmed.dropFirst(2).drop { $0 == " " }
            } else {
                // A detail line of the last step.
                guard let last = rows.indices.last, case .string(let info) = rows[last][5] else { continue }
                let joined = info.isEmpty ? String(trimmed) : info + " " + trimmed
                rows[last][5] = .string(String(joined.prefix(400)))
                continue
            }
            let id = rows.count + 1
            parents.removeLast(max(0, parents.count - depth))
            let parent = parents.last ?? 0
            parents.append(id)
            rows.append([.int(Int64(userID)), .int(Int64(query)), .int(Int64(id)), .int(Int64(parent)),
                         .string(String(title.prefix(400))), .string("")])
        }
        log(.explain, rows)
    }
}
