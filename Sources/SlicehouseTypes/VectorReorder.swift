// SPDX-License-Identifier: Apache-2.0
/// Gathers many columns into one new row order without a cache miss per value.
///
/// A load sorts each slice's rows: output row `i` is source row `order[i]`, and the
/// sources are the loaded chunks, far larger than the caches. Gathering straight from
/// them (`Vector.gather(from:type:chunk:row:)` with the permuted references) costs a
/// memory miss per value. The plan instead reads the sources in their own order and
/// writes each value into the output window of 4,096 rows it belongs to (a few hundred
/// write streams, which the cache absorbs), then places the values inside each window,
/// where every access hits the cache. Everything that does not depend on the column
/// (which window and slot each source row goes to) is computed once, in `init`.
public struct ReorderPlan: Sendable {
    /// Rows in the output.
    public let count: Int
    /// Source references in source order: row `row[j]` of part `chunk[j]`.
    let chunk: [Int32]
    let row: [Int32]
    /// Source reference `j` goes to position `slot[j]` of the windowed buffer.
    let slot: [Int32]
    /// Position `k` of the windowed buffer is output row `target[k]`.
    let target: [Int32]
    /// Where each run of references into one part starts, in source order, then `count`
    /// (a slice's references are collected chunk by chunk, so a run is a chunk's rows):
    /// the gathers look each part up once a run rather than once a value.
    let runs: [Int32]

    static let windowShift = 12

    /// - Parameters:
    ///   - chunk, row: the source references in source order (equal lengths).
    ///   - order: output row `i` takes source reference `order[i]`; a permutation of
    ///     `0..<chunk.count`.
    /// Returns nil when the lengths differ or `order` is not a permutation.
    public init?(chunk: [Int32], row: [Int32], order: [Int32]) {
        let n = order.count
        guard chunk.count == n, row.count == n, n < Int(Int32.max) else { return nil }
        // Output position of each source reference (0 until set; checked below).
        var destination = [Int32](filled: -1, count: n)
        let valid = destination.withUnsafeMutableBufferPointer { d in
            order.withUnsafeBufferPointer { o in
                for i in 0..<n {
                    let j = Int(o[i])
                    guard j >= 0, j < n, d[j] < 0 else { return false }
                    d[j] = Int32(i)
                }
                return true
            }
        }
        guard valid else { return nil }
        let shift = Self.windowShift
        let windows = (n + (1 << shift) - 1) >> shift
        var cursor = (0..<windows).map { Int32($0 << shift) }
        var slot = [Int32](filled: 0, count: n)
        var target = [Int32](filled: 0, count: n)
        destination.withUnsafeBufferPointer { d in
            cursor.withUnsafeMutableBufferPointer { cur in
                slot.withUnsafeMutableBufferPointer { s in
                    target.withUnsafeMutableBufferPointer { t in
                        // Each window receives exactly its own output rows, so no slot
                        // runs past its window.
                        for j in 0..<n {
                            let dest = d[j]
                            let w = Int(dest) >> shift
                            let k = cur[w]
                            cur[w] = k &+ 1
                            s[j] = k
                            t[Int(k)] = dest
                        }
                    }
                }
            }
        }
        self.init(count: n, chunk: chunk, row: row, slot: slot, target: target)
    }

    private init(count: Int, chunk: [Int32], row: [Int32], slot: [Int32], target: [Int32]) {
        self.count = count
        self.chunk = chunk
        self.row = row
        self.slot = slot
        self.target = target
        self.runs = Self.runStarts(chunk, count: count)
    }

    /// The starts of `chunk`'s runs of equal values among its first `count`, then `count`.
    static func runStarts(_ chunk: [Int32], count n: Int) -> [Int32] {
        var runs: [Int32] = []
        chunk.withUnsafeBufferPointer { c in
            var previous: Int32 = -1
            for j in 0..<min(n, c.count) where j == 0 || c[j] != previous {
                runs.append(Int32(truncatingIfNeeded: j))
                previous = c[j]
            }
        }
        runs.append(Int32(truncatingIfNeeded: n))
        return runs
    }

