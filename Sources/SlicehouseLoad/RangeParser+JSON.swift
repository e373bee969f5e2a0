// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

extension RangeParser {
    /// `JSON`: a stream of objects (or arrays, with `$[n]` JSONPaths) separated by any
    /// whitespace — one per line or spread over several lines.
    ///
    /// - Strings load their decoded contents; numbers, `true` and `false` load their
    ///   text (so they convert like delimited fields); `null` and absent values load
    ///   NULL; nested objects and arrays load their JSON text as written.
    /// - Malformed JSON is error 1224 at the line of the offending character; parsing
    ///   resumes at the next line that starts with `{` (`[`), so MAXERROR can skip it.
    /// - Conversion errors report the line where the record starts.
    func runJSON(_ data: FileData, start: Int, end: Int, rangeIndex: Int, control: LoadControl) -> RangeOutput {
        var out = RangeOutput()
        guard start < end, let base = data.bytes.baseAddress, let map = jsonMap else { return out }
        let ncols = targets.count
        let fileName = data.path
        var reader = JSONRecordReader(map: map, columnCount: ncols)
        // SUPER columns take the value's JSON text, quotes and escapes of strings included.
        let superColumns = targets.map { $0.type == .superType }
        let anySuper = superColumns.contains(true)
        var p = start
        // A UTF-8 byte order mark at the start of the file is not data.
        if start == 0 && end >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF { p = 3 }
        var rows = 0
        var line = 0
        var sinceCheck = 0
        while true {
            sinceCheck += 1
            if sinceCheck >= 1024 {
                sinceCheck = 0
                if control.shouldStop(rangeIndex) { out.complete = false; break }
            }
            p = JSONGrammar.skipWhitespace(base, p, end, &line)
            if p >= end { break }
            let recStart = p
            let recLine = line
            let recEnd: Int
            do {
                recEnd = try reader.read(base, p, end, newlines: &line)
            } catch {
                let at = min(max(error.offset, recStart), end)
                let errorLine = recLine + JSONGrammar.countNewlines(base, recStart, at)
                let column = JSONGrammar.column(base, at)
                let resume = JSONGrammar.resyncPoint(base, recordStart: recStart, errorOffset: at, end,
                                                     arrays: map.arrayRecords)
                let shownEnd = min(RecordScanner.findDelimiterOrNewline(base, at, end, 10), resume)
                let record = UnsafeBufferPointer(start: base + recStart, count: max(shownEnd - recStart, 0))
                let reason = "Invalid JSON: \(error.message) (line \(errorLine + 1), column \(column))"
                if reject(&out, .invalidJSON, reason, field: -1, line: errorLine, record: record, value: nil,
                          file: fileName, rangeIndex: rangeIndex, control: control) { break }
                line = recLine + JSONGrammar.countNewlines(base, recStart, resume)
                p = resume
                continue
            }
            p = recEnd

            var c = 0
            do throws(FieldFailure) {
                while c < ncols {
                    if anySuper && superColumns[c] {
                        try convertJSONToSuper(base, reader.slotStart[c], reader.slotEnd[c], reader.slotKind[c], builders + c)
                    } else {
                        try convertJSON(base, reader.slotStart[c], reader.slotEnd[c], reader.slotKind[c], builders + c)
                    }
                    c += 1
                }
            } catch {
                for k in 0..<c { builders[k].removeLast() }
                let record = UnsafeBufferPointer(start: base + recStart, count: recEnd - recStart)
                let value = jsonFieldValue(base, reader.slotStart[c], reader.slotEnd[c], reader.slotKind[c])
                if reject(&out, error.code, error.reason, field: c, line: recLine, record: record, value: value,
                          file: fileName, rangeIndex: rangeIndex, control: control) { break }
                continue
            }
            rowDone(&rows, &out)
        }
        finish(rows, &out)
        // Lines are counted up to where parsing stopped; the assembly only uses them
        // for complete ranges, which always run to `end`.
        out.newlines = line
        return out
    }

    /// Convert one JSON value into its column.
    @inline(__always)
    func convertJSON(_ base: UnsafePointer<UInt8>, _ start: Int, _ stop: Int, _ kind: JSONValueKind,
                     _ builder: UnsafeMutablePointer<ColumnBuilder>) throws(FieldFailure) {
        switch kind {
        case .missing, .null:
            try builder.pointee.appendNull()
        case .string, .scalar, .nested:
            try builder.pointee.append(UnsafeBufferPointer(start: base + start, count: stop - start), quoted: false)
        case .escapedString:
            guard let decoded = decodedJSONString(base, start, stop) else {
                throw FieldFailure(code: .invalidUTF8,
                                   reason: "String contains an invalid \\u escape (unpaired UTF-16 surrogate)")
            }
            try builder.pointee.append(decoded, quoted: false)
        }
    }

    /// One JSON value into a SUPER column: its text as written (a string with its quotes).
    func convertJSONToSuper(_ base: UnsafePointer<UInt8>, _ start: Int, _ stop: Int, _ kind: JSONValueKind,
                            _ builder: UnsafeMutablePointer<ColumnBuilder>) throws(FieldFailure) {
        switch kind {
        case .missing, .null:
            try builder.pointee.appendNull()
        case .string, .escapedString:
            try builder.pointee.append(UnsafeBufferPointer(start: base + start - 1, count: stop - start + 2), quoted: true)
        case .scalar, .nested:
            try builder.pointee.append(UnsafeBufferPointer(start: base + start, count: stop - start), quoted: true)
        }
    }

    /// The escapes of string contents `[start, stop)` decoded into `scratch`
    /// (nil for an unpaired surrogate).
    func decodedJSONString(_ base: UnsafePointer<UInt8>, _ start: Int, _ stop: Int) -> UnsafeBufferPointer<UInt8>? {
        let raw = UnsafeBufferPointer(start: base + start, count: stop - start)
        if scratch.count < raw.count {
            scratch.deallocate()
            scratch = .allocate(capacity: max(raw.count, scratch.count * 2))
        }
        guard let dst = scratch.baseAddress, let n = JSONGrammar.unescape(raw, into: dst) else { return nil }
        return UnsafeBufferPointer(start: dst, count: n)
    }

    /// A value as loaded (for error records); nil when the column got no value.
    func jsonFieldValue(_ base: UnsafePointer<UInt8>, _ start: Int, _ stop: Int,
                        _ kind: JSONValueKind) -> UnsafeBufferPointer<UInt8>? {
        switch kind {
        case .missing, .null: return nil
        case .escapedString:
            return decodedJSONString(base, start, stop) ?? UnsafeBufferPointer(start: base + start, count: stop - start)
        case .string, .scalar, .nested:
            return UnsafeBufferPointer(start: base + start, count: stop - start)
        }
    }
}
