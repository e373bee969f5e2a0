// SPDX-License-Identifier: Apache-2.0
/// Statement text with its secrets masked, as Redshift shows it in STL_QUERY,
/// STL_UTILITYTEXT, SVL_STATEMENTTEXT and STV_RECENTS: the string after `PASSWORD`
/// (CREATE USER, ALTER USER) and the credentials of COPY and UNLOAD (`CREDENTIALS`,
/// `SECRET_ACCESS_KEY`, `SESSION_TOKEN`, `MASTER_SYMMETRIC_KEY`, `ACCESS_KEY_ID`) become
/// `'***'`. Everything the engine keeps or shows of a statement's text goes through
/// this first, so a password reaches no log, system table or file.
public enum SecretMasking {
    /// Words whose following string constant is a secret.
    static let secretWords: Set<String> = ["password", "credentials", "secret_access_key", "session_token",
                                           "master_symmetric_key", "access_key_id", "with_credentials"]

    /// `text` with every secret replaced by `'***'`. Text that does not lex (an
    /// unterminated string after PASSWORD, say) is cut at the first secret word.
    public static func mask(_ text: String) -> String {
        // Most statements name no secret: nothing to do.
        guard mayHoldSecret(text) else { return text }
        let tokens: [Token]
        do {
            tokens = try Lexer.tokenize(text)
        } catch {
            return cutAtSecretWord(text)
        }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var copied = 0
        var i = 0
        while i < tokens.count {
            if case .word(let w) = tokens[i].kind, secretWords.contains(w) {
                // Skip an optional `=` or AS between the word and its value.
                var j = i + 1
                if j < tokens.count, case .symbol("=") = tokens[j].kind { j += 1 }
                if j < tokens.count, case .string = tokens[j].kind {
                    let t = tokens[j]
                    out.append(contentsOf: bytes[copied..<t.location.offset])
                    out.append(contentsOf: Array("'***'".utf8))
                    copied = t.endOffset
                    i = j + 1
                    continue
                }
            }
            i += 1
        }
        if copied == 0 { return text }
        out.append(contentsOf: bytes[copied...])
        return String(decoding: out, as: UTF8.self)
    }

    static func mayHoldSecret(_ text: String) -> Bool {
        firstSecretWordEnd(Array(text.utf8)) != nil
    }

    /// The byte offset just past the first secret word (ASCII case ignored), or nil.
    static func firstSecretWordEnd(_ bytes: [UInt8]) -> Int? {
        let lower = bytes.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }
        var best: Int? = nil
        for w in secretWords {
            let word = Array(w.utf8)
            guard lower.count >= word.count else { continue }
            for start in 0...(lower.count - word.count) where lower[start] == word[0] {
                if lower[start..<(start + word.count)].elementsEqual(word) {
                    if best.map({ start + word.count < $0 }) ?? true { best = start + word.count }
                    break
                }
            }
        }
        return best
    }

    static func cutAtSecretWord(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard let end = firstSecretWordEnd(bytes) else { return text }
        return String(decoding: bytes[..<end], as: UTF8.self) + " ***"
    }
}
