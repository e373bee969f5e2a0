import SlicehouseTypes
import SlicehouseRuntime

/// The rows a write holds until they are placed on the slices (`Distributor.place`): per
/// column, each incoming chunk's values — selections applied, constants expanded. With
/// `narrow`, 64-bit integer columns wait narrowed (`CompactBlock.Piece`: 1, 2 or 4 bytes
/// above the chunk's smallest value) and strings with 1-byte lengths instead of offsets,
/// as a COPY into a sorted table holds a whole sorted run: lineitem's keys, dates, quantities and prices held 8 bytes a value, about 380 MB
/// of its 1.2 GB peak at SF 1. The placement widens a column when it gathers it
/// (`parts`), keeps the wide copy while the uses it announced (`hold`) are under way and
/// lets it go after the last (`release`), so a few columns are wide at once, not all.
final class HeldRows: @unchecked Sendable {
    let types: [DataType]
    let narrow: Bool
    /// Rows per held chunk.
    private(set) var counts: [Int] = []
    /// [column][chunk].
    private var columns: [[Part]]
    /// Widened columns in use, with how many users have not released them.
    private var widened: [[Vector]?]
    private var users: [Int]
    private let lock = Lock()
    /// The bytes the held values take.
    private(set) var bytes = 0

    init(types: [DataType], narrow: Bool) {
        self.types = types
        self.narrow = narrow
        columns = Array(repeating: [], count: types.count)
        widened = Array(repeating: nil, count: types.count)
        users = Array(repeating: 0, count: types.count)
    }

    /// Rows already in chunks, held as they are.
    convenience init(_ chunks: [Chunk], types: [DataType]) {
        self.init(types: types, narrow: false)
        for c in chunks { append(c) }
    }

    var rowCount: Int { counts.reduce(0, +) }
    var chunkCount: Int { counts.count }
    var isEmpty: Bool { counts.isEmpty }

    /// Hold `chunk`'s rows (a chunk of no rows is left out).
    func append(_ chunk: Chunk) {
        append(Self.held(chunk, columns: columns.count, narrow: narrow))
    }

    /// Hold the rows of `chunks`, in order, narrowing them in parallel (a COPY hands its
    /// parsed chunks over between parsing pieces, with the parse workers idle).
    func append(contentsOf chunks: [Chunk]) {
        guard narrow, chunks.count > 1 else {
            for c in chunks { append(c) }
            return
        }
        let n = columns.count, narrow = self.narrow
        let out = ResultSlots<Held?>(count: chunks.count, initial: nil)
        parallelFor(chunks.count) { i in out.set(i, Self.held(chunks[i], columns: n, narrow: narrow)) }
        for h in out.values { if let h { append(h) } }
    }

    /// One chunk's columns as held.
    private struct Held {
        var count: Int
        var pieces: [Part]
        var bytes: Int
    }

    private static func held(_ chunk: Chunk, columns n: Int, narrow: Bool) -> Held {
        let k = chunk.compacted()
        var h = Held(count: k.count, pieces: [], bytes: 0)
        guard k.count > 0 else { return h }
        h.pieces.reserveCapacity(n)
        for v in k.columns.prefix(n) {
            let flat = v.flattened(count: k.count)
            if narrow, let p = CompactBlock.narrow(flat) {
                h.bytes += p.narrowBytes
                h.pieces.append(.piece(p))
            } else if narrow, let t = Part.text(flat) {
                if case .text(let b, let l, let validity) = t {
                    h.bytes += b.capacity + l.count + (validity?.words.count ?? 0) * 8 + 96
                }
                h.pieces.append(t)
            } else {
                h.bytes += heldBytes(flat)
                h.pieces.append(.piece(.wide(flat)))
            }
        }
        return h
    }

    private func append(_ h: Held) {
        guard h.count > 0, h.pieces.count == columns.count else { return }
        counts.append(h.count)
        bytes += h.bytes
        for (c, p) in h.pieces.enumerated() { columns[c].append(p) }
    }

    /// One chunk's values of one column as held.
    enum Part: Sendable {
        /// Integers, narrowed or as they came (`CompactBlock.Piece`).
        case piece(CompactBlock.Piece)
        /// Strings of at most 255 bytes: their bytes and each one's length, 1 byte instead
        /// of a 4-byte offset (lineitem's five string columns held 120 MB of offsets).
        case text(bytes: [UInt8], lengths: [UInt8], validity: Validity?)

        func vector(type: DataType) -> Vector {
            switch self {
            case .piece(let p):
                return p.vector(type: type)
            case .text(let bytes, let lengths, let validity):
                let n = lengths.count
                let offsets = [Int32](unsafeUninitializedCapacity: n + 1) { out, done in
                    var at: Int32 = 0
                    out[0] = 0
                    lengths.withUnsafeBufferPointer { l in
                        for i in 0..<n {
                            at &+= Int32(l[i])
                            out[i + 1] = at
                        }
                    }
                    done = n + 1
                }
                var s = StringArray()
                s.bytes = bytes
                s.offsets = offsets
                return Vector(type: type, data: .string(s), validity: validity)
            }
        }

