import SlicehouseTypes
import SlicehousePlanner

/// Evaluates bound expressions a whole chunk at a time.
public enum ExpressionEvaluator {
    /// Evaluate `expr` over the logical rows of `chunk`. The result has
    /// `chunk.count` rows (dense over the selection), or is a constant vector.
    public static func evaluate(_ expr: BoundExpr, _ chunk: Chunk) throws -> Vector {
        throw SQLError.unsupported("expression evaluation (under construction)")
    }

    /// Physical indices (ascending) of the logical rows of `chunk` where
    /// `predicate` is TRUE (NULL and FALSE rows are dropped).
    public static func select(_ predicate: BoundExpr, _ chunk: Chunk) throws -> [Int32] {
        throw SQLError.unsupported("expression evaluation (under construction)")
    }
}
