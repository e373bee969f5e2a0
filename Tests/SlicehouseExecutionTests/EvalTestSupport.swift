// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
@testable import SlicehouseFunctions
import SlicehousePlanner
@testable import SlicehouseExecution

/// Shorthands for building expressions and chunks in the kernel tests.
enum E {
    static func col(_ i: Int, _ t: DataType) -> BoundExpr { .column(i, t) }
    static func int(_ v: Int64, _ t: DataType = .integer) -> BoundExpr { .constant(.int(v), t) }
    static func dec(_ text: String, _ p: Int, _ s: Int) -> BoundExpr {
        let t = DataType.decimal(precision: p, scale: s)
        guard case .ok(let v) = DecimalMath.parse(text, scale: s, precision: p) else { return .constant(.null, t) }
        return .constant(p > 18 ? .int128(v) : .int(Int64(v)), t)
    }
    static func dbl(_ v: Double) -> BoundExpr { .constant(.double(v), .double) }
    static func str(_ s: String, _ t: DataType = .text) -> BoundExpr { .constant(.string(s), t) }
    static func bool(_ b: Bool?) -> BoundExpr { .constant(b.map { .bool($0) } ?? .null, .boolean) }
    static func null(_ t: DataType) -> BoundExpr { .constant(.null, t) }
    static func date(_ s: String) -> BoundExpr { .constant(.int(DateTime.parseDate(s) ?? 0), .date) }
    static func ts(_ s: String) -> BoundExpr { .constant(.int(DateTime.parseTimestamp(s) ?? 0), .timestamp) }

    /// `l op r` typed by `TypeRules.binaryOperator`, with the operand casts inserted.
    static func bin(_ op: BinaryOp, _ l: BoundExpr, _ r: BoundExpr) throws -> BoundExpr {
        let (lt, rt, res) = try TypeRules.binaryOperator(op, l.type, r.type)
        return .binary(op, castIfNeeded(l, lt), castIfNeeded(r, rt), res)
    }
    static func castIfNeeded(_ e: BoundExpr, _ t: DataType) -> BoundExpr { e.type == t ? e : .cast(e, t) }

    /// A function call resolved through `FunctionRegistry` (casts inserted as resolved).
    static func fn(_ name: String, _ args: [BoundExpr]) throws -> BoundExpr {
        let consts: [Value?] = args.map { if case .constant(let v, _) = $0 { return v }; return nil }
        let (f, r) = try FunctionRegistry.resolve(name: name, argTypes: args.map { $0.type }, constantArgs: consts)
        return .function(f, zip(args, r.argTypes).map { castIfNeeded($0, $1) }, r.result)
    }
}

/// A chunk from columns (all of the same length).
func chunk(_ cols: Vector..., selection: [Int32]? = nil) -> Chunk {
    Chunk(columns: cols, count: cols.first?.count ?? 1, selection: selection)
}

/// Int64-backed vector of a given type.
func ints(_ values: [Int64?], _ t: DataType = .integer) -> Vector { Vector.ints(values, type: t) }

/// Decimal vector from text values.
func decs(_ values: [String?], _ p: Int, _ s: Int) -> Vector {
    let t = DataType.decimal(precision: p, scale: s)
    var v = Vector(type: t, capacity: values.count)
    for x in values {
        guard let x, case .ok(let d) = DecimalMath.parse(x, scale: s, precision: p) else { v.append(.null); continue }
        v.append(p > 18 ? .int128(d) : .int(Int64(d)))
    }
    return v
}

func doubles(_ values: [Double?]) -> Vector {
    var v = Vector(type: .double, capacity: values.count)
    for x in values { v.append(x.map { .double($0) } ?? .null) }
    return v
}

func strs(_ values: [String?], _ t: DataType = .text) -> Vector { Vector.strings(values, type: t) }

func bools(_ values: [Bool?]) -> Vector {
    var v = Vector(type: .boolean, capacity: values.count)
    for x in values { v.append(x.map { .bool($0) } ?? .null) }
    return v
}

func dates(_ values: [String?]) -> Vector {
    ints(values.map { $0.flatMap { DateTime.parseDate($0) } }, .date)
}

/// The text form of every logical row of an evaluation result (nil = NULL).
func texts(_ v: Vector, rows: Int) -> [String?] {
    (0..<rows).map { v.value(at: v.isConstant ? 0 : $0).formatted(as: v.type) }
}

/// Evaluate and format.
func evalRows(_ e: BoundExpr, _ c: Chunk, file: StaticString = #filePath, line: UInt = #line) throws -> [String?] {
    let v = try ExpressionEvaluator.evaluate(e, c)
    XCTAssertTrue(v.isConstant || v.count == c.count, "result has \(v.count) rows for \(c.count)", file: file, line: line)
    XCTAssertEqual(v.type.physical, e.type.physical, file: file, line: line)
    return texts(v, rows: c.count)
}

/// Evaluate a constant expression (one-row chunk without columns).
func run1(_ e: BoundExpr, file: StaticString = #filePath, line: UInt = #line) throws -> String? {
    try evalRows(e, Chunk(columns: [], count: 1), file: file, line: line).first ?? nil
}

/// Assert that evaluation fails with `message`.
func assertError(_ e: @autoclosure () throws -> BoundExpr, _ message: String, in c: Chunk = Chunk(columns: [], count: 1),
                 file: StaticString = #filePath, line: UInt = #line) {
    do {
        let v = try ExpressionEvaluator.evaluate(try e(), c)
        XCTFail("expected error \"\(message)\", got \(texts(v, rows: c.count))", file: file, line: line)
    } catch let err as SQLError {
        XCTAssertEqual(err.message, message, file: file, line: line)
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
    }
}
