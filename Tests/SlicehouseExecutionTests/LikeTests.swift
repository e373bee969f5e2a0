// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseFunctions
import SlicehousePlanner
@testable import SlicehouseExecution

final class LikeTests: XCTestCase {

    private func like(_ value: String, _ pattern: String, ci: Bool = false, escape: UInt8? = nil) throws -> Bool? {
        let e = BoundExpr.like(E.str(value), pattern: E.str(pattern), caseInsensitive: ci, negated: false, escape: escape)
        return try run1(e).map { $0 == "t" }
    }

    func testShapes() throws {
        XCTAssertEqual(try like("PROMO BRUSHED", "PROMO%"), true)        // prefix
        XCTAssertEqual(try like("SMALL BRASS", "%BRASS"), true)          // suffix
        XCTAssertEqual(try like("forest green", "%green%"), true)        // contains
        XCTAssertEqual(try like("abc", "abc"), true)                     // exact
        XCTAssertEqual(try like("abc", "ab"), false)
        XCTAssertEqual(try like("", "%"), true)
        XCTAssertEqual(try like("", ""), true)
        XCTAssertEqual(try like("x", ""), false)
        XCTAssertEqual(try like("special requests here", "%special%requests%"), true)
        XCTAssertEqual(try like("requests special", "%special%requests%"), false)
        XCTAssertEqual(try like("Customer xx Complaints", "%Customer%Complaints%"), true)
    }

    /// Literal segments between `%` are found with a substring search and a literal
    /// last segment is compared at the end: overlaps, repeats and multibyte text.
    func testLiteralSegmentsBetweenPercents() throws {
        XCTAssertEqual(try like("aaa", "%aa%aa"), false)     // the two "aa" would overlap
        XCTAssertEqual(try like("aaaa", "%aa%aa"), true)
        XCTAssertEqual(try like("abb", "%ab%b"), true)
        XCTAssertEqual(try like("ab", "%ab%b"), false)
        XCTAssertEqual(try like("xspecialyrequests", "%special%requests"), true)
        XCTAssertEqual(try like("xspecialyrequestsz", "%special%requests"), false)
        XCTAssertEqual(try like("requests then special requests", "%special%requests%"), true)
        XCTAssertEqual(try like("special", "special%special%"), false)
        XCTAssertEqual(try like("special special", "special%special%"), true)
        XCTAssertEqual(try like("café au lait", "%é%lait"), true)
        XCTAssertEqual(try like("日本語のテキスト", "%本%キ%"), true)
        XCTAssertEqual(try like("日本語のテキスト", "%キ%本%"), false)
        XCTAssertEqual(try like("a_b", "%\\_%b"), true)         // escaped _ is a literal byte
        XCTAssertEqual(try like("axb", "%\\_%b"), false)
    }

    /// A filter's LIKE (`LikeKernels.select`, with its own path for `%a%` and `%a%b%`)
    /// selects exactly the rows the row-by-row LIKE says, negated too, NULLs never.
    func testSelectionPathAgreesWithRowByRow() throws {
        let values: [String?] = ["special requests", "requests special", nil, "", "specialrequests", "spec ial requests",
                                 "xx special yy requests zz", "Customer Complaints", "日本語のテキスト", "aaaa", "aa",
                                 "special requests special"]
        var column = Vector(type: .varchar(100), data: .string(StringArray(values.map { $0 ?? "" })))
        column.validity = Validity(allValid: values.count)
        for (i, v) in values.enumerated() where v == nil { column.validity?.setInvalid(i) }
        let patterns = ["%special%requests%", "%special%", "%requests", "special%", "%s%s%s%", "%本%キ%", "%aa%aa%",
                        "%", "%special%_equests%", "%Customer%Complaints%"]
        for pattern in patterns {
            for negated in [false, true] {
                for selection in [nil, [0, 1, 2, 4, 6, 9, 11] as [Int32]] {
                    let rows = selection.map { $0.map(Int.init) } ?? Array(values.indices)
                    var want: [Int32] = []
                    for r in rows {
                        guard let v = values[r], let m = try like(v, pattern) else { continue }
                        if m != negated { want.append(Int32(r)) }
                    }
                    let got = try LikeKernels.select(column: column, pattern: Vector(type: .varchar(100), data: .string(StringArray([pattern])), isConstant: true),
                                                     caseInsensitive: false, negated: negated, escape: nil,
                                                     selection: selection, count: rows.count)
                    XCTAssertEqual(got, want, "\(negated ? "NOT " : "")LIKE '\(pattern)' over \(selection.map { "\($0)" } ?? "all rows")")
                }
            }
        }
    }