    /// `body(part, references)` for each run of references into one part, in source order.
    @inline(__always)
    func forEachRun(_ body: (_ part: Int, _ references: Range<Int>) -> Void) {
        runs.withUnsafeBufferPointer { rs in
            chunk.withUnsafeBufferPointer { c in
                for k in 0..<max(rs.count - 1, 0) {
                    let start = Int(rs[k]), end = Int(rs[k + 1])
                    if start < end { body(Int(c[start]), start..<end) }
                }
            }
        }
    }

    /// Output rows of a window: a piece (`piece(_:)`) is a multiple of it.
    public static let windowRows = 1 << windowShift
    /// Output rows of a load's piece: 512 Ki.
    public static let pieceRows = 128 << windowShift

    /// The plan of output rows `range` alone, which gathers them as `gather` gathers all
    /// (a load gathers a slice's wide string columns piece by piece, encoding each before
    /// the next, rather than the whole column at once). Nil unless `range` starts at a
    /// multiple of the window and ends at one or at `count`.
    public func piece(_ range: Range<Int>) -> ReorderPlan? {
        let window = Self.windowRows
        guard range.lowerBound >= 0, range.upperBound <= count, range.lowerBound % window == 0,
              range.upperBound % window == 0 || range.upperBound == count else { return nil }
        // Each window's positions hold exactly its own output rows, so the sources of the
        // output rows in `range` are those whose slots are in `range`, in source order.
        let lo = Int32(truncatingIfNeeded: range.lowerBound), hi = Int32(truncatingIfNeeded: range.upperBound)
        let m = range.count
        var c: [Int32] = [], r: [Int32] = [], s: [Int32] = []
        c.reserveCapacity(m)
        r.reserveCapacity(m)
        s.reserveCapacity(m)
        slot.withUnsafeBufferPointer { sl in
            chunk.withUnsafeBufferPointer { ch in
                row.withUnsafeBufferPointer { rw in
                    for j in 0..<count {
                        let k = sl[j]
                        if k >= lo && k < hi {
                            c.append(ch[j])
                            r.append(rw[j])
                            s.append(k &- lo)
                        }
                    }
                }
            }
        }
        let t = target[range].map { $0 &- lo }
        return ReorderPlan(count: m, chunk: c, row: r, slot: s, target: t)
    }

    /// The source references in output order (for the plain gather): source reference
    /// `j` is output row `target[slot[j]]` (the order itself is not kept: four slices'
    /// plans held 24 MB of it in an SF 1 lineitem load).
    public var orderedReferences: (chunk: [Int32], row: [Int32]) {
        let n = count
        var c = [Int32](filled: 0, count: n), r = [Int32](filled: 0, count: n)
        for j in 0..<n {
            let i = Int(target[Int(slot[j])])
            c[i] = chunk[j]
            r[i] = row[j]
        }
        return (c, r)
    }

