// SPDX-License-Identifier: Apache-2.0
/// Bytes of input (a `-c` argument, a line of a file or of the terminal) as text, or
/// the error PostgreSQL and Redshift give for SQL that is not valid UTF-8:
/// `invalid byte sequence for encoding "UTF8": 0xff`. Decoding with replacement would
/// store U+FFFD in place of the bytes the user wrote, silently.
public enum UTF8Input {
    /// The text of `bytes`; when they are not valid UTF-8, also the error message
    /// naming the first invalid sequence (the text then has U+FFFD in its place).
    public static func decode<Bytes: Collection>(_ bytes: Bytes) -> (text: String, invalid: String?) where Bytes.Element == UInt8 {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let bad = firstInvalidSequence(bytes) else { return (text, nil) }
        let hex = bad.map { "0x" + String($0, radix: 16, uppercase: false).leftPadded(to: 2) }.joined(separator: " ")
        return (text, "invalid byte sequence for encoding \"UTF8\": \(hex)")
    }

    /// The bytes of the first ill-formed sequence, nil when all of `bytes` is valid.
    static func firstInvalidSequence<Bytes: Collection>(_ bytes: Bytes) -> [UInt8]? where Bytes.Element == UInt8 {
        if bytes.allSatisfy({ $0 < 0x80 }) { return nil }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var consumed = 0
        let all = Array(bytes)
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar):
                consumed += scalar.count
            case .error(let length):
                return Array(all[consumed..<min(all.count, consumed + max(1, length))])
            case .emptyInput:
                return nil
            }
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
