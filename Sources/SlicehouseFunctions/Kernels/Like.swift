// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// A compiled LIKE / ILIKE pattern over UTF-8 bytes.
///
/// `%` matches any run of characters, `_` exactly one character (1–4 bytes), the
/// escape byte (default backslash, as in PostgreSQL and Redshift) makes the next
/// character literal. The pattern is split at `%` into segments; the first is
/// anchored at the start unless the pattern starts with `%`, the last at the end
/// unless it ends with `%`, and the middle ones are found leftmost-first, which is
/// exact for this kind of pattern. Common shapes get dedicated matchers: exact,
/// `abc%`, `%abc`, `%abc%`.
package struct LikePattern: BytesPredicate {
    /// One element of a segment: a literal byte, or `_` (any one character).
    package enum Atom: Equatable { case byte(UInt8), any }

    package enum Shape {
        case exact([UInt8])
        case prefix([UInt8])
        case suffix([UInt8])
        case contains([UInt8])
        case matchAll
        case general
    }

    package let shape: Shape
    package let segments: [[Atom]]
    /// Per segment: its bytes when it has no `_` and does not start with a UTF-8
    /// continuation byte (so a byte search finds exactly the character-aligned matches).
    package let literals: [[UInt8]?]
    package let anchoredStart: Bool
    package let anchoredEnd: Bool
    package let caseInsensitive: Bool

    /// Compile `pattern`. `escape` nil means backslash; pass 0 for "no escape character".
    package init(_ pattern: UnsafeBufferPointer<UInt8>, escape: UInt8?, caseInsensitive: Bool) throws {
        self.caseInsensitive = caseInsensitive
        let esc: UInt8? = escape == 0 ? nil : (escape ?? 92)
        let source: [UInt8] = caseInsensitive ? LikePattern.lowered(pattern) : Array(pattern)
        var segs: [[Atom]] = [[]]
        var startsWithPercent = false
        var endsWithPercent = false
        var i = 0
        while i < source.count {
            let b = source[i]
            if let esc, b == esc {
                guard i + 1 < source.count else {
                    throw SQLError(.invalidParameter, "LIKE pattern must not end with escape character")
                }
                let w = UTF8Bytes.width(source[i + 1])
                for k in (i + 1)..<min(i + 1 + w, source.count) { segs[segs.count - 1].append(.byte(source[k])) }
                i += 1 + w
                endsWithPercent = false
                continue
            }
            if b == 37 {   // %
                if i == 0 { startsWithPercent = true }
                if !segs[segs.count - 1].isEmpty { segs.append([]) }
                endsWithPercent = true
                i += 1
                continue
            }
            endsWithPercent = false
            if b == 95 {   // _
                segs[segs.count - 1].append(.any)
                i += 1
                continue
            }
            segs[segs.count - 1].append(.byte(b))
            i += 1
        }
        if segs.count > 1 && segs[segs.count - 1].isEmpty { segs.removeLast() }
        if segs.count == 1 && segs[0].isEmpty && startsWithPercent { segs = [] }
        segments = segs
        literals = segs.map { seg in
            var out: [UInt8] = []
            for a in seg { guard case .byte(let b) = a else { return nil }; out.append(b) }
            if let f = out.first, f & 0xC0 == 0x80 { return nil }
            return out.isEmpty ? nil : out
        }
        anchoredStart = !startsWithPercent
        anchoredEnd = !endsWithPercent
        let literal: ([Atom]) -> [UInt8]? = { seg in
            var out: [UInt8] = []
            for a in seg { guard case .byte(let b) = a else { return nil }; out.append(b) }
            return out
        }
        if segs.isEmpty {
            shape = .matchAll
        } else if segs.count == 1, let lit = literal(segs[0]) {
            switch (anchoredStart, anchoredEnd) {
            case (true, true): shape = .exact(lit)
            case (true, false): shape = .prefix(lit)
            case (false, true): shape = .suffix(lit)
            case (false, false): shape = .contains(lit)
            }
        } else {
            shape = .general
        }
    }

    /// Lower-case bytes (ASCII directly, other text through Unicode lowercasing).
    package static func lowered(_ p: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        if UTF8Bytes.isASCII(p) { return p.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 } }
        return Array(String(decoding: p, as: UTF8.self).lowercased().utf8)
    }

    @inline(__always) package func test(_ p: UnsafeBufferPointer<UInt8>) -> Bool { matches(p) != negated }

    /// For `%abc%` and `%abc%def%` (no `_`, neither end anchored): the literals, which
    /// match exactly when each is found after the one before.
    package var literalsInOrder: [[UInt8]]? {
        guard !anchoredStart, !anchoredEnd, !segments.isEmpty else { return nil }
        var out: [[UInt8]] = []
        for l in literals {
            guard let l else { return nil }
            out.append(l)
        }
        return out
    }

    /// `NOT LIKE`: `test` answers the negation.
    package var negated = false

    /// Whether `s` matches (for ILIKE, `s` is lowered here: ASCII text in a temporary
    /// buffer, without allocating an array per row; other text through `lowered`).
    @inline(__always) package func matches(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        if caseInsensitive {
            if UTF8Bytes.isASCII(s) {
                let n = s.count
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(n, 1)) { buf in
                    for i in 0..<n {
                        let c = s[i]
                        buf[i] = c >= 65 && c <= 90 ? c + 32 : c
                    }
                    return matchesExact(UnsafeBufferPointer(rebasing: buf[0..<n]))
                }
            }
            let low = LikePattern.lowered(s)
            return low.withUnsafeBufferPointer { matchesExact($0) }
        }
        return matchesExact(s)
    }

    @inline(__always) package func matchesExact(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        switch shape {
        case .matchAll: return true
        case .exact(let lit):
            return lit.count == s.count && lit.withUnsafeBufferPointer { equal($0, s, at: 0) }
        case .prefix(let lit):
            return lit.count <= s.count && lit.withUnsafeBufferPointer { equal($0, s, at: 0) }
        case .suffix(let lit):
            return lit.count <= s.count && lit.withUnsafeBufferPointer { equal($0, s, at: s.count - lit.count) }
        case .contains(let lit):
            return lit.withUnsafeBufferPointer { UTF8Bytes.find($0, in: s) != nil }
        case .general:
            return general(s)
        }
    }

    @inline(__always) package func equal(_ lit: UnsafeBufferPointer<UInt8>, _ s: UnsafeBufferPointer<UInt8>, at: Int) -> Bool {
        var k = 0
        while k < lit.count {
            if lit[k] != s[at + k] { return false }
            k += 1
        }
        return true
    }

    /// Match segment `seg` at byte `pos`; the end position on success.
    package func matchSegment(_ seg: [Atom], _ s: UnsafeBufferPointer<UInt8>, _ pos: Int) -> Int? {
        var i = pos
        for a in seg {
            guard i < s.count else { return nil }
            switch a {
            case .byte(let b):
                if s[i] != b { return nil }
                i += 1
            case .any:
                i += min(UTF8Bytes.width(s[i]), s.count - i)
            }
        }
        return i
    }

    package func general(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        var pos = 0
        var first = 0
        var last = segments.count
        if anchoredStart {
            guard let e = matchSegment(segments[0], s, 0) else { return false }
            if segments.count == 1 && anchoredEnd { return e == s.count }
            pos = e
            first = 1
        }
        var tail: [Atom]? = nil
        var tailLiteral: [UInt8]? = nil
        if anchoredEnd && last > first {
            tail = segments[last - 1]
            tailLiteral = literals[last - 1]
            last -= 1
        }
        // Middle segments: leftmost match at a character start.
        for k in first..<max(first, last) {
            if let lit = literals[k] {
                // memchr + memcmp instead of trying the segment at every character.
                guard let at = lit.withUnsafeBufferPointer({ UTF8Bytes.find($0, in: s, from: pos) }) else { return false }
                pos = at + lit.count
                continue
            }
            let seg = segments[k]
            var p = pos
            var found: Int? = nil
            while p < s.count || (seg.isEmpty && p == s.count) {
                if let e = matchSegment(seg, s, p) { found = e; break }
                p += min(UTF8Bytes.width(s[p]), s.count - p)
            }
            guard let e = found else { return false }
            pos = e
        }
        if let lit = tailLiteral {
            // A literal last segment has one place to be: the end.
            let start = s.count - lit.count
            return start >= pos && lit.withUnsafeBufferPointer { equal($0, s, at: start) }
        }
        if let tail {
            // The last segment must end exactly at the end: try starts from the right.
            var start = s.count
            while start >= pos {
                if let e = matchSegment(tail, s, start), e == s.count { return true }
                if start == 0 { break }
                start -= 1
                while start > pos && (s[start] & 0xC0) == 0x80 { start -= 1 }
            }
            return false
        }
        return !anchoredEnd || pos == s.count
    }
}