    /// One column in output order: `parts` are the flat source vectors, all of `type`'s
    /// physical type. The same values as `Vector.gather(from:type:chunk:row:)` with
    /// `orderedReferences`.
    public func gather(from parts: [Vector], type: DataType) -> Vector {
        if parts.contains(where: { $0.isConstant }) {
            let refs = orderedReferences
            return Vector.gather(from: parts, type: type, chunk: refs.chunk, row: refs.row)
        }
        // Values at NULL rows are gathered like any other (they are what the parts hold
        // there); the NULLs themselves by `gatherValidity`.
        let validity = gatherValidity(parts.map(\.validity), rows: parts.map(\.count))
        let data: VectorData
        switch type.physical {
        case .int64:
            data = .int64(gatherFixed(parts.map { p -> [Int64] in if case .int64(let a) = p.data { return a }; return [] }, zero: 0))
        case .int128:
            data = .int128(gatherFixed(parts.map { p -> [Int128] in if case .int128(let a) = p.data { return a }; return [] }, zero: 0))
        case .double:
            data = .double(gatherFixed(parts.map { p -> [Double] in if case .double(let a) = p.data { return a }; return [] }, zero: 0))
        case .bool:
            data = .bool(gatherFixed(parts.map { p -> [Bool] in if case .bool(let a) = p.data { return a }; return [] }, zero: false))
        case .string:
            let arrays = parts.map { p -> StringArray in if case .string(let a) = p.data { return a }; return StringArray() }
            data = .string(gatherShortStrings(arrays) ?? gatherStrings(arrays))
        }
        return Vector(type: type, data: data, validity: validity)
    }

    /// The NULLs of the output rows, from parts whose NULLs are `validities` (nil: none)
    /// and whose row counts are `rows`; nil when no output row is NULL. Windowed as the
    /// values are: a byte per source row into its window, then each window's bytes to
    /// their rows' bits. A reference outside its part is valid (as `Vector.gather` has it).
    public func gatherValidity(_ validities: [Validity?], rows: [Int]) -> Validity? {
        let n = count
        guard n > 0, validities.contains(where: { $0 != nil }) else { return nil }
        var anyNull = false
        let windowed = [UInt8].building(capacity: n, placeholder: 1) { buf, done in
            guard let w = buf.baseAddress else { done = 0; return }
            row.withUnsafeBufferPointer { r in
                slot.withUnsafeBufferPointer { s in
                    forEachRun { ci, refs in
                        guard ci >= 0, ci < validities.count, ci < rows.count, let v = validities[ci] else {
                            for j in refs { w[Int(s[j])] = 1 }
                            return
                        }
                        let partRows = min(rows[ci], v.words.count << 6)
                        v.words.withUnsafeBufferPointer { words in
                            for j in refs {
                                let ri = Int(r[j])
                                var bit: UInt8 = 1
                                if UInt(bitPattern: ri) < UInt(partRows) {
                                    bit = UInt8(truncatingIfNeeded: words[ri >> 6] >> UInt64(ri & 63)) & 1
                                }
                                w[Int(s[j])] = bit
                            }
                        }
                    }
                }
            }
            done = n
        }
        var out = Validity(allValid: n)
        out.words.withUnsafeMutableBufferPointer { words in
            windowed.withUnsafeBufferPointer { w in
                target.withUnsafeBufferPointer { t in
                    for k in 0..<n where w[k] == 0 {
                        let i = Int(t[k])
                        words[i >> 6] &= ~(1 << UInt64(i & 63))
                        anyNull = true
                    }
                }
            }
        }
        return anyNull ? out : nil
    }

    /// A 64-bit integer column's part: its values, or their unsigned differences of
    /// `width` (1 to 4) bytes above `base` (rows a COPY holds narrowed, `NarrowIntegers`).
    public enum IntPart: Sendable {
        case wide([Int64])
        case narrow(base: Int64, width: Int, bytes: [UInt8])

        /// Value `i` of narrow values of `width` (1 to 4) bytes at `p` above `base`.
        @inline(__always)
        public static func narrowValue(_ p: UnsafeRawPointer, width: Int, base: Int64, at i: Int) -> Int64 {
            base &+ Int64(bitPattern: NarrowIntegers.load(p, width: width, at: i))
        }
    }

