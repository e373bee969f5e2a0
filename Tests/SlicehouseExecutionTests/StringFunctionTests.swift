// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseFunctions
import SlicehousePlanner
@testable import SlicehouseExecution

final class StringFunctionTests: XCTestCase {
    let words = chunk(strs(["hello World", "ÄÖü straße", nil, ""]))
    var w: BoundExpr { E.col(0, .varchar(20)) }

    func testCaseMapping() throws {
        XCTAssertEqual(try evalRows(E.fn("upper", [w]), words), ["HELLO WORLD", "ÄÖÜ STRASSE", nil, ""])
        XCTAssertEqual(try evalRows(E.fn("lower", [w]), words), ["hello world", "äöü straße", nil, ""])
        XCTAssertEqual(try evalRows(E.fn("initcap", [w]), words), ["Hello World", "Äöü Straße", nil, ""])
        XCTAssertEqual(try run1(E.fn("initcap", [E.str("o'neil-smith x2y")])), "O'Neil-Smith X2y")
    }

    func testLengths() throws {
        XCTAssertEqual(try evalRows(E.fn("length", [w]), words), ["11", "10", nil, "0"])
        XCTAssertEqual(try evalRows(E.fn("char_length", [w]), words), ["11", "10", nil, "0"])
        XCTAssertEqual(try evalRows(E.fn("octet_length", [w]), words), ["11", "14", nil, "0"])
        // Redshift: trailing blanks count in a VARCHAR, not in a CHAR (a CHAR(n) is n bytes).
        XCTAssertEqual(try run1(E.fn("len", [E.str("ab  ")])), "4")
        XCTAssertEqual(try run1(E.fn("len", [E.str("ab", .char(4))])), "2")
        XCTAssertEqual(try run1(E.fn("octet_length", [E.str("ab", .char(4))])), "4")
        XCTAssertEqual(try run1(E.fn("length", [E.str("ab  ")])), "4")
    }

    func testSubstring() throws {
        XCTAssertEqual(try run1(E.fn("substring", [E.str("hello"), E.int(2), E.int(3)])), "ell")
        XCTAssertEqual(try run1(E.fn("substring", [E.str("hello"), E.int(0), E.int(3)])), "he")
        XCTAssertEqual(try run1(E.fn("substring", [E.str("hello"), E.int(-5), E.int(3)])), "")
        XCTAssertEqual(try run1(E.fn("substr", [E.str("hello"), E.int(3)])), "llo")
        XCTAssertEqual(try run1(E.fn("substring", [E.str("hello"), E.int(9)])), "")
        XCTAssertEqual(try run1(E.fn("substring", [E.str("日本語テキスト"), E.int(2), E.int(3)])), "本語テ")
        assertError(try E.fn("substring", [E.str("hello"), E.int(1), E.int(-1)]), "negative substring length not allowed")
        let c = chunk(strs(["abcdef", nil, "xyz"]), ints([2, 1, nil]))
        XCTAssertEqual(try evalRows(E.fn("substring", [E.col(0, .text), E.col(1, .integer), E.int(2)]), c), ["bc", nil, nil])
    }