    /// `%a%` and `%a%b%` in a filter search the column's bytes as one run
    /// (`ContainsInOrder.selectAcross`): an occurrence running from one string into the
    /// next never counts, occurrences at a string's very start and end do, and the rows
    /// selected agree with a naive search over random strings, with NULLs, empty strings,
    /// negation and selections dense enough for the run and sparse enough for row by row.
    func testSelectionAcrossTheColumnsBytesAgreesWithANaiveSearch() throws {
        func select(_ values: [String?], _ pattern: String, negated: Bool = false, selection: [Int32]? = nil) throws -> [Int32] {
            var column = Vector(type: .varchar(100), data: .string(StringArray(values.map { $0 ?? "" })))
            if values.contains(nil) {
                column.validity = Validity(allValid: values.count)
                for (i, v) in values.enumerated() where v == nil { column.validity?.setInvalid(i) }
            }
            return try LikeKernels.select(column: column, pattern: Vector(type: .varchar(100), data: .string(StringArray([pattern])), isConstant: true),
                                          caseInsensitive: false, negated: negated, escape: nil,
                                          selection: selection, count: selection?.count ?? values.count)
        }
        XCTAssertEqual(try select(["xxgre", "enyy", "green", "gr", "een", "", "greengreen", "agreen", "greena"], "%green%"),
                       [2, 6, 7, 8])
        XCTAssertEqual(try select(["special", "requests", "special requests", "specialrequest", "s"], "%special%requests%"), [2])
        XCTAssertEqual(try select(["xxgre", "enyy", "green"], "%green%", negated: true), [0, 1])

        func naive(_ s: String, _ needles: [String]) -> Bool {
            var rest = Substring(s)
            for n in needles {
                guard let r = rest.range(of: n) else { return false }
                rest = rest[r.upperBound...]
            }
            return true
        }
        var rng = SystemRandomNumberGenerator()
        var values: [String?] = []
        for _ in 0..<3000 {
            if Int.random(in: 0..<40, using: &rng) == 0 { values.append(nil); continue }
            let n = Int.random(in: 0...12, using: &rng)
            values.append(String((0..<n).map { _ in "abc ".randomElement(using: &rng) ?? "a" }))
        }
        let dense = values.indices.filter { $0 % 3 != 1 }.map { Int32($0) }
        let sparse = values.indices.filter { $0 % 5 == 2 }.map { Int32($0) }
        for needles in [["ab"], ["abc"], ["a", "b", "c"], ["cab", "ba"], ["c a"], ["aaa"], ["b"]] {
            let pattern = "%" + needles.joined(separator: "%") + "%"
            for negated in [false, true] {
                for selection in [nil, dense, sparse] {
                    let rows = selection.map { $0.map(Int.init) } ?? Array(values.indices)
                    let want = rows.filter { values[$0].map { naive($0, needles) != negated } ?? false }.map { Int32($0) }
                    XCTAssertEqual(try select(values, pattern, negated: negated, selection: selection), want,
                                   "\(negated ? "NOT " : "")LIKE '\(pattern)', \(selection == nil ? "all" : selection == dense ? "dense" : "sparse")")
                }
            }
        }
    }