/// LIKE / ILIKE over vectors.
package enum LikeKernels {

    /// `v [NOT] [I]LIKE pattern` over `n` rows (pattern constant or per row).
    package static func like(_ v: Vector, pattern: Vector, caseInsensitive: Bool, negated: Bool, escape: UInt8?, n: Int) throws -> Vector {
        if Kern.isConstNull(v) || Kern.isConstNull(pattern) { return Kern.constNull(.boolean) }
        let s = try StringKernels.input(v), pin = try StringKernels.input(pattern)
        let constant = v.isConstant && pattern.isConstant
        let len = constant ? 1 : n
        let validity = constant ? nil : Kern.combinedValidity(v, pattern)
        var out = [Bool](filled: false, count: len)
        if pattern.isConstant {
            let compiled = try StringKernels.with(pin, 0) { try LikePattern($0, escape: escape, caseInsensitive: caseInsensitive) }
            let arr = s.array
            arr.bytes.withUnsafeBufferPointer { bytes in
                for i in 0..<len {
                    let r = s.range(i)
                    out[i] = compiled.matches(UnsafeBufferPointer(rebasing: bytes[r])) != negated
                }
            }
        } else {
            var lastPattern: [UInt8]? = nil
            var compiled: LikePattern? = nil
            for i in 0..<len where Kern.valid(validity, i) {
                let pat = StringKernels.with(pin, i) { Array($0) }
                if pat != lastPattern {
                    compiled = try pat.withUnsafeBufferPointer { try LikePattern($0, escape: escape, caseInsensitive: caseInsensitive) }
                    lastPattern = pat
                }
                guard let c = compiled else { continue }
                out[i] = StringKernels.with(s, i) { c.matches($0) } != negated
            }
        }
        return Kern.boolResult(out, validity: validity, constant: constant)
    }

    /// Selection fast path: physical indices among `selection` where the chunk column
    /// `column` (flat strings) matches the constant `pattern`.
    package static func select(column: Vector, pattern: Vector, caseInsensitive: Bool, negated: Bool, escape: UInt8?,
                       selection: [Int32]?, count: Int) throws -> [Int32] {
        if Kern.isConstNull(pattern) { return [] }
        let pin = try StringKernels.input(pattern)
        var compiled = try StringKernels.with(pin, 0) { try LikePattern($0, escape: escape, caseInsensitive: caseInsensitive) }
        compiled.negated = negated
        let arr = try Kern.strings(column)
        if !caseInsensitive, let needles = compiled.literalsInOrder {
            // `%abc%` and `%abc%def%`: byte searches with the needles' addresses fixed.
            let flat = needles.flatMap { $0 }
            var ends: [Int] = []
            var probes: [Int] = []
            for n in needles {
                ends.append((ends.last ?? 0) + n.count)
                let (p, q) = n.withUnsafeBufferPointer { UTF8Bytes.rareProbes($0) }
                probes += [p, q]
            }
            return flat.withUnsafeBufferPointer { f in
                ends.withUnsafeBufferPointer { e in
                    probes.withUnsafeBufferPointer { pr in
                        let pred = ContainsInOrder(needles: f, ends: e, probes: pr, negated: negated)
                        if let rows = pred.selectAcross(arr, column.validity, selection, count) { return rows }
                        return ComparisonKernels.selectStrings(arr, column.validity, selection, count, pred)
                    }
                }
            }
        }
        return ComparisonKernels.selectStrings(arr, column.validity, selection, count, compiled)
    }
}

