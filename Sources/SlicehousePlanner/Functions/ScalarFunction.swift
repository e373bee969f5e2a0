import SlicehouseTypes

/// Built-in scalar functions. Resolution (name + argument types -> function,
/// argument casts, result type) lives in `FunctionRegistry`; kernels live in
/// SlicehouseExecution/Kernels.
public enum ScalarFunction: String, Sendable, Equatable {
    case upper, lower, length
    case random

    /// Volatile functions are never constant-folded.
    public var isVolatile: Bool { self == .random }
}