    func testUnderscoreIsOneCharacter() throws {
        XCTAssertEqual(try like("abc", "a_c"), true)
        XCTAssertEqual(try like("aéc", "a_c"), true)           // é is two bytes, one character
        XCTAssertEqual(try like("ac", "a_c"), false)
        XCTAssertEqual(try like("日本", "__"), true)
        XCTAssertEqual(try like("日本", "_"), false)
        XCTAssertEqual(try like("abcd", "%_d"), true)
        XCTAssertEqual(try like("d", "%_d"), false)
        XCTAssertEqual(try like("a1b2c", "a%b_c"), true)
        XCTAssertEqual(try like("aXbXc", "a%b%c"), true)
        XCTAssertEqual(try like("ab", "a%b%c"), false)
        XCTAssertEqual(try like("aa", "a%a"), true)
        XCTAssertEqual(try like("a", "a%a"), false)
    }

    func testEscapes() throws {
        XCTAssertEqual(try like("100%", "100\\%"), true)
        XCTAssertEqual(try like("1000", "100\\%"), false)
        XCTAssertEqual(try like("a_b", "a\\_b"), true)
        XCTAssertEqual(try like("axb", "a\\_b"), false)
        XCTAssertEqual(try like("50% off", "%#%%", escape: UInt8(ascii: "#")), true)
        XCTAssertEqual(try like("50 off", "%#%%", escape: UInt8(ascii: "#")), false)
        // With ESCAPE '' (0) the backslash is literal.
        XCTAssertEqual(try like("a\\b", "a\\b", escape: 0), true)
        assertError(.like(E.str("a"), pattern: E.str("ab\\"), caseInsensitive: false, negated: false, escape: nil),
                    "LIKE pattern must not end with escape character")
    }

    func testILikeAndNegationAndNulls() throws {
        XCTAssertEqual(try like("Hello", "h%O", ci: true), true)
        XCTAssertEqual(try like("ÄBC", "äb%", ci: true), true)
        XCTAssertEqual(try like("Hello", "h%O"), false)
        // ASCII rows are lowered in a temporary buffer: every shape, an empty string, and
        // letters next to the bytes just outside 'A'…'Z' ('@' and '[' stay as they are).
        XCTAssertEqual(try like("PROMO Brushed", "promo%", ci: true), true)
        XCTAssertEqual(try like("Forest GREEN", "%green", ci: true), true)
        XCTAssertEqual(try like("xx SPECIAL yy REQUESTS", "%special%requests%", ci: true), true)
        XCTAssertEqual(try like("ABC", "abc", ci: true), true)
        XCTAssertEqual(try like("", "", ci: true), true)
        XCTAssertEqual(try like("@[", "@[", ci: true), true)
        XCTAssertEqual(try like("@[", "`{", ci: true), false)
        XCTAssertEqual(try like("A_Z", "a\\_z", ci: true), true)
        let c = chunk(strs(["apple", nil, "banana"]))
        let notLike = BoundExpr.like(E.col(0, .text), pattern: E.str("%an%"), caseInsensitive: false, negated: true, escape: nil)
        XCTAssertEqual(try evalRows(notLike, c), ["t", nil, "f"])
        let nullPattern = BoundExpr.like(E.col(0, .text), pattern: E.null(.text), caseInsensitive: false, negated: false, escape: nil)
        XCTAssertEqual(try evalRows(nullPattern, c), [nil, nil, nil])
    }

    func testPerRowPatterns() throws {
        let c = chunk(strs(["abc", "abc", "xyz", "q"]), strs(["a%", "%c", "%y", nil]))
        let e = BoundExpr.like(E.col(0, .text), pattern: E.col(1, .text), caseInsensitive: false, negated: false, escape: nil)
        XCTAssertEqual(try evalRows(e, c), ["t", "t", "f", nil])
    }