    /// `gather(from:type:)` of a 64-bit integer column whose parts may be narrowed: values
    /// are widened as they are read, so no wide copy of the parts is made. `validities`:
    /// each part's NULLs (nil: none), or empty for a column without NULLs.
    public func gather(ints parts: [IntPart], type: DataType, validities: [Validity?] = []) -> Vector {
        let n = count
        if n == 0 { return Vector(type: type, data: .int64([])) }
        // Per part: its bytes, the width of a value, the value added and the row count.
        var bytes: [[UInt8]] = [], widths: [Int] = [], bases: [Int64] = [], rows: [Int] = []
        var wides: [[Int64]] = []
        for p in parts {
            switch p {
            case .wide(let a):
                wides.append(a); bytes.append([]); widths.append(8); bases.append(0); rows.append(a.count)
            case .narrow(let base, let width, let b):
                wides.append([]); bytes.append(b); widths.append(width); bases.append(base)
                rows.append(NarrowIntegers.count(byteCount: b.count, width: width))
            }
        }
        let windowed = withExtendedLifetime((bytes, wides)) { () -> [Int64] in
            let pointers: [UnsafeRawPointer?] = parts.indices.map { i in
                widths[i] == 8 ? wides[i].withUnsafeBytes { $0.baseAddress } : bytes[i].withUnsafeBytes { $0.baseAddress }
            }
            return [Int64].building(capacity: n, placeholder: 0) { buf, done in
                guard let w = buf.baseAddress else { done = 0; return }
                row.withUnsafeBufferPointer { r in
                    slot.withUnsafeBufferPointer { s in
                        // One part a run: its width, base and rows looked up once, and a
                        // loop per width. A reference outside its part reads 0.
                        @inline(__always)
                        func place(_ refs: Range<Int>, rows: Int, _ value: (Int) -> Int64) {
                            for j in refs {
                                let ri = Int(r[j])
                                (w + Int(s[j])).initialize(to: UInt(bitPattern: ri) < UInt(rows) ? value(ri) : 0)
                            }
                        }
                        forEachRun { ci, refs in
                            guard ci >= 0, ci < pointers.count, let p = pointers[ci] else {
                                place(refs, rows: 0) { _ in 0 }
                                return
                            }
                            let base = bases[ci], partRows = rows[ci]
                            switch widths[ci] {
                            case 8: place(refs, rows: partRows) { p.loadUnaligned(fromByteOffset: $0 &* 8, as: Int64.self) }
                            case 1: place(refs, rows: partRows) { base &+ Int64(bitPattern: Narrow1.load(p, $0)) }
                            case 2: place(refs, rows: partRows) { base &+ Int64(bitPattern: Narrow2.load(p, $0)) }
                            case 3: place(refs, rows: partRows) { base &+ Int64(bitPattern: Narrow3.load(p, $0)) }
                            default: place(refs, rows: partRows) { base &+ Int64(bitPattern: Narrow4.load(p, $0)) }
                            }
                        }
                    }
                }
                done = n
            }
        }
        let validity = validities.isEmpty ? nil : gatherValidity(validities, rows: rows)
        return Vector(type: type, data: .int64(placeWindowed(windowed)), validity: validity)
    }

    /// One-byte values (a COPY's held dictionary codes) in output order, as bytes.
    public func gather(bytes parts: [[UInt8]]) -> [UInt8] {
        gatherFixed(parts, zero: 0)
    }

    /// `Vector.gather(from:type:chunk:row:)` of integer parts held narrow or wide (a
    /// sorted COPY's sort-key columns, gathered per slice before its order is known).
    public static func gather(ints parts: [IntPart], type: DataType, chunk: [Int32], row: [Int32]) -> Vector {
        let n = min(chunk.count, row.count)
        let values = [Int64].building(capacity: n, placeholder: 0) { out, done in
            for j in 0..<n {
                let ci = Int(chunk[j]), ri = Int(row[j])
                var v: Int64 = 0
                if ci >= 0, ci < parts.count, ri >= 0 {
                    switch parts[ci] {
                    case .wide(let a):
                        if ri < a.count { v = a[ri] }
                    case .narrow(let base, let width, let bytes):
                        if ri < NarrowIntegers.count(byteCount: bytes.count, width: width) {
                            v = bytes.withUnsafeBytes { p in
                                p.baseAddress.map { IntPart.narrowValue($0, width: width, base: base, at: ri) } ?? 0
                            }
                        }
                    }
                }
                out[j] = v
            }
            done = n
        }
        return Vector(type: type, data: .int64(values))
    }

