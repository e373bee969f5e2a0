import XCTest
import SlicehouseTypes
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