        /// Strings as bytes and lengths when every one is at most 255 bytes.
        static func text(_ v: Vector) -> Part? {
            guard !v.isConstant, case .string(let s) = v.data, s.offsets.first == 0 else { return nil }
            let n = s.count
            guard n > 0 else { return nil }
            var fits = true
            let lengths = [UInt8](unsafeUninitializedCapacity: n) { out, done in
                s.offsets.withUnsafeBufferPointer { o in
                    var widest: Int32 = 0, narrowest: Int32 = 0
                    for i in 0..<n {
                        let len = o[i + 1] &- o[i]
                        widest = max(widest, len)
                        narrowest = min(narrowest, len)
                        out[i] = UInt8(truncatingIfNeeded: len)
                    }
                    fits = widest <= 255 && narrowest >= 0
                }
                done = n
            }
            guard fits, Int(s.offsets[n]) == s.bytes.count else { return nil }
            return .text(bytes: s.bytes, lengths: lengths, validity: v.validity)
        }
    }

    /// Column `c` of every held chunk, widened: kept while it has users (`hold`), else
    /// widened for this call only.
    func parts(_ c: Int) -> [Vector] {
        lock.withLock {
            if let w = widened[c] { return w }
            let w = columns[c].map { $0.vector(type: types[c]) }
            if users[c] > 0 { widened[c] = w }
            return w
        }
    }

    /// Column `c` of the held chunks in `needed` widened, the others empty (a sample's
    /// gathering reads a few chunks; widening them all cost a pass over every column).
    func parts(_ c: Int, only needed: Set<Int32>) -> [Vector] {
        lock.withLock {
            if let w = widened[c] { return w }
            return columns[c].enumerated().map { i, p in
                needed.contains(Int32(i)) ? p.vector(type: types[c]) : Vector(type: types[c])
            }
        }
    }

    /// Column `c`'s parts for `ReorderPlan.gather(ints:)`, narrowed ones as they are; nil
    /// when the column is not 64-bit integers or has NULLs.
    func intParts(_ c: Int) -> [ReorderPlan.IntPart]? {
        guard types[c].physical == .int64 else { return nil }
        let parts = lock.withLock { columns[c] }
        var out: [ReorderPlan.IntPart] = []
        out.reserveCapacity(parts.count)
        for part in parts {
            guard case .piece(let p) = part else { return nil }
            switch p {
            case .narrow(let base, let width, _, let bytes, let validity):
                guard validity == nil else { return nil }
                out.append(.narrow(base: base, width: width, bytes: bytes))
            case .wide(let v):
                guard v.validity == nil, !v.isConstant, case .int64(let a) = v.data else { return nil }
                out.append(.wide(a))
            }
        }
        return out
    }

    /// Column `c` has been placed on every slice: its values go (a COPY's run frees its
    /// widest columns, the strings placed first, as it goes on).
    func drop(_ c: Int) {
        lock.withLock {
            columns[c] = []
            widened[c] = nil
        }
    }

    /// Column `c` of held chunk `i`, widened.
    func vector(_ c: Int, chunk i: Int) -> Vector {
        lock.withLock { columns[c][i] }.vector(type: types[c])
    }

    /// `uses` more gatherings of column `c` are coming: its wide copy stays until they
    /// have all been `release`d.
    func hold(_ c: Int, uses: Int) {
        lock.withLock { users[c] += uses }
    }

    /// One of the held uses of column `c` is done: after the last one the wide copy goes
    /// (the narrowed values stay, until the rows are let go).
    func release(_ c: Int) {
        lock.withLock {
            users[c] -= 1
            if users[c] <= 0 {
                users[c] = 0
                if narrow { widened[c] = nil }
            }
        }
    }

    /// The memory a vector's buffers hold: their capacity (a parsed column has grown by
    /// doubling, so this is up to twice its values' bytes), which is what RSS sees.
    static func heldBytes(_ v: Vector) -> Int {
        var total = 64 + (v.validity?.words.capacity ?? 0) * 8
        switch v.data {
        case .int64(let a): total += a.capacity * 8
        case .int128(let a): total += a.capacity * 16
        case .double(let a): total += a.capacity * 8
        case .bool(let a): total += a.capacity
        case .string(let a): total += a.bytes.capacity + a.offsets.capacity * 4
        }
        return total
    }

    /// Everything as chunks (an AUTO table growing out of ALL is placed again whole;
    /// before any column is dropped).
    func chunks() -> [Chunk] {
        counts.indices.map { i in
            Chunk(columns: types.indices.map { c in
                i < columns[c].count ? columns[c][i].vector(type: types[c]) : Vector(type: types[c])
            }, count: counts[i])
        }
    }
}