    private func gatherFixed<T>(_ arrays: [[T]], zero: T) -> [T] {
        let n = count
        if n == 0 { return [] }
        return withExtendedLifetime(arrays) {
            let (bases, counts) = Vector.basePointers(arrays)
            // Pass 1: sources in their order, each value into its window.
            let windowed = [T](unsafeUninitializedCapacity: n) { buf, done in
                guard let w = buf.baseAddress else { done = 0; return }
                row.withUnsafeBufferPointer { r in
                    slot.withUnsafeBufferPointer { s in
                        forEachRun { ci, refs in
                            // A reference outside its part reads `zero`.
                            let valid = ci >= 0 && ci < bases.count
                            let rows = valid ? counts[ci] : 0
                            guard let p = valid ? bases[ci] : nil else {
                                for j in refs { (w + Int(s[j])).initialize(to: zero) }
                                return
                            }
                            for j in refs {
                                let ri = Int(r[j])
                                (w + Int(s[j])).initialize(to: UInt(bitPattern: ri) < UInt(rows) ? p[ri] : zero)
                            }
                        }
                    }
                }
                done = n
            }
            return placeWindowed(windowed)
        }
    }

    /// Pass 2 of a gather: within each window (cache resident), values to their rows.
    private func placeWindowed<T>(_ windowed: [T]) -> [T] {
        let n = count
        return [T](unsafeUninitializedCapacity: n) { buf, done in
            guard let o = buf.baseAddress else { done = 0; return }
            windowed.withUnsafeBufferPointer { w in
                target.withUnsafeBufferPointer { t in
                    for k in 0..<n { (o + Int(t[k])).initialize(to: w[k]) }
                }
            }
            done = n
        }
    }

    /// A value of at most 15 bytes packed into 16: the bytes little-endian from the
    /// low end of `lo`, the length in the top byte of `hi`.
    struct PackedShort {
        var lo: UInt64
        var hi: UInt64
        static let maxBytes = 15
        static let empty = PackedShort(lo: 0, hi: 0)

        @inline(__always) init(lo: UInt64, hi: UInt64) {
            self.lo = lo
            self.hi = hi
        }

        /// Pack the `n` (<= 15) bytes at `p`, reading only inside them.
        @inline(__always)
        init(_ p: UnsafeRawPointer, _ n: Int) {
            let len = UInt64(n) << 56
            if n >= 8 {
                lo = p.loadUnaligned(as: UInt64.self)
                hi = n == 8 ? len : p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) >> UInt64(8 * (16 - n)) | len
            } else if n >= 4 {
                let a = UInt64(p.loadUnaligned(as: UInt32.self))
                let b = UInt64(p.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
                lo = a | (b >> UInt64(8 * (8 - n))) << 32
                hi = len
            } else if n > 0 {
                let b = p.assumingMemoryBound(to: UInt8.self)
                lo = UInt64(b[0]) | UInt64(b[n >> 1]) << UInt64(8 * (n >> 1)) | UInt64(b[n - 1]) << UInt64(8 * (n - 1))
                hi = len
            } else {
                lo = 0
                hi = 0
            }
        }

        @inline(__always) var count: Int { Int(hi >> 56) }
    }