    /// Multi-segment patterns (literal middle segments are found by byte search) agree
    /// with a character-level reference matcher, multi-byte characters included.
    func testGeneralPatternsAgainstReference() throws {
        func reference(_ s: [Character], _ p: [Character]) -> Bool {
            if p.isEmpty { return s.isEmpty }
            if p[0] == "%" { return (0...s.count).contains { reference(Array(s[$0...]), Array(p.dropFirst())) } }
            guard let c = s.first else { return false }
            return (p[0] == "_" || p[0] == c) && reference(Array(s.dropFirst()), Array(p.dropFirst()))
        }
        var rng = SystemRandomNumberGenerator()
        let letters: [Character] = ["a", "b", "é", "ü"]
        let patternLetters: [Character] = ["a", "b", "é", "%", "%", "_"]
        for _ in 0..<1500 {
            let s = String((0..<Int.random(in: 0...7, using: &rng)).map { _ in letters.randomElement(using: &rng) ?? "a" })
            let p = String((0..<Int.random(in: 1...6, using: &rng)).map { _ in patternLetters.randomElement(using: &rng) ?? "%" })
            XCTAssertEqual(try like(s, p), reference(Array(s), Array(p)), "'\(s)' LIKE '\(p)'")
        }
        XCTAssertEqual(try like("xxabyyabzz", "%ab%ab%"), true)
        XCTAssertEqual(try like("xxabyyazz", "%ab%ab%"), false)
        XCTAssertEqual(try like("aXbXc", "a%b%c"), true)
        XCTAssertEqual(try like("über größe", "%ü%ö%"), true)
        XCTAssertEqual(try like("größe über", "%ü%ö%"), false)
    }
}

/// The substring search behind LIKE '%…%', POSITION and STRPOS (`UTF8Bytes.find`) agrees
/// with a naive search at every needle and haystack length around its 8-byte steps.
final class SubstringFindTests: XCTestCase {
    func naive(_ needle: [UInt8], _ hay: [UInt8], from: Int) -> Int? {
        if needle.isEmpty { return from <= hay.count ? from : nil }
        guard from >= 0, needle.count <= hay.count - from else { return nil }
        for i in from...(hay.count - needle.count) where Array(hay[i..<(i + needle.count)]) == needle { return i }
        return nil
    }

    func find(_ needle: [UInt8], _ hay: [UInt8], from: Int) -> Int? {
        needle.withUnsafeBufferPointer { nb in hay.withUnsafeBufferPointer { UTF8Bytes.find(nb, in: $0, from: from) } }
    }

    func find(_ needle: [UInt8], _ hay: [UInt8], from: Int, probes: (Int, Int)) -> Int? {
        needle.withUnsafeBufferPointer { nb in
            hay.withUnsafeBufferPointer { UTF8Bytes.find(nb, in: $0, from: from, probes: probes) }
        }
    }

    func testAgreesWithANaiveSearch() {
        var rng = SystemRandomNumberGenerator()
        // A small alphabet makes partial matches (first and last byte agreeing) common.
        let alphabet: [UInt8] = Array("abcs".utf8) + [0, 0x80, 0xFF]
        for _ in 0..<20_000 {
            let n = Int.random(in: 0...70, using: &rng)
            let m = Int.random(in: 0...10, using: &rng)
            let hay = (0..<n).map { _ in alphabet.randomElement(using: &rng) ?? 0 }
            var needle = (0..<m).map { _ in alphabet.randomElement(using: &rng) ?? 0 }
            // Half the time the needle is taken from the haystack (a match exists).
            if n > 0 && m > 0 && m <= n && Bool.random(using: &rng) {
                let at = Int.random(in: 0...(n - m), using: &rng)
                needle = Array(hay[at..<(at + m)])
            }
            let from = Int.random(in: -1...(n + 1), using: &rng)
            let want = naive(needle, hay, from: from)
            XCTAssertEqual(find(needle, hay, from: from), want, "needle \(needle) in \(hay) from \(from)")
            // Screened by any two offsets of the needle, by its rarest bytes, and by
            // offsets out of order or out of range (which fall back to the first and last).
            let p = Int.random(in: 0...max(0, m - 1), using: &rng), q = Int.random(in: 0...max(0, m - 1), using: &rng)
            let rare = needle.withUnsafeBufferPointer { UTF8Bytes.rareProbes($0) }
            for probes in [(min(p, q), max(p, q)), rare, (q, p), (-1, m), (0, m + 3)] {
                XCTAssertEqual(find(needle, hay, from: from, probes: probes), want,
                               "needle \(needle) in \(hay) from \(from) probed at \(probes)")
            }
        }
    }

