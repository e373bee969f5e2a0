// SPDX-License-Identifier: Apache-2.0
/// One lexical token of SQL text.
public struct Token: Sendable, Hashable {
    public var kind: TokenKind
    /// Where the token starts.
    public var location: SourceLocation
    /// Byte offset just past the token's last byte.
    public var endOffset: Int

    public init(kind: TokenKind, location: SourceLocation, endOffset: Int) {
        self.kind = kind
        self.location = location
        self.endOffset = endOffset
    }
}

/// What a token is. Keywords are not a separate kind: an unquoted word is a
/// `.word` and the parser interprets it by context (see `Keywords`).
public enum TokenKind: Sendable, Hashable {
    /// An unquoted identifier or keyword, folded to lower case (ASCII letters only).
    /// A Redshift temporary-table name `#name` is a word including the `#`.
    case word(String)
    /// A `"quoted identifier"`, case kept, `""` unescaped.
    case quotedIdentifier(String)
    /// Digits only.
    case integer(String)
    /// A number with a decimal point and no exponent.
    case decimal(String)
    /// A number with an exponent.
    case float(String)
    /// A string constant (`'...'`, `E'...'`, `$$...$$`) with escapes resolved.
    case string(String)
    /// A positional parameter `$n`.
    case parameter(Int)
    /// An operator or punctuation: `( ) , . ; :: + - * / % ^ || = <> != < <= > >= ~~` ...
    case symbol(String)
    /// The end of the text; always the last token.
    case endOfInput
}
