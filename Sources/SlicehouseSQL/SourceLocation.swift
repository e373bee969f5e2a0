// SPDX-License-Identifier: Apache-2.0
/// A position in SQL source text.
///
/// `line` and `column` are 1-based; `column` counts characters (Unicode scalars),
/// not bytes, so it matches what an editor shows. `offset` is the 0-based UTF-8
/// byte offset into the text that was parsed.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var offset: Int
    public var line: Int
    public var column: Int

    public init(offset: Int, line: Int, column: Int) {
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// Used for nodes built by code rather than parsed from text.
    public static let unknown = SourceLocation(offset: 0, line: 0, column: 0)

    public var description: String { "line \(line), column \(column)" }
}

/// A stored property that is ignored by `==` and `hash(into:)`.
///
/// AST nodes carry their source location, but two nodes that differ only in where
/// they were written are the same expression: `GROUP BY a + 1` must match the
/// select item `a + 1` written elsewhere. PostgreSQL's `equal()` ignores location
/// fields for the same reason. Wrapping `location` in this property wrapper keeps
/// the synthesized `Equatable`/`Hashable` conformances of AST nodes structural.
@propertyWrapper
public struct IgnoredInComparison<Value: Sendable>: Sendable, Hashable {
    public var wrappedValue: Value

    public init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}

extension IgnoredInComparison: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { String(describing: wrappedValue) }
    public var debugDescription: String { String(describing: wrappedValue) }
}