    /// A constant window over a column takes the byte-range path (`substringWindow`); the
    /// same window given as columns takes the row-by-row one. They must agree on every
    /// row: ASCII, multi-byte characters before, inside and after the window, NULLs,
    /// empty and short strings, starts before 1 and past the end, zero and open counts.
    func testConstantWindowAgreesWithRowByRow() throws {
        let values: [String?] = ["+13-555-0100", "ab", "", nil, "日本語テキスト", "aé", "éa", "abcdé", "a", "  x  ", "Ñandú 2"]
        let n = values.count
        for start in -3...9 {
            for count in [nil, 0, 1, 2, 3, 5, 20] as [Int?] {
                let constArgs: [BoundExpr] = [E.col(0, .varchar(40)), E.int(Int64(start))] + (count.map { [E.int(Int64($0))] } ?? [])
                let c = chunk(strs(values), ints(Array(repeating: Int64(start), count: n)), ints(Array(repeating: Int64(count ?? 0), count: n)))
                let colArgs: [BoundExpr] = [E.col(0, .varchar(40)), E.col(1, .integer)] + (count == nil ? [] : [E.col(2, .integer)])
                let fast = try evalRows(E.fn("substring", constArgs), c)
                let slow = try evalRows(E.fn("substring", colArgs), c)
                XCTAssertEqual(fast, slow, "substring(s, \(start)\(count.map { ", \($0)" } ?? ""))")
            }
        }
        let picked = try evalRows(E.fn("substring", [E.col(0, .varchar(40)), E.int(1), E.int(2)]), chunk(strs(values)))
        XCTAssertEqual(picked, ["+1", "ab", "", nil, "日本", "aé", "éa", "ab", "a", "  ", "Ña"])
        // A negative constant count is an error as soon as a row is not NULL, not before.
        XCTAssertEqual(try evalRows(E.fn("substring", [E.col(0, .text), E.int(1), E.int(-1)]), chunk(strs([nil, nil]))), [nil, nil])
        assertError(try E.fn("substring", [E.col(0, .text), E.int(1), E.int(-1)]), "negative substring length not allowed",
                    in: chunk(strs(["a"])))
    }

    func testPositionAndCharindex() throws {
        XCTAssertEqual(try run1(E.fn("position", [E.str("straße"), E.str("ße")])), "5")
        XCTAssertEqual(try run1(E.fn("strpos", [E.str("abc"), E.str("z")])), "0")
        XCTAssertEqual(try run1(E.fn("strpos", [E.str("abc"), E.str("")])), "1")
        XCTAssertEqual(try run1(E.fn("charindex", [E.str("c"), E.str("abcabc")])), "3")
    }

    func testTrim() throws {
        XCTAssertEqual(try run1(E.fn("trim", [E.str("  a b  ")])), "a b")
        XCTAssertEqual(try run1(E.fn("ltrim", [E.str("  a b  ")])), "a b  ")
        XCTAssertEqual(try run1(E.fn("rtrim", [E.str("  a b  ")])), "  a b")
        XCTAssertEqual(try run1(E.fn("btrim", [E.str("xxaxbxx"), E.str("x")])), "axb")
        XCTAssertEqual(try run1(E.fn("ltrim", [E.str("éééabcé"), E.str("é")])), "abcé")
        XCTAssertEqual(try run1(E.fn("rtrim", [E.str("abc123"), E.str("0123456789")])), "abc")
    }

    func testLeftRightPad() throws {
        XCTAssertEqual(try run1(E.fn("left", [E.str("äbcd"), E.int(2)])), "äb")
        XCTAssertEqual(try run1(E.fn("right", [E.str("äbcd"), E.int(2)])), "cd")
        XCTAssertEqual(try run1(E.fn("left", [E.str("abcd"), E.int(-1)])), "abc")
        XCTAssertEqual(try run1(E.fn("right", [E.str("abcd"), E.int(-1)])), "bcd")
        XCTAssertEqual(try run1(E.fn("left", [E.str("abcd"), E.int(10)])), "abcd")
        XCTAssertEqual(try run1(E.fn("lpad", [E.str("5"), E.int(3), E.str("0")])), "005")
        XCTAssertEqual(try run1(E.fn("rpad", [E.str("ab"), E.int(5), E.str("xy")])), "abxyx")
        XCTAssertEqual(try run1(E.fn("lpad", [E.str("abcdef"), E.int(3)])), "abc")
        XCTAssertEqual(try run1(E.fn("lpad", [E.str("é"), E.int(3)])), "  é")
        XCTAssertEqual(try run1(E.fn("lpad", [E.str("ab"), E.int(0)])), "")
    }