    /// The offsets `rareProbes` screens a needle by: its two rarest bytes in text, the
    /// lower offset first, and the first and last of a needle of two bytes or fewer.
    func testRareProbesPickTheRarestBytes() {
        func probes(_ s: String) -> [Int] {
            let (p, q) = Array(s.utf8).withUnsafeBufferPointer { UTF8Bytes.rareProbes($0) }
            return [p, q]
        }
        XCTAssertEqual(probes("special"), [1, 3])   // p, c
        XCTAssertEqual(probes("requests"), [2, 3])  // q, u
        XCTAssertEqual(probes("green"), [0, 1])     // g, r
        XCTAssertEqual(probes("a z"), [0, 2])       // the space is commonest
        XCTAssertEqual(probes("ab"), [0, 1])
        XCTAssertEqual(probes("x"), [0, 0])
        XCTAssertEqual(probes(""), [0, 0])
        XCTAssertEqual(probes("eeee"), [0, 1])
        for s in ["special requests", "Zürich", "ab\u{0}cd", "1997-10-01", "ee", "PROMO BURNISHED"] {
            let (p, q) = Array(s.utf8).withUnsafeBufferPointer { UTF8Bytes.rareProbes($0) }
            XCTAssertTrue(0 <= p && p < q && q < s.utf8.count, "\(s): \(p), \(q)")
        }
    }

    func testEdges() {
        let hay = Array("special requests, special packages: requests".utf8)
        XCTAssertEqual(find(Array("requests".utf8), hay, from: 0), 8)
        XCTAssertEqual(find(Array("requests".utf8), hay, from: 9), 36)
        XCTAssertEqual(find(Array("requests".utf8), hay, from: 37), nil)
        XCTAssertEqual(find(Array("ts".utf8), hay, from: 0), 14)
        XCTAssertEqual(find(hay, hay, from: 0), 0)
        XCTAssertEqual(find(hay + [0], hay, from: 0), nil)
        XCTAssertEqual(find([], [], from: 0), 0)
        XCTAssertEqual(find(Array("s".utf8), hay, from: hay.count - 1), hay.count - 1)
        // The needle's last byte is the haystack's last byte, just past an 8-byte step.
        let long = [UInt8](repeating: 97, count: 17) + [98]
        XCTAssertEqual(find([97, 98], long, from: 0), 16)
        XCTAssertEqual(find([97, 97, 98], long, from: 0), 15)
        // A position whose first and last bytes both differ from the needle's by 1, just
        // above a position where both agree: the borrow of the short zero-byte test made it
        // a candidate, and only the middle bytes were compared (a CI run found this).
        let borrow: [UInt8] = [128, 98, 115, 128, 97, 128, 115, 115, 255, 128, 115, 115, 98, 0, 115, 98, 255, 128,
                               128, 0, 0, 255, 98, 99, 98, 99, 128, 98, 99, 97, 255, 128, 128, 115, 0, 255]
        XCTAssertEqual(find([98, 128, 98, 98], borrow, from: 12), nil)
        XCTAssertEqual(find([98, 128, 98, 98], borrow, from: 0), naive([98, 128, 98, 98], borrow, from: 0))
        // The same shape at several byte values: needle x z z; at 0 the first and last bytes
        // agree but the middle does not; at 1 the first and last differ in their lowest bit
        // and the middle agrees.
        for x in [UInt8(0), 0x60, 0x7E, 0x80, 0xFE] {
            let z = x ^ 0x40
            let hay: [UInt8] = [x, x ^ 0x01, z, z ^ 0x01] + [UInt8](repeating: 0x55, count: 12)
            XCTAssertEqual(find([x, z, z], hay, from: 0), nil, "byte \(x)")
            XCTAssertEqual(naive([x, z, z], hay, from: 0), nil, "byte \(x)")
        }
    }
}
