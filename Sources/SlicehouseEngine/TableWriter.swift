// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseCatalog
import SlicehouseStorage
import SlicehousePlan
import SlicehousePlanner
import SlicehouseExecution

/// Rows a statement writes into a table (INSERT, COPY, UPDATE's new rows, MERGE, CTAS,
/// ALTER TABLE's rebuild and APPEND, a materialized view's refresh): completed with
/// DEFAULT, IDENTITY and NULL, checked (NOT NULL, lengths, CHAR's blanks), then placed on
/// the slices — distributed, sorted by the sort key, encoded into blocks of the
/// transaction's sink — as the statement's work (`context`).
struct TableWriter {
    let session: Session
    let context: QueryContext

    /// Check NOT NULL and string lengths for values assigned to `column`, and
    /// normalize CHAR values (no trailing blanks). Uses no session state.
    static func assign(_ v: Vector, to column: ColumnDef, rows: Int) throws -> Vector {
        var v = v.flattened(count: rows)
        if column.notNull, v.hasNulls {
            for i in 0..<rows where v.isNull(i) {
                // Redshift's wording (its error 8007), the column's name unquoted.
                throw SQLError(.notNullViolation, "Cannot insert a NULL value into column \(column.name)")
            }
        }
        switch column.type {
        case .varchar(let n), .char(let n):
            guard case .string(var s) = v.data else { break }
            var trimmed = false
            if case .char = column.type, TableWriter.hasTrailingBlanks(s) {
                // CHAR: trailing blanks are insignificant; store without them.
                var out = StringArray(reservingCount: rows, bytes: s.bytes.count)
                for i in 0..<s.count {
                    var e = Int(s.offsets[i + 1])
                    let st = Int(s.offsets[i])
                    while e > st && s.bytes[e - 1] == 32 { e -= 1 }
                    s.bytes.withUnsafeBufferPointer { out.append(bytes: UnsafeBufferPointer(rebasing: $0[st..<e])) }
                }
                s = out
                trimmed = true
            }
            let limit = Int32(clamping: n)
            let tooLong = s.offsets.withUnsafeBufferPointer { o -> Bool in
                for i in 0..<s.count where o[i + 1] &- o[i] > limit && !v.isNull(i) { return true }
                return false
            }
            if tooLong {
                // VARCHAR: blanks beyond the length are dropped, as Redshift does; any
                // other character beyond it is an error.
                s = try TableWriter.cutTrailingBlanks(s, limit: Int(limit), type: column.type, isNull: { v.isNull($0) })
                trimmed = true
            }
            if case .char = column.type, let bad = TableWriter.firstMultibyte(s, isNull: { v.isNull($0) }) {
                throw SQLError(.invalidParameter, "Multibyte character not supported for CHAR (Hint: try using VARCHAR). Invalid char: \(bad)")
            }
            if trimmed { v.data = .string(s) }
        case .varbyte(let n):
            // Two hexadecimal digits a byte.
            guard case .string(let s) = v.data else { break }
            let limit = Int32(clamping: 2 * n)
            for i in 0..<s.count where s.offsets[i + 1] &- s.offsets[i] > limit && !v.isNull(i) {
                throw SQLError(.stringTooLong, "value too long for type \(column.type.sqlName)")
            }
        default: break
        }
        return v.retyped(column.type)
    }

    /// `s` with each value longer than `limit` bytes cut to it, when only blanks are cut;
    /// `value too long` when a value has anything else beyond the limit.
    static func cutTrailingBlanks(_ s: StringArray, limit: Int, type: DataType, isNull: (Int) -> Bool) throws -> StringArray {
        var out = StringArray(reservingCount: s.count, bytes: s.bytes.count)
        try s.bytes.withUnsafeBufferPointer { b in
            for i in 0..<s.count {
                let st = Int(s.offsets[i]), en = Int(s.offsets[i + 1])
                var e = en
                if en - st > limit && !isNull(i) {
                    guard b[(st + limit)..<en].allSatisfy({ $0 == 32 }) else {
                        throw SQLError(.stringTooLong, "value too long for type \(type.sqlName)")
                    }
                    e = st + limit
                }
                out.append(bytes: UnsafeBufferPointer(rebasing: b[st..<e]))
            }
        }
        return out
    }

    /// The first multibyte character of a non-NULL value of `s` as its bytes in hex
    /// (`e4 b8 ad`), or nil when every value is single-byte (CHAR takes only those).
    static func firstMultibyte(_ s: StringArray, isNull: (Int) -> Bool) -> String? {
        guard hasNonASCII(s.bytes) else { return nil }
        for i in 0..<s.count where !isNull(i) {
            let st = Int(s.offsets[i]), en = Int(s.offsets[i + 1])
            guard let k = s.bytes[st..<en].firstIndex(where: { $0 >= 0x80 }) else { continue }
            var e = k + 1
            while e < en && (s.bytes[e] & 0xC0) == 0x80 { e += 1 }
            return s.bytes[k..<e].map { String($0, radix: 16) }.joined(separator: " ")
        }
        return nil
    }

