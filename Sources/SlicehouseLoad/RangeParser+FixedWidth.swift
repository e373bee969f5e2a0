// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

extension RangeParser {
    /// `FIXEDWIDTH`: one record per line, fields cut by the spec's character widths.
    ///
    /// - A line ending inside a field gives a shorter field (trailing padding may have
    ///   been stripped), as does one ending where the last field starts (an empty last
    ///   field); fields the line does not reach are missing: error 1203, or empty
    ///   fields with FILLRECORD.
    /// - Non-blank text beyond the last field is error 1202 (trailing blanks are fine).
    /// - NULL AS matches a field whose text without surrounding blanks equals the NULL
    ///   string; blanks and empty fields then follow the usual rules (NULL for
    ///   non-string columns; BLANKSASNULL, EMPTYASNULL, TRIMBLANKS for strings).
    func runFixedWidth(_ data: FileData, start: Int, end: Int, rangeIndex: Int, control: LoadControl) -> RangeOutput {
        var out = RangeOutput()
        guard start < end, let base = data.bytes.baseAddress else { return out }
        let ncols = targets.count
        var scanner = FixedWidthScanner(fields: options.fixedWidth)
        let ignoreBlankLines = options.ignoreBlankLines
        let fillRecord = options.fillRecord
        let fileName = data.path
        // NULL AS without its surrounding blanks.
        var nullLo = 0, nullHi = nullCount
        while nullLo < nullHi && FieldParsers.isBlank(nullBytes[nullLo]) { nullLo += 1 }
        while nullHi > nullLo && FieldParsers.isBlank(nullBytes[nullHi - 1]) { nullHi -= 1 }
        let nullText = UnsafeBufferPointer(start: nullBytes + nullLo, count: nullHi - nullLo)

        var rows = 0
        var p = start
        var line = 0
        var sinceCheck = 0
        while p < end {
            sinceCheck += 1
            if sinceCheck >= 1024 {
                sinceCheck = 0
                if control.shouldStop(rangeIndex) { out.complete = false; break }
            }
            let recStart = p
            let newline = RecordScanner.findDelimiterOrNewline(base, p, end, 10)
            var contentEnd = newline
            if contentEnd > recStart && base[contentEnd - 1] == 13 { contentEnd -= 1 }
            let recLine = line
            if newline < end {
                line += 1
                p = newline + 1
            } else {
                p = end
            }
            if contentEnd == recStart && ignoreBlankLines { continue }
            let record = UnsafeBufferPointer(start: base + recStart, count: contentEnd - recStart)

            scanner.split(base, recStart, contentEnd)
            let present = scanner.present
            if present < ncols && !fillRecord {
                let reason = "Line too short for the FIXEDWIDTH specification: input data had fewer columns than expected (\(present) of \(ncols) fields)"
                if reject(&out, .missingColumns, reason, field: present, line: recLine, record: record, value: nil,
                          file: fileName, rangeIndex: rangeIndex, control: control) { break }
                continue
            }
            if scanner.restStart < contentEnd {
                let rest = UnsafeBufferPointer(start: base + scanner.restStart, count: contentEnd - scanner.restStart)
                if !FieldParsers.allBlank(rest) {
                    if reject(&out, .extraColumns, "Extra column(s) found: text beyond the FIXEDWIDTH specification",
                              field: ncols, line: recLine, record: record, value: rest,
                              file: fileName, rangeIndex: rangeIndex, control: control) { break }
                    continue
                }
            }

            var c = 0
            do throws(FieldFailure) {
                while c < ncols {
                    let span = scanner.spans[c]
                    let raw = UnsafeBufferPointer(start: base + span.start, count: span.end - span.start)
                    if c < present && Self.matchesTrimmed(raw, nullText) {
                        try builders[c].appendNull()
                    } else {
                        try builders[c].append(raw, quoted: false)
                    }
                    c += 1
                }
            } catch {
                for k in 0..<c { builders[k].removeLast() }
                let span = scanner.spans[c]
                let value = c < present ? UnsafeBufferPointer(start: base + span.start, count: span.end - span.start) : nil
                if reject(&out, error.code, error.reason, field: c, line: recLine, record: record, value: value,
                          file: fileName, rangeIndex: rangeIndex, control: control) { break }
                continue
            }
            rowDone(&rows, &out)
        }
        finish(rows, &out)
        out.newlines = line
        return out
    }

    /// True when `field` without surrounding blanks equals `text`.
    @inline(__always)
    static func matchesTrimmed(_ field: UnsafeBufferPointer<UInt8>, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        if text.count > field.count { return false }
        var lo = 0, hi = field.count
        while lo < hi && FieldParsers.isBlank(field[lo]) { lo += 1 }
        // Most fields differ at their first character: decide before trimming the padding.
        if lo < hi && !text.isEmpty && field[lo] != text[0] { return false }
        while hi > lo && FieldParsers.isBlank(field[hi - 1]) { hi -= 1 }
        guard hi - lo == text.count else { return false }
        for i in 0..<text.count where field[lo + i] != text[i] { return false }
        return true
    }
}