    func testReplaceTranslateRepeatReverse() throws {
        XCTAssertEqual(try run1(E.fn("replace", [E.str("a-b-c"), E.str("-"), E.str("--")])), "a--b--c")
        XCTAssertEqual(try run1(E.fn("replace", [E.str("abc"), E.str(""), E.str("x")])), "abc")
        XCTAssertEqual(try run1(E.fn("translate", [E.str("12345"), E.str("143"), E.str("ax")])), "a2x5")
        XCTAssertEqual(try run1(E.fn("translate", [E.str("ñandú"), E.str("ñú"), E.str("nu")])), "nandu")
        XCTAssertEqual(try run1(E.fn("repeat", [E.str("ab"), E.int(3)])), "ababab")
        XCTAssertEqual(try run1(E.fn("repeat", [E.str("ab"), E.int(-1)])), "")
        assertError(try E.fn("repeat", [E.str("ab"), E.int(1_000_000)]), "requested length too large")
        XCTAssertEqual(try run1(E.fn("reverse", [E.str("añb")])), "bña")
    }

    func testSplitPartConcatAsciiChr() throws {
        XCTAssertEqual(try run1(E.fn("split_part", [E.str("a,b,,c"), E.str(","), E.int(2)])), "b")
        XCTAssertEqual(try run1(E.fn("split_part", [E.str("a,b,,c"), E.str(","), E.int(3)])), "")
        XCTAssertEqual(try run1(E.fn("split_part", [E.str("a,b,,c"), E.str(","), E.int(9)])), "")
        XCTAssertEqual(try run1(E.fn("split_part", [E.str("a::b"), E.str("::"), E.int(2)])), "b")
        assertError(try E.fn("split_part", [E.str("a"), E.str(","), E.int(0)]), "field position must be greater than zero")
        XCTAssertEqual(try run1(E.fn("concat", [E.str("ab"), E.int(7)])), "ab7")
        XCTAssertEqual(try run1(E.fn("concat", [E.str("ab"), E.null(.text)])), nil)
        XCTAssertEqual(try run1(E.fn("ascii", [E.str("A")])), "65")
        XCTAssertEqual(try run1(E.fn("ascii", [E.str("é")])), "233")
        XCTAssertEqual(try run1(E.fn("ascii", [E.str("")])), "0")
        XCTAssertEqual(try run1(E.fn("chr", [E.int(65)])), "A")
        XCTAssertEqual(try run1(E.fn("chr", [E.int(0x20AC)])), "€")
        assertError(try E.fn("chr", [E.int(0)]), "null character not permitted")
    }

    func testRegistryErrors() {
        XCTAssertThrowsError(try FunctionRegistry.resolve(name: "foo", argTypes: [.integer])) { err in
            XCTAssertEqual((err as? SQLError)?.message, "function foo(integer) does not exist")
            XCTAssertEqual((err as? SQLError)?.code, .undefinedFunction)
        }
        XCTAssertThrowsError(try FunctionRegistry.resolve(name: "upper", argTypes: [.boolean])) { err in
            XCTAssertEqual((err as? SQLError)?.message, "function upper(boolean) does not exist")
        }
        XCTAssertThrowsError(try FunctionRegistry.resolve(name: "substring", argTypes: [.text])) { err in
            XCTAssertEqual((err as? SQLError)?.message, "function substring(character varying) does not exist")
        }
        XCTAssertThrowsError(try FunctionRegistry.resolve(name: "date_part", argTypes: [.text, .date], constantArgs: [.string("fortnight"), nil]))
    }
}

final class FunctionRegistryTests: XCTestCase {
    func resolve(_ name: String, _ types: [DataType], _ consts: [Value?] = []) throws -> (ScalarFunction, [DataType], DataType) {
        let (f, r) = try FunctionRegistry.resolve(name: name, argTypes: types, constantArgs: consts)
        return (f, r.argTypes, r.result)
    }

    /// Every built-in is one declaration: one canonical name, no SQL name claimed twice, a
    /// resolver for everything SQL can call, and the registry finds each by any of its names.
    func testEveryFunctionDeclaredOnce() throws {
        XCTAssertEqual(FunctionRegistry.duplicateNames, [])
        let all = FunctionRegistry.all
        XCTAssertEqual(Set(all.map(\.name)).count, all.count)
        XCTAssertGreaterThan(all.count, 120)
        for f in all where !f.sqlNames.isEmpty { XCTAssertNotNil(f.resolver, f.name) }
        for f in all { for n in f.sqlNames { XCTAssertIdentical(FunctionRegistry.function(named: n.uppercased()), f, n) } }
        XCTAssertIdentical(FunctionRegistry.function(named: "dlog10"), Builtins.math.log)
        XCTAssertNil(FunctionRegistry.function(named: "assignment_cast"), "built by the binder, not callable")
        XCTAssertTrue(FunctionRegistry.knownNames.contains("atan2"))
    }

