// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseCatalog
import SlicehouseStorage
import SlicehouseRuntime

/// The views of what each step of a query did, from the runtime's step metrics:
/// SVL_QUERY_SUMMARY (per step, slices together) and SVL_QUERY_REPORT (per step and
/// slice), in Redshift's shape.
///
/// A stage is the part of the plan between two exchanges; Redshift calls it a stream
/// and a segment, so `stm` and `seg` (`segment`) both give the stage. Steps count from
/// the bottom of their stage. The leader's steps are on slice -1. Times are in
/// microseconds; a step's time is its own, its inputs' excluded.
///
/// STL_DIST and STL_BCAST are the same records' exchange steps: each slice's part of a
/// redistribution (`dist`) or a broadcast (`bcast`), the rows and bytes it sent.
extension SystemTables {
    static let queryStepNames = ["svl_query_summary", "svl_query_report", "stl_dist", "stl_bcast"]

    /// Rows one packet of STL_DIST / STL_BCAST carries: an exchange sends a chunk at a time.
    static let rowsPerPacket = Chunk.capacity

    func queryStepTable(named name: String) -> (TableDef, TableSnapshot)? {
        func flag(_ b: Bool) -> Value { .string(b ? "t" : "f") }
        switch name {
        case "svl_query_summary":
            var rows: [[Value]] = []
            for q in database.stepLog {
                // Group the query's per-slice records by step.
                var groups: [[StepRecord]] = []
                for r in q.steps {
                    if let last = groups.last?.last, last.stage == r.stage, last.step == r.step {
                        groups[groups.count - 1].append(r)
                    } else {
                        groups.append([r])
                    }
                }
                for g in groups {
                    guard let first = g.first else { continue }
                    let times = g.map { Int64($0.metrics.nanos / 1000) }
                    let maxTime = times.max() ?? 0
                    let avgTime = times.isEmpty ? 0 : times.reduce(0, +) / Int64(times.count)
                    let rowsOut = g.reduce(0) { $0 + $1.metrics.rows }
                    let bytes = g.reduce(0) { $0 + $1.metrics.bytes }
                    let seconds = Double(maxTime) / 1_000_000
                    let workmem = g.reduce(0) { $0 + $1.metrics.peakMemory }
                    let spilled = g.contains { $0.metrics.isDiskBased }
                    let skipped = g.reduce(0) { $0 + $1.metrics.blocksSkipped }
                    let preFilter = g.reduce(0) { $0 + $1.metrics.rowsPreFilter }
                    rows.append([.int(Int64(q.userID)), .int(Int64(q.query)), .int(Int64(first.stage)), .int(Int64(first.stage)),
                                 .int(Int64(first.step)), .int(maxTime), .int(avgTime), .int(Int64(rowsOut)), .int(Int64(bytes)),
                                 seconds > 0 ? .double(Double(rowsOut) / seconds) : .null,
                                 seconds > 0 ? .double(Double(bytes) / seconds) : .null,
                                 .string(first.label), flag(spilled), .int(Int64(workmem)), flag(skipped > 0), flag(false),
                                 .int(Int64(preFilter))])
                }
            }
            return make(-30, name, [("userid", .integer), ("query", .integer), ("stm", .integer), ("seg", .integer),
                                    ("step", .integer), ("maxtime", .bigint), ("avgtime", .bigint), ("rows", .bigint),
                                    ("bytes", .bigint), ("rate_row", .double), ("rate_byte", .double), ("label", .text),
                                    ("is_diskbased", .char(1)), ("workmem", .bigint), ("is_rrscan", .char(1)),
                                    ("is_delayed_scan", .char(1)), ("rows_pre_filter", .bigint)], rows)
        case "svl_query_report":
            var rows: [[Value]] = []
            for q in database.stepLog {
                for r in q.steps {
                    let m = r.metrics
                    rows.append([.int(Int64(q.userID)), .int(Int64(q.query)), .int(Int64(r.slice)), .int(Int64(r.stage)),
                                 .int(Int64(r.step)), .int(q.start), .int(q.end), .int(Int64(m.nanos / 1000)),
                                 .int(Int64(m.rows)), .int(Int64(m.bytes)), .string(r.label), flag(m.isDiskBased),
                                 .int(Int64(m.peakMemory)), flag(m.blocksSkipped > 0), flag(false), .int(Int64(m.rowsPreFilter))])
                }
            }
            return make(-31, name, [("userid", .integer), ("query", .integer), ("slice", .integer), ("segment", .integer),
                                    ("step", .integer), ("start_time", .timestamp), ("end_time", .timestamp),
                                    ("elapsed_time", .bigint), ("rows", .bigint), ("bytes", .bigint), ("label", .char(256)),
                                    ("is_diskbased", .char(1)), ("workmem", .bigint), ("is_rrscan", .char(1)),
                                    ("is_delayed_scan", .char(1)), ("rows_pre_filter", .bigint)], rows)
        case "stl_dist", "stl_bcast":
            // Redshift's columns: the step's slice, segment (the stage) and step, the query's
            // times, rows and bytes sent; packets counts the chunks sent (up to 2,048 rows each).
            let label = name == "stl_dist" ? "dist" : "bcast"
            var rows: [[Value]] = []
            for q in database.stepLog {
                for r in q.steps where r.label == label && r.slice >= 0 {
                    let m = r.metrics
                    let packets = (m.rows + Self.rowsPerPacket - 1) / Self.rowsPerPacket
                    rows.append([.int(Int64(q.userID)), .int(Int64(q.query)), .int(Int64(r.slice)), .int(Int64(r.stage)),
                                 .int(Int64(r.step)), .int(q.start), .int(q.end), .int(0), .int(Int64(m.rows)),
                                 .int(Int64(m.bytes)), .int(Int64(packets))])
                }
            }
            return make(name == "stl_dist" ? -124 : -125, name,
                        [("userid", .integer), ("query", .integer), ("slice", .integer), ("segment", .integer),
                         ("step", .integer), ("starttime", .timestamp), ("endtime", .timestamp), ("tasknum", .integer),
                         ("rows", .bigint), ("bytes", .bigint), ("packets", .integer)], rows)
        default:
            return nil
        }
    }
}
