// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseStorage
import SlicehousePlan
import SlicehouseFunctions

/// Streams a table's rows from its blocks (see `SliceScanner`): only the requested
/// columns, blocks skipped by their zone maps, deleted rows left out.
final class ScanOperator: Operator {
    private let scanner: SliceScanner
    private let report: (ScanCounters) -> Void
    private let cancellation: Cancellation
    private let metrics: QueryMetrics
    private var reported = false

    init(scanner: SliceScanner, context: QueryContext, report: @escaping (ScanCounters) -> Void) {
        self.scanner = scanner
        cancellation = context.cancellation
        metrics = context.metrics
        self.report = report
    }

    func next() throws -> Chunk? {
        try cancellation.check()
        if let c = try scanner.next() {
            metrics.addScanRows(c.count)   // scan_row_count, for query monitoring rules
            return c
        }
        if !reported { reported = true; report(scanner.counters) }
        return nil
    }
}

/// The conjuncts of a scan's filter that zone maps can use: `col op constant`,
/// `col BETWEEN a AND b` (two conjuncts), `col IN (constants)`. `columns` maps the
/// filter's column positions to table columns. Only comparisons where the column and
/// the constant share their representation (same physical kind, same decimal scale)
/// qualify; everything else is left to the filter.
public enum ZonePredicates {
    /// The filter's simple predicates (a column against constants) as zone predicates, by
    /// position in `columns`; with `nulls`, `column IS NULL` too (for a table's own blocks,
    /// whose zone maps count their NULLs exactly: TPC-DS q76's `ss_store_sk IS NULL`
    /// skips the blocks without one and keeps a range's NULL rows before any other column
    /// is read).
    public static func extract(_ filter: BoundExpr?, columns: [Int], types: [DataType], nulls: Bool = false) -> [ZonePredicate] {
        var out: [ZonePredicate] = []
        for c in conjuncts(filter) {
            if let p = predicate(c, columns: columns, types: types) {
                out.append(p)
            } else if nulls, case .isNull(.column(let i, _), negated: false) = c, i < columns.count, columns[i] >= 0 {
                out.append(ZonePredicate(column: columns[i], ops: [], isNull: true))
            }
        }
        return out
    }

    /// Single comparisons `col op constant` that encoded blocks can evaluate.
    static func encodedFilters(_ filter: BoundExpr?, columns: [Int]) -> [EncodedFilter] {
        var out: [EncodedFilter] = []
        for c in conjuncts(filter) {
            guard case .binary(var op, var l, var r, _) = c, op.isComparison else { continue }
            if case .constant = l { swap(&l, &r); op = op.flipped }
            guard case .column(let i, let ct) = l, case .constant(let v, let vt) = r,
                  i < columns.count, columns[i] >= 0, !v.isNull, compatible(ct, vt) else { continue }
            let cop: CompareOp
            switch op {
            case .equal: cop = .eq
            case .notEqual: cop = .ne
            case .less: cop = .lt
            case .lessEqual: cop = .le
            case .greater: cop = .gt
            case .greaterEqual: cop = .ge
            default: continue
            }
            out.append(EncodedFilter(columnPosition: i, op: cop, constant: v))
        }
        return out
    }

    /// The slices that can hold rows passing `predicates` in a table distributed by
    /// `keyColumn` (of `type`) over `sliceCount` slices: the slices of the key's values
    /// when a conjunct pins the key to constants (`=` or `IN`), else nil (every slice).
    /// Only for integer-backed keys (integers, decimals, dates, times): strings that
    /// compare equal need not hash alike (trailing blanks), nor need doubles (-0).
    static func keySlices(_ predicates: [ZonePredicate], keyColumn: Int, type: DataType, sliceCount: Int) -> Set<Int>? {
        guard sliceCount > 1 else { return nil }
        for p in predicates where p.column == keyColumn {
            guard let values = p.ops.first(where: { $0.0 == .eq }).map({ [$0.1] }) ?? p.inList, !values.isEmpty else { continue }
            let key: Vector
            switch type.physical {
            case .int64:
                var xs: [Int64] = []
                for b in values {
                    guard case .int(let x) = b else { return nil }
                    xs.append(x)
                }
                key = Vector(type: type, data: .int64(xs))
            case .int128:
                var xs: [Int128] = []
                for b in values {
                    switch b {
                    case .int128(let x): xs.append(x)
                    case .int(let x): xs.append(Int128(x))
                    default: return nil
                    }
                }
                key = Vector(type: type, data: .int128(xs))
            default:
                return nil
            }
            return Set(Distributor.slices(forKey: key, count: values.count, sliceCount: sliceCount).map { Int($0) })
        }
        return nil
    }

    /// The AND-ed parts of a filter (nested ANDs flattened).
    static func conjuncts(_ filter: BoundExpr?) -> [BoundExpr] {
        guard let filter else { return [] }
        guard case .and(let parts) = filter else { return [filter] }
        return parts.flatMap { conjuncts($0) }
    }

    static func compatible(_ column: DataType, _ constant: DataType) -> Bool {
        if column.physical != constant.physical { return false }
        if column.isDecimal || constant.isDecimal { return column.isDecimal == constant.isDecimal && column.scale == constant.scale }
        if column.isTemporal || constant.isTemporal { return column == constant }
        return column.isString == constant.isString
    }

    static func predicate(_ e: BoundExpr, columns: [Int], types: [DataType]) -> ZonePredicate? {
        switch e {
        case .binary(let op, let l, let r, _) where op.isComparison && op != .notEqual:
            var op = op
            var colExpr = l, constExpr = r
            if case .constant = l { colExpr = r; constExpr = l; op = op.flipped }
            guard case .column(let i, let ct) = colExpr, case .constant(let v, let vt) = constExpr,
                  i < columns.count, columns[i] >= 0, compatible(ct, vt),
                  let bound = ZonePredicate.bound(v, type: ct) else { return nil }
            let zop: ZoneOp
            switch op {
            case .equal: zop = .eq
            case .less: zop = .lt
            case .lessEqual: zop = .le
            case .greater: zop = .gt
            case .greaterEqual: zop = .ge
            default: return nil
            }
            return ZonePredicate(column: columns[i], ops: [(zop, bound)])
        case .inList(.column(let i, let ct), let items, negated: false):
            guard i < columns.count, columns[i] >= 0 else { return nil }
            var bounds: [ZoneBound] = []
            for item in items {
                guard case .constant(let v, let vt) = item, compatible(ct, vt),
                      let b = ZonePredicate.bound(v, type: ct) else { return nil }
                bounds.append(b)
            }
            return ZonePredicate(column: columns[i], ops: [], inList: bounds)
        default:
            return nil
        }
    }
}