    /// A constant date part is made canonical when the call is bound, so the kernel looks
    /// nothing up per call.
    func testDatePartCanonicalAtBindTime() throws {
        let (f, r) = try FunctionRegistry.resolve(name: "date_trunc", argTypes: [.text, .date], constantArgs: [.string(" YRS "), nil])
        XCTAssertEqual(f, Builtins.dates.dateTrunc)
        XCTAssertEqual(r.constants[0], .string("year"))
        let (g, s) = try FunctionRegistry.resolve(name: "extract", argTypes: [.text, .interval], constantArgs: [.string("h"), nil])
        XCTAssertEqual(g, Builtins.intervals.intervalPart)
        XCTAssertEqual(s.constants[0], .string("hour"))
        XCTAssertEqual(s.result, .integer)
    }

    func testSignaturesAndResultTypes() throws {
        XCTAssertEqual(try resolve("NVL", [.integer, .bigint]).2, .bigint)
        XCTAssertEqual(try resolve("nvl", [.integer, .bigint]).0, Builtins.conditional.coalesce)
        XCTAssertEqual(try resolve("coalesce", [.unknown, .varchar(3), .char(5)]).2, .varchar(5))
        XCTAssertEqual(try resolve("len", [.char(10)]).0, Builtins.strings.len)
        XCTAssertEqual(try resolve("character_length", [.varchar(10)]).0, Builtins.strings.length)
        XCTAssertEqual(try resolve("strpos", [.text, .text]).0, Builtins.strings.position)
        XCTAssertEqual(try resolve("charindex", [.text, .text]).0, Builtins.strings.charindex)
        XCTAssertEqual(try resolve("substr", [.varchar(15), .integer, .integer]).2, .varchar(15))
        XCTAssertEqual(try resolve("concat", [.varchar(3), .integer]).2, .varchar(14))
        XCTAssertEqual(try resolve("ceiling", [.decimal(precision: 8, scale: 2)]).2, .decimal(precision: 7, scale: 0))
        XCTAssertEqual(try resolve("round", [.real]).2, .real)
        XCTAssertEqual(try resolve("sqrt", [.integer]).1, [.double])
        XCTAssertEqual(try resolve("mod", [.integer, .decimal(precision: 5, scale: 2)]).2, .decimal(precision: 5, scale: 2))
        XCTAssertEqual(try resolve("date_trunc", [.text, .date]).2, .timestamp)
        XCTAssertEqual(try resolve("dateadd", [.text, .integer, .date]).1, [.text, .bigint, .timestamp])
        XCTAssertEqual(try resolve("datediff", [.text, .date, .timestamp]).2, .bigint)
        XCTAssertEqual(try resolve("add_months", [.date, .integer]).2, .timestamp)
        XCTAssertEqual(try resolve("last_day", [.date]).2, .date)
        XCTAssertEqual(try resolve("trunc", [.timestamp]).2, .date)
        XCTAssertEqual(try resolve("getdate", []).2, .timestamp)
        XCTAssertEqual(try resolve("current_date", []).2, .date)
        XCTAssertTrue(Builtins.dates.getdate.dependsOnTime)
        XCTAssertFalse(Builtins.dates.getdate.isVolatile)
        XCTAssertEqual(try resolve("extract", [.text, .timestamp], [.string("EPOCH"), nil]).2, .bigint)
    }

    func testArityErrors() {
        for (name, types) in [("nvl", [DataType.integer]), ("nullif", [.integer]), ("pi", [.integer]),
                              ("split_part", [.text, .text]), ("greatest", [])] {
            XCTAssertThrowsError(try resolve(name, types), name) { err in
                XCTAssertEqual((err as? SQLError)?.code, .undefinedFunction)
            }
        }
        XCTAssertThrowsError(try resolve("abs", [.boolean]))
        XCTAssertThrowsError(try resolve("date_trunc", [.text, .boolean]))
    }
}
