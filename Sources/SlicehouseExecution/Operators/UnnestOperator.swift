// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// PartiQL unnesting (`FROM t AS c, c.orders AS o [AT i]`): each input row once per
/// element of the SUPER array `array`, the element (and its 0-based position) appended
/// as new columns. A row whose value is NULL, not an array, or an empty array produces
/// nothing, as an inner join with no partner would. With `objects` it is UNPIVOT
/// (`UNPIVOT c.obj AS v AT k`): once per attribute of an object, the value and the
/// attribute's name.
///
/// The input's columns are gathered by repeated row indices (no per-row values); the
/// elements are copied straight out of the stored JSON text.
public final class UnnestOperator: Operator {
    private let input: Operator
    private let array: BoundExpr
    private let withPosition: Bool
    private let objects: Bool

    public init(input: Operator, array: BoundExpr, withPosition: Bool, objects: Bool = false) {
        self.input = input
        self.array = array
        self.withPosition = withPosition
        self.objects = objects
    }

    public func next() throws -> Chunk? {
        while let chunk = try input.next() {
            let n = chunk.count
            if n == 0 { continue }
            let values = try ExpressionEvaluator.evaluate(array, chunk)
            guard case .string(let s) = values.data else { throw Kern.mismatch(values, "string") }
            var rows: [Int32] = []
            var positions: [Int64] = []
            var names = StringBuilder(rows: objects ? n : 0, bytes: objects ? n * 8 : 0)
            var elements = StringBuilder(rows: n, bytes: s.bytes.count)
            for r in 0..<n {
                let k = values.isConstant ? 0 : r
                if values.isNull(k) { continue }
                let physical = chunk.selection.map { $0[r] } ?? Int32(truncatingIfNeeded: r)
                s.withBytes(k) { p in
                    guard p.first == (objects ? JSONGrammar.openBrace : JSONGrammar.openBracket) else { return }
                    var at: Int64 = 0
                    SuperJSON.forEachChild(p) { key, range in
                        rows.append(physical)
                        if objects {
                            if let key {
                                let raw = UnsafeBufferPointer(rebasing: p[key])
                                if let decoded = SuperJSON.unescaped(raw) { names.append(contentsOf: decoded) } else { names.append(raw) }
                            }
                            names.finishRow()
                        } else if withPosition {
                            positions.append(at)
                        }
                        at += 1
                        elements.append(UnsafeBufferPointer(rebasing: p[range]))
                        elements.finishRow()
                    }
                }
            }
            if rows.isEmpty { continue }
            var columns = chunk.columns.map { OperatorKernels.gather($0, rows) }
            // A JSON null element is SQL NULL.
            var validity: Validity? = nil
            let built = elements.array
            for i in 0..<rows.count where built.length(i) == 4 {
                let isNull = built.withBytes(i) { SemiStructuredFunctions.isJSONNull($0) }
                if isNull {
                    if validity == nil { validity = Validity(allValid: rows.count) }
                    validity?.setInvalid(i)
                }
            }
            columns.append(Vector(type: .superType, data: .string(built), validity: validity))
            if objects {
                columns.append(Vector(type: .varchar(DataType.maxVarcharLength), data: .string(names.array)))
            } else if withPosition {
                columns.append(Vector(type: .integer, data: .int64(positions)))
            }
            return Chunk(columns: columns, count: rows.count)
        }
        return nil
    }
}