/// `[NOT] LIKE '%n1%n2%…%'` with literal needles: each found after the one before.
package struct ContainsInOrder: BytesPredicate {
    /// The needles one after another, and where each ends.
    package let needles: UnsafeBufferPointer<UInt8>
    package let ends: UnsafeBufferPointer<Int>
    /// Per needle, the two offsets `UTF8Bytes.find` screens positions by (`rareProbes`).
    package let probes: UnsafeBufferPointer<Int>
    package let negated: Bool

    /// Needle k's probes.
    @inline(__always) package func probesOf(_ k: Int) -> (Int, Int) {
        2 * k + 1 < probes.count ? (probes[2 * k], probes[2 * k + 1]) : (0, ends[k] - (k > 0 ? ends[k - 1] : 0) - 1)
    }

    @inline(__always) package func test(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        var pos = 0, start = 0
        for (k, end) in ends.enumerated() {
            let needle = UnsafeBufferPointer(rebasing: needles[start..<end])
            guard let at = UTF8Bytes.find(needle, in: p, from: pos, probes: probesOf(k)) else { return negated }
            pos = at + needle.count
            start = end
        }
        return !negated
    }

    /// `selectStrings` with this predicate, by searching the column's bytes as one run
    /// instead of each string on its own: the first needle's next occurrence anywhere
    /// after the last row decided, then the row it falls in (an occurrence running into
    /// the next row does not count, and none can start later in its row and fit), then
    /// the other needles within that row. Strings of a few dozen bytes cost a search's
    /// set-up and its byte-by-byte tail each; the run pays them once and skips the rows
    /// between occurrences (TPC-H Q13's `o_comment NOT LIKE '%special%requests%'`, Q9's
    /// `p_name LIKE '%green%'`). nil (the caller tests string by string) when a needle is
    /// empty or the selected rows are a sparse part of their span.
    package func selectAcross(_ x: StringArray, _ validity: Validity?, _ selection: [Int32]?, _ count: Int) -> [Int32]? {
        guard count > 0, let firstEnd = ends.first, firstEnd > 0 else { return nil }
        for k in 1..<ends.count where ends[k] == ends[k - 1] { return nil }
        let lo = selection.map { Int($0[0]) } ?? 0
        let hi = selection.map { Int($0[count - 1]) + 1 } ?? count
        guard lo >= 0, hi <= x.count, lo < hi, hi - lo <= 2 * count else { return nil }
        if let selection {
            // Selections ascend (`Chunk`); one that did not would index outside `hit`.
            for j in 1..<count where selection[j] <= selection[j - 1] { return nil }
        }
        var hit = [Bool](filled: false, count: hi - lo)
        x.bytes.withUnsafeBufferPointer { bytes in
            x.offsets.withUnsafeBufferPointer { offs in
                hit.withUnsafeMutableBufferPointer { h in
                    let first = UnsafeBufferPointer(rebasing: needles[0..<firstEnd])
                    let end = Int(offs[hi])
                    guard end <= bytes.count else { return }
                    let hay = UnsafeBufferPointer(rebasing: bytes[0..<end])
                    var pos = Int(offs[lo])
                    var row = lo
                    let firstProbes = probesOf(0)
                    while pos < end, let at = UTF8Bytes.find(first, in: hay, from: pos, probes: firstProbes) {
                        while Int(offs[row + 1]) <= at { row += 1 }
                        let rowEnd = Int(offs[row + 1])
                        if at + firstEnd <= rowEnd {
                            let within = UnsafeBufferPointer(rebasing: bytes[0..<rowEnd])
                            var p = at + firstEnd, start = firstEnd, found = true
                            for k in 1..<ends.count {
                                let needle = UnsafeBufferPointer(rebasing: needles[start..<ends[k]])
                                guard let a = UTF8Bytes.find(needle, in: within, from: p, probes: probesOf(k)) else {
                                    found = false
                                    break
                                }
                                p = a + needle.count
                                start = ends[k]
                            }
                            h[row - lo] = found
                        }
                        pos = rowEnd
                        row += 1
                    }
                }
            }
        }
        return [Int32].building(capacity: count, placeholder: 0) { out, k in
            var m = 0
            hit.withUnsafeBufferPointer { h in
                for j in 0..<count {
                    let i = selection.map { Int($0[j]) } ?? j
                    if let validity, !validity.isValid(i) { continue }
                    if h[i - lo] != negated {
                        out[m] = Int32(truncatingIfNeeded: i)
                        m += 1
                    }
                }
            }
            k = m
        }
    }
}
