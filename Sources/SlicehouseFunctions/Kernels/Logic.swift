// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// NOT and IS [NOT] NULL. (AND/OR live in the evaluator because they evaluate
/// their operands lazily; they combine tri-state codes, see `Kern.tri`.)
///
/// Truth tables (SQL three-valued logic):
///
///     NOT TRUE = FALSE   NOT FALSE = TRUE   NOT NULL = NULL
///     AND: FALSE wins, then NULL, else TRUE
///     OR:  TRUE wins, then NULL, else FALSE
package enum LogicKernels {

    /// NOT v (NULL stays NULL).
    package static func not(_ v: Vector, n: Int) throws -> Vector {
        if Kern.isConstNull(v) { return Kern.constNull(.boolean) }
        let b = v.type.physical == .bool ? v : try CastKernels.cast(v, to: .boolean)
        let x = try Kern.bools(b)
        return Kern.boolResult(Kern.map(NotOp(), x), validity: b.validity, constant: b.isConstant)
    }

    /// v IS NULL / IS NOT NULL (never NULL itself).
    package static func isNull(_ v: Vector, negated: Bool, n: Int) -> Vector {
        if v.isConstant {
            return Kern.boolResult([v.isNull(0) != negated], validity: nil, constant: true)
        }
        guard let validity = v.validity else {
            return Kern.boolResult([Bool](filled: negated, count: n), validity: nil, constant: false)
        }
        let out = (0..<n).map { validity.isValid($0) == negated }
        return Kern.boolResult(out, validity: nil, constant: false)
    }
}
