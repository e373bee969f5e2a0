// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan

/// TO_CHAR, TO_DATE, TO_TIMESTAMP, TO_NUMBER. A constant format is parsed once per
/// call; a per-row format is re-parsed only when it changes from the previous row.
package enum FormatFunctions {

    /// Parsed format for row `i`, cached across rows with the same format text.
    package struct FormatCache<F> {
        let input: StringInput
        let make: (UnsafeBufferPointer<UInt8>) -> F
        var last: (range: Range<Int>, value: F)?
        var lastBytes: [UInt8] = []
        init(_ v: Vector, _ make: @escaping (UnsafeBufferPointer<UInt8>) -> F) throws {
            input = try StringKernels.input(v)
            self.make = make
        }
        mutating func get(_ i: Int) -> F {
            let r = input.range(i)
            if let last, last.range == r || (input.constant) { return last.value }
            return StringKernels.with(input, i) { p -> F in
                if let last, p.elementsEqual(lastBytes) { return last.value }
                let f = make(p)
                last = (r, f)
                lastBytes = Array(p)
                return f
            }
        }
    }

    // MARK: TO_CHAR

    package static func toChar(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        let v = args[0]
        let src = v.type
        if src == .date || src == .timestamp {
            var fmt = try FormatCache(args[1]) { DateTimeFormat($0) }
            let x = try IntInput(v)
            let isDate = src == .date
            return try StringKernels.mapRows(args, n: n, resultType: resultType) { i, out in
                let t = isDate ? x[i] &* DateTime.microsPerDay : x[i]
                fmt.get(i).append(micros: t, to: &out)
            }
        }
        var fmt = try FormatCache(args[1]) { NumberFormat($0) }
        switch v.data {
        case .double(let d):
            let c = v.isConstant
            return try StringKernels.mapRows(args, n: n, resultType: resultType) { i, out in
                fmt.get(i).append(double: d[c ? 0 : i], to: &out)
            }
        case .int64(let a):
            let c = v.isConstant
            let scale = src.isDecimal ? src.scale : 0
            return try StringKernels.mapRows(args, n: n, resultType: resultType) { i, out in
                fmt.get(i).append(int128: Int128(a[c ? 0 : i]), scale: scale, to: &out)
            }
        case .int128(let a):
            let c = v.isConstant
            let scale = src.isDecimal ? src.scale : 0
            return try StringKernels.mapRows(args, n: n, resultType: resultType) { i, out in
                fmt.get(i).append(int128: a[c ? 0 : i], scale: scale, to: &out)
            }
        default:
            throw SQLError(.undefinedFunction, "function to_char(\(src.sqlName), text) does not exist")
        }
    }

    // MARK: TO_DATE / TO_TIMESTAMP

    package static func toDateTime(_ args: [Vector], date: Bool, resultType: DataType, n: Int) throws -> Vector {
        var strict = false
        if args.count == 3 {
            guard args[2].isConstant else { throw SQLError(.featureNotSupported, "TO_DATE's is_strict argument must be a constant") }
            if case .bool(let b) = args[2].data, let first = b.first, !args[2].isNull(0) { strict = first }
        }
        let strArgs = Array(args.prefix(2))
        if strArgs.contains(where: Kern.isConstNull) { return Kern.constNull(resultType) }
        let s = try StringKernels.input(args[0])
        var fmt = try FormatCache(args[1]) { DateTimeFormat($0) }
        let constant = strArgs.allSatisfy { $0.isConstant }
        let len = constant ? 1 : n
        let validity = constant ? nil : Kern.combinedValidity(strArgs)
        var out = [Int64](filled: 0, count: len)
        for i in 0..<len where Kern.valid(validity, i) {
            let f = fmt.get(i)
            let t = try StringKernels.with(s, i) { try f.parse($0, strict: strict) }
            out[i] = date ? DateFunctions.floorDiv(t, DateTime.microsPerDay) : t
        }
        return Kern.result(resultType, .int64(out), validity: validity, constant: constant)
    }

    // MARK: TO_NUMBER

    package static func toNumber(_ args: [Vector], resultType: DataType, n: Int) throws -> Vector {
        if args.contains(where: Kern.isConstNull) { return Kern.constNull(resultType) }
        let s = try StringKernels.input(args[0])
        let constant = args.allSatisfy { $0.isConstant }
        let len = constant ? 1 : n
        let validity = constant ? nil : Kern.combinedValidity(args)
        let scale = resultType.isDecimal ? resultType.scale : 0
        let precision = resultType.isDecimal ? resultType.precision : DataType.maxDecimalPrecision
        var wide = [Int128](filled: 0, count: len)
        for i in 0..<len where Kern.valid(validity, i) {
            let text = StringKernels.with(s, i) { NumberFormat.numberText($0) }
            guard let text else {
                let raw = StringKernels.with(s, i) { String(decoding: $0, as: UTF8.self) }
                throw SQLError(.invalidText, "invalid input syntax for type numeric: \"\(raw)\"")
            }
            switch DecimalMath.parse(text, scale: scale, precision: precision) {
            case .ok(let v): wide[i] = v
            case .overflow, .invalid:
                throw SQLError(.numericOutOfRange, "numeric field overflow: \(text) does not fit \(resultType.sqlName)")
            }
        }
        if resultType.physical == .int128 {
            return Kern.result(resultType, .int128(wide), validity: validity, constant: constant)
        }
        return Kern.result(resultType, .int64(wide.map { Int64(truncatingIfNeeded: $0) }), validity: validity, constant: constant)
    }
}
