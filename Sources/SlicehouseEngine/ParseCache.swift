// SPDX-License-Identifier: Apache-2.0
import SlicehouseSQL
import SlicehousePlatform

/// Statement trees of recently sent SQL texts, by text and parse options: the same text
/// sent again (a dashboard's refresh, a health check's `select 1`, a client's `SET`) is
/// not lexed and parsed again. The trees are values and depend on nothing but the text
/// and the options; texts that fail to parse, and long ones, are not kept.
final class ParseCache: @unchecked Sendable {
    struct Key: Hashable {
        var text: String
        var options: ParseOptions
    }

    /// Texts longer than this (in UTF-8 bytes) are parsed every time.
    static let maxTextBytes = 4096
    let capacity: Int
    private let lock = Lock()
    private var entries: [Key: (statements: [ParsedStatement], lastUse: LastUse)] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int = 2048) { self.capacity = max(1, capacity) }

    /// The statements of `sql` parsed with `options`, from the cache when it holds them.
    func parse(_ sql: String, options: ParseOptions) throws -> [ParsedStatement] {
        guard sql.utf8.count <= Self.maxTextBytes else { return try parseScript(sql, options: options) }
        if let found = cached(sql, options: options) { return found }
        let statements = try parseScript(sql, options: options)
        store(Key(text: sql, options: options), statements)
        return statements
    }

    /// The statements of `sql` when the cache holds them (parsed before with `options`),
    /// else nil; a text not held is not parsed.
    func cached(_ sql: String, options: ParseOptions) -> [ParsedStatement]? {
        guard sql.utf8.count <= Self.maxTextBytes else { return nil }
        return lock.withLock {
            guard let e = entries[Key(text: sql, options: options)] else { return nil }
            clock += 1
            e.lastUse.tick = clock
            return e.statements
        }
    }

    private func store(_ key: Key, _ statements: [ParsedStatement]) {
        lock.withLock {
            if entries.count >= capacity {
                let byAge = entries.sorted { $0.value.lastUse.tick < $1.value.lastUse.tick }
                for (k, _) in byAge.prefix(max(1, capacity / 4)) { entries[k] = nil }
            }
            clock += 1
            let use = LastUse()
            use.tick = clock
            entries[key] = (statements, use)
        }
    }
}