    /// `gatherStrings` for columns whose values are all at most 15 bytes (flags,
    /// codes, modes, phone numbers): each value travels packed in 16 bytes through the
    /// fixed-width gather, and the output bytes are written in one sequential pass.
    /// Returns nil, having written nothing, at the first longer value.
    private func gatherShortStrings(_ arrays: [StringArray]) -> StringArray? {
        let n = count
        if n == 0 { return StringArray() }
        let byteArrays = arrays.map { $0.bytes }
        let offsetArrays = arrays.map { $0.offsets }
        return withExtendedLifetime((byteArrays, offsetArrays)) { () -> StringArray? in
            let (bytes, _) = Vector.basePointers(byteArrays)
            let (offs, rowsPlusOne) = Vector.basePointers(offsetArrays)
            // Pass 1: sources in their order, each packed value into its window.
            var total = 0
            var fits = true
            let windowed = [PackedShort](unsafeUninitializedCapacity: n) { buf, done in
                done = 0
                guard let w = buf.baseAddress else { return }
                bytes.withUnsafeBufferPointer { bp in
                    offs.withUnsafeBufferPointer { op in
                        rowsPlusOne.withUnsafeBufferPointer { cnt in
                            chunk.withUnsafeBufferPointer { c in
                                row.withUnsafeBufferPointer { r in
                                    slot.withUnsafeBufferPointer { s in
                                        for j in 0..<n {
                                            let ci = Int(c[j]), ri = Int(r[j])
                                            var v = PackedShort.empty
                                            if ri + 1 < cnt[ci], let p = op[ci] {
                                                let a = Int(p[ri]), l = Int(p[ri + 1] &- p[ri])
                                                if l > PackedShort.maxBytes { fits = false; return }
                                                if l > 0, let b = bp[ci] { v = PackedShort(UnsafeRawPointer(b + a), l) }
                                                total &+= l
                                            }
                                            (w + Int(s[j])).initialize(to: v)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                // Every slot is written exactly once (the plan's slots are a permutation).
                if fits { done = n }
            }
            guard fits else { return nil }
            // Pass 2: within each window, values to their rows; then, in row order, the
            // offsets and the bytes, each value stored as two words (the byte buffer has
            // 16 bytes of slack past the last value).
            let ordered = placeWindowed(windowed)
            var outBytes: [UInt8] = []
            let outOffsets = [Int32].building(capacity: n + 1, placeholder: 0) { o, done in
                o[0] = 0
                outBytes = [UInt8].building(capacity: total + 16, placeholder: 0) { dst, written in
                    written = 0
                    guard let d = dst.baseAddress else { return }
                    let raw = UnsafeMutableRawPointer(d)
                    ordered.withUnsafeBufferPointer { v in
                        var at = 0
                        for i in 0..<n {
                            let x = v[i]
                            raw.storeBytes(of: x.lo, toByteOffset: at, as: UInt64.self)
                            raw.storeBytes(of: x.hi & 0x00FF_FFFF_FFFF_FFFF, toByteOffset: at + 8, as: UInt64.self)
                            at &+= x.count
                            o[i + 1] = Int32(truncatingIfNeeded: at)
                        }
                    }
                    written = total
                }
                done = n + 1
            }
            return StringArray(bytes: outBytes, offsets: outOffsets)
        }
    }

    private func gatherStrings(_ arrays: [StringArray]) -> StringArray {
        let n = count
        if n == 0 { return StringArray() }
        let byteArrays = arrays.map { $0.bytes }
        let offsetArrays = arrays.map { $0.offsets }
        let shift = Self.windowShift
        let windows = (n + (1 << shift) - 1) >> shift
        return withExtendedLifetime((byteArrays, offsetArrays)) {
            let (bytes, _) = Vector.basePointers(byteArrays)
            let (offs, rowsPlusOne) = Vector.basePointers(offsetArrays)
            // Each window's values are a stream of (UInt32 length, bytes) entries in
            // windowed-position order. Lengths in source order (a missing row counts
            // as empty) and where each window's stream starts.
            var sourceLength = [Int32](filled: 0, count: n)
            var streamStart = [Int](filled: 0, count: windows + 1)
            offs.withUnsafeBufferPointer { op in
                rowsPlusOne.withUnsafeBufferPointer { cnt in
                    chunk.withUnsafeBufferPointer { c in
                        row.withUnsafeBufferPointer { r in
                            slot.withUnsafeBufferPointer { s in
                                sourceLength.withUnsafeMutableBufferPointer { len in
                                    streamStart.withUnsafeMutableBufferPointer { ws in
                                        for j in 0..<n {
                                            let ci = Int(c[j]), ri = Int(r[j])
                                            var l: Int32 = 0
                                            if ri + 1 < cnt[ci], let p = op[ci] { l = p[ri + 1] &- p[ri] }
                                            len[j] = l
                                            ws[(Int(s[j]) >> shift) + 1] &+= 4 &+ Int(l)
                                        }
                                        for w in 0..<windows { ws[w + 1] &+= ws[w] }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            let streamBytes = streamStart[windows]
            let total = streamBytes - 4 * n
            // Pass 1: sources in their order, each entry appended to its window's
            // stream. Positions within a window were handed out in source order, so
            // the stream's entries are in windowed-position order.
            let windowed = [UInt8].building(capacity: streamBytes, placeholder: 0) { buf, done in
                var cursor = streamStart
                bytes.withUnsafeBufferPointer { bp in
                    offs.withUnsafeBufferPointer { op in
                        chunk.withUnsafeBufferPointer { c in
                            row.withUnsafeBufferPointer { r in
                                slot.withUnsafeBufferPointer { s in
                                    sourceLength.withUnsafeBufferPointer { sl in
                                        cursor.withUnsafeMutableBufferPointer { cur in
                                            guard let w = buf.baseAddress else { return }
                                            let raw = UnsafeMutableRawPointer(w)
                                            for j in 0..<n {
                                                let win = Int(s[j]) >> shift
                                                let at = cur[win]
                                                let l = Int(sl[j])
                                                raw.storeBytes(of: UInt32(truncatingIfNeeded: l), toByteOffset: at, as: UInt32.self)
                                                cur[win] = at &+ 4 &+ l
                                                guard l > 0, let b = bp[Int(c[j])], let p = op[Int(c[j])] else { continue }
                                                copyShortBytes(w + at + 4, b + Int(p[Int(r[j])]), l)
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                done = streamBytes
            }
            return windowed.withUnsafeBufferPointer { wb -> StringArray in
                guard let w = wb.baseAddress else { return StringArray() }
                let raw = UnsafeRawPointer(w)
                // Output offsets, window by window: each window's lengths to their
                // rows (the window's own output rows), then its running sum.
                let outOffsets = [Int32].building(capacity: n + 1, placeholder: 0) { o, done in
                    o[0] = 0
                    target.withUnsafeBufferPointer { t in
                        for win in 0..<windows {
                            let first = win << shift, end = min(n, first + (1 << shift))
                            var at = streamStart[win]
                            for k in first..<end {
                                let l = raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)
                                o[Int(t[k]) + 1] = Int32(truncatingIfNeeded: l)
                                at &+= 4 &+ Int(l)
                            }
                            for i in first..<end { o[i + 1] &+= o[i] }
                        }
                    }
                    done = n + 1
                }
                // Pass 2: within each window (cache resident), values to their rows.
                let outBytes = [UInt8].building(capacity: total, placeholder: 0) { dst, done in
                    outOffsets.withUnsafeBufferPointer { o in
                        target.withUnsafeBufferPointer { t in
                            guard let d = dst.baseAddress else { return }
                            var at = 0
                            for k in 0..<n {
                                let l = Int(raw.loadUnaligned(fromByteOffset: at, as: UInt32.self))
                                copyShortBytes(d + Int(o[Int(t[k])]), w + at + 4, l)
                                at &+= 4 &+ l
                            }
                        }
                    }
                    done = total
                }
                return StringArray(bytes: outBytes, offsets: outOffsets)
            }
        }
    }
}
