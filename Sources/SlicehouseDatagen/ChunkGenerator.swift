// SPDX-License-Identifier: Apache-2.0
/// Generates one range of a table's generation units into an `OutputChunk`.
///
/// Every table generator starts its random streams at `units.lowerBound` by
/// skip-ahead, so any range can be produced on its own, on any thread, and the
/// chunks of a table concatenate to exactly the full table.
enum ChunkGenerator {
    /// Bytes to reserve up front per generation unit (roughly a row; lineitem
    /// and partsupp units hold several rows). A guess: the buffer grows if needed.
    static func estimatedBytesPerUnit(_ table: TPCHTable) -> Int {
        switch table {
        case .region, .nation: return 128
        case .supplier: return 144
        case .customer: return 168
        case .part: return 124
        case .partsupp: return 600
        case .orders: return 118
        case .lineitem: return 520
        }
    }

    static func generate(_ table: TPCHTable, context: ScaleContext, units: Range<Int64>,
                         layout: RowLayout, header: Bool) -> OutputChunk {
        let estimate = estimatedBytesPerUnit(table) * units.count + (header ? 256 : 0)
        var buffer = RowBuffer(capacity: estimate + estimate / 8, layout: layout)
        if header { writeHeader(table, into: &buffer) }
        let start = units.lowerBound
        let rows: Int
        switch table {
        case .region:
            var generator = RegionRows(context: context, startUnit: start)
            rows = generator.write(units: units, into: &buffer)
        case .nation:
            var generator = NationRows(context: context, startUnit: start)
            rows = generator.write(units: units, into: &buffer)
        case .supplier:
            var generator = SupplierRows(context: context, startUnit: start)
            rows = generator.write(units: units, into: &buffer)
        case .customer:
            var generator = CustomerRows(context: context, startUnit: start)
            rows = generator.write(units: units, into: &buffer)
        case .part:
            var generator = PartRows(context: context, startUnit: start)
            rows = generator.write(units: units, into: &buffer)
        case .partsupp:
            var generator = PartSuppRows(context: context, startUnit: start)
            rows = generator.write(units: units, into: &buffer)
        case .orders:
            var generator = OrdersRows(context: context, startUnit: start)
            rows = generator.write(units: units, into: &buffer)
        case .lineitem:
            var generator = LineItemRows(context: context, startUnit: start)
            rows = generator.write(units: units, into: &buffer)
        }
        return buffer.finish(rows: rows)
    }

    /// The CSV header line: the column names.
    static func writeHeader(_ table: TPCHTable, into buffer: inout RowBuffer) {
        let line = table.columnNames.joined(separator: ",") + "\n"
        let bytes = Array(line.utf8)
        buffer.reserve(bytes.count)
        bytes.withUnsafeBufferPointer { source in
            if let address = source.baseAddress { buffer.bytes(address, source.count) }
        }
    }
}