    /// Whether a byte of `bytes` has its high bit set, eight bytes at a time (every CHAR
    /// column a COPY loads passes through here too, after the loader's own check).
    static func hasNonASCII(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            let n = raw.count
            var acc: UInt64 = 0
            var i = 0
            while i + 32 <= n {
                acc |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)
                i += 32
            }
            while i + 8 <= n {
                acc |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i += 8
            }
            while i < n {
                acc |= UInt64(raw[i])
                i += 1
            }
            return acc & 0x8080_8080_8080_8080 != 0
        }
    }

    /// Whether any element of `s` ends in a blank (a CHAR value to trim); COPY's
    /// parser trims already, so this usually finds none and nothing is copied.
    static func hasTrailingBlanks(_ s: StringArray) -> Bool {
        s.offsets.withUnsafeBufferPointer { o in
            s.bytes.withUnsafeBufferPointer { b in
                for i in 0..<(o.count - 1) where o[i + 1] > o[i] && b[Int(o[i + 1]) - 1] == 32 { return true }
                return false
            }
        }
    }

    /// Complete rows for `table`: `provided` vectors for `targets` (column indices);
    /// other columns get their DEFAULT, IDENTITY values or NULL. Returns full-width chunks.
    func completeRows(_ table: TableDef, targets: [Int], provided: [Chunk]) throws -> [Chunk] {
        // Every column provided in its own type (a COPY without a column list): only
        // the checks of `assign` remain, and the chunks take them in parallel.
        if targets == Array(table.columns.indices),
           provided.allSatisfy({ c in zip(c.columns, table.columns).allSatisfy { $0.type == $1.type } }) {
            let columns = table.columns
            return try parallelMap(provided.count, context: context) { k in
                let c = provided[k].compacted()
                return Chunk(columns: try zip(c.columns, columns).map { try TableWriter.assign($0, to: $1, rows: c.count) },
                             count: c.count)
            }.filter { $0.count > 0 }
        }
        var out: [Chunk] = []
        for chunk in provided {
            let c = chunk.compacted()
            let n = c.count
            if n == 0 { continue }
            var cols: [Vector] = []
            for (i, col) in table.columns.enumerated() {
                var v: Vector
                if let k = targets.firstIndex(of: i) {
                    v = c.columns[k]
                    if v.type != col.type { v = try TableWriter.castVector(v, to: TableWriter.assignmentType(col.type), rows: n) }
                } else if col.identity != nil {
                    let (first, step) = session.transaction.reserveIdentity(table: table, column: i, count: n)
                    var a = [Int64](); a.reserveCapacity(n)
                    for r in 0..<n { a.append(first &+ Int64(r) &* step) }
                    v = Vector(type: col.type, data: .int64(a))
                } else if let d = col.defaultSQL {
                    v = try defaultVector(d, col, rows: n)
                } else {
                    v = Vector.nulls(col.type, count: n)
                }
                cols.append(try TableWriter.assign(v, to: col, rows: n))
            }
            out.append(Chunk(columns: cols, count: n))
        }
        return out
    }

    /// The type a value is cast to before it is assigned to a column of type `t`:
    /// strings keep their full length so that `assign` can reject values that are
    /// too long (an explicit CAST would truncate them).
    static func assignmentType(_ t: DataType) -> DataType {
        switch t {
        case .varchar: return .varchar(DataType.maxVarcharLength)
        case .char: return .char(DataType.maxCharLength)
        case .varbyte: return .varbyte(DataType.maxVarbyteLength)
        default: return t
        }
    }

    static func castVector(_ v: Vector, to t: DataType, rows: Int) throws -> Vector {
        if v.type == .unknown { return Vector.nulls(t, count: rows) }
        let chunk = Chunk(columns: [v.flattened(count: rows)], count: rows)
        return try ExpressionEvaluator.evaluate(.cast(.column(0, v.type), t), chunk).flattened(count: rows)
    }

    func defaultVector(_ sql: String, _ col: ColumnDef, rows: Int) throws -> Vector {
        let expr = try session.bindStandalone(sql, type: col.type)
        let v = try ExpressionEvaluator.evaluate(expr, Chunk(columns: [], count: rows))
        return v.flattened(count: rows)
    }

    /// Place full-width chunks on the table's slices (sorted by the sort key within
    /// each slice, encoded into blocks) as the transaction's next snapshot of the table.
    func append(_ chunks: [Chunk], to table: TableDef) throws {
        let transaction = session.transaction
        let (def, base) = try transaction.beginWrite(table.qualifiedName, reads: false)
        let sink = transaction.newSink()
        transaction.stage(def.id, try placeRows(chunks, onto: base, of: def, sink: sink))
    }

    /// The next snapshot of `table`: `base` plus `chunks` placed, sorted and encoded
    /// into blocks written to `sink` (not committed).
    func placeRows(_ chunks: [Chunk], onto base: TableSnapshot, of table: TableDef, sink: BlockSink) throws -> TableSnapshot {
        let database = session.database
        return try Distributor.append(chunks, to: base, table: table, layout: database.layout, sink: sink,
                               sorter: TableWriter.sorter(for: table), blockBytes: database.blockBytes,
                               readBlock: { [cache = database.cache] b, t in try cache.vector(b, type: t) },
                               tailBuffer: true, context: context,
                               existing: { snap, slice in
            try SliceScanner.readAll([(slice, snap.slices[slice])], types: table.columns.map { $0.type },
                                     cache: database.cache)
        })
    }

    /// How a load is ordered on each slice: COMPOUND sorts by the key columns in
    /// order; INTERLEAVED by a z-order curve over the key columns' ranks, so each
    /// key column gets equal weight.
    static func sorter(for table: TableDef) -> SortPermutation? {
        if table.sortKey.isEmpty { return nil }
        let key = table.sortKey
        if table.sortKeyKind == .compound || key.count == 1 {
            return { cols, n in
                presorted(cols, keys: key, count: n) ?? sortPermutation(columns: cols, keys: key.map { SortKey(column: $0) }, count: n)
            }
        }
        return { cols, n in
            let bits = 64 / key.count
            var z = [UInt64](filled: 0, count: n)
            for (k, c) in key.enumerated() {
                let perm = sortPermutation(columns: cols, keys: [SortKey(column: c)], count: n)
                // Rank of each row in this column, scaled to `bits` bits.
                for (rank, row) in perm.enumerated() {
                    let scaled = n <= 1 ? 0 : UInt64((Double(rank) / Double(n)) * Double(UInt64(1) << UInt64(bits)))
                    var out: UInt64 = 0
                    for b in 0..<bits where scaled & (1 << UInt64(b)) != 0 {
                        out |= 1 << UInt64(b * key.count + (key.count - 1 - k))
                    }
                    z[Int(row)] |= out
                }
            }
            let zv = Vector(type: .bigint, data: .int64(z.map { Int64(bitPattern: $0 ^ (1 << 63)) }))
            return sortPermutation(columns: [zv], keys: [SortKey(column: 0)], count: n)
        }
    }

    /// The identity order when the rows are already in compound sort-key order (their
    /// key columns 64-bit values without NULLs, non-decreasing key by key): data exported
    /// or generated in date order is common, and so is an incremental load of a day's
    /// rows. Nil when they are not, or the key columns are of other kinds.
    static func presorted(_ cols: [Vector], keys: [Int], count n: Int) -> [Int32]? {
        var arrays: [[Int64]] = []
        for k in keys {
            guard k >= 0, k < cols.count, !cols[k].isConstant, cols[k].validity == nil,
                  case .int64(let a) = cols[k].data, a.count >= n else { return nil }
            arrays.append(a)
        }
        guard n > 1, let first = arrays.first else { return n <= 1 ? (n == 1 ? [0] : []) : nil }
        let sorted = first.withUnsafeBufferPointer { a -> Bool in
            for i in 1..<n where a[i - 1] >= a[i] {
                if a[i - 1] > a[i] { return false }
                // Equal on the first key: the next keys decide.
                for next in arrays.dropFirst() {
                    if next[i - 1] < next[i] { break }
                    if next[i - 1] > next[i] { return false }
                }
            }
            return true
        }
        guard sorted else { return nil }
        return [Int32](unsafeUninitializedCapacity: n) { out, done in
            for i in 0..<n { out[i] = Int32(truncatingIfNeeded: i) }
            done = n
        }
    }

    /// Every live row of a table's snapshot (one copy of an ALL table).
    static func readRows(_ table: TableDef, _ snap: TableSnapshot, cache: BlockCache) throws -> [Chunk] {
        let parts: [(slice: Int, data: SliceData)] = snap.distribution == .all
            ? (snap.slices.first.map { [(0, $0)] } ?? [])
            : snap.slices.enumerated().map { ($0.offset, $0.element) }
        return try SliceScanner.readAll(parts, types: table.columns.map { $0.type }, cache: cache)
    }
}
