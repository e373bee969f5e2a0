// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehousePlan
import SlicehouseFunctions

/// The codes of one join's coded build columns (`GroupKeyCoding`), for one partition's
/// pipeline: the distinct combinations so far, each a group of a group index, its code
/// the group's number. A join spilled into partitions codes each partition's table into
/// the same dictionary, so a code means one combination throughout.
public final class BuildKeyDictionary {
    /// The build columns coded, and their types.
    let columns: [Int]
    let types: [DataType]
    private let index: GroupIndex
    /// The combinations as columns, for decoding (`decodedCount` of them so far).
    private var decoded: [Vector] = []
    private var decodedCount = 0

    init(columns: [Int], types: [DataType]) {
        self.columns = columns
        self.types = types
        index = GroupIndexFactory.make(types)
    }

    /// The combinations coded so far.
    var count: Int { index.groupCount }

    /// Bytes the dictionary holds.
    var memoryBytes: Int { index.memoryBytes + Chunk(columns: decoded, count: decodedCount).approximateBytes }

    /// The codes of rows `rows` of a join table's `tableColumns` (every build column, the
    /// coded ones flat).
    func codes(_ tableColumns: [Vector], rows: [Int32]) throws -> [Int32] {
        guard columns.allSatisfy({ $0 < tableColumns.count }) else {
            throw SQLError.internalError("coded build column out of range")
        }
        let keys = columns.map { tableColumns[$0] }
        let n = keys.first?.count ?? 0
        guard keys.allSatisfy({ !$0.isConstant && $0.count == n }), rows.allSatisfy({ $0 >= 0 && Int($0) < n }) else {
            throw SQLError.internalError("coded build column not kept in the join's table")
        }
        var codes: [Int32] = []
        codes.reserveCapacity(rows.count)
        var ids: [Int32] = []
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + Chunk.capacity)
            try index.assign(keys, rows: Array(rows[start..<end]), groupIds: &ids)
            codes.append(contentsOf: ids)
            start = end
        }
        return codes
    }

    /// Column `column` of the combinations at the codes of `codes` (a 64-bit vector; a
    /// NULL code gives NULL), row by physical row.
    func decode(_ codes: Vector, column: Int) throws -> Vector {
        guard case .int64(let values) = codes.data, column < types.count else {
            throw SQLError.internalError("group key code column is not 64-bit")
        }
        let groups = index.groupCount
        if decodedCount != groups {
            decoded = index.keyColumns(0..<groups)
            decodedCount = groups
        }
        let n = codes.isConstant ? 1 : values.count
        var rows: [Int32] = []
        rows.reserveCapacity(n)
        var nulls: [Int] = []
        for r in 0..<n {
            let code = values[codes.isConstant ? 0 : r]
            if codes.validity.map({ !$0.isValid(codes.isConstant ? 0 : r) }) ?? false {
                rows.append(0)
                nulls.append(r)
                continue
            }
            guard code >= 0 && code < Int64(groups) else {
                throw SQLError.internalError("group key code \(code) of \(groups)")
            }
            rows.append(Int32(truncatingIfNeeded: code))
        }
        if groups == 0 { return Vector.nulls(types[column], count: n) }
        var v = OperatorKernels.gather(decoded[column], rows)
        if !nulls.isEmpty {
            var validity = v.validity ?? Validity(allValid: n)
            for r in nulls { validity.setInvalid(r) }
            v.validity = validity
        }
        if codes.isConstant { v.isConstant = true }
        return v
    }
}

/// Above an aggregate whose keys were coded (`GroupKeyCoding`): its output with every
/// coded key's text in place, from the dictionaries, in the aggregate's own layout.
final class GroupKeyDecodeOperator: Operator, MemoryHolding {
    private let input: HashAggregateOperator
    private let sources: [GroupKeyCoding.Source]
    private let codedKeys: Int
    private let dictionaries: [BuildKeyDictionary]

    init(input: HashAggregateOperator, coding: GroupKeyCoding, dictionaries: [BuildKeyDictionary]) {
        self.input = input
        sources = coding.sources
        codedKeys = coding.groups.count
        self.dictionaries = dictionaries
    }

    /// The aggregate's (the step this operator is a part of).
    var memoryPeak: Int { input.memoryPeak }
    var spilledBytes: Int { input.spilledBytes }

    func next() throws -> Chunk? {
        guard let chunk = try input.next() else { return nil }
        guard chunk.columns.count >= codedKeys else {
            throw SQLError.internalError("aggregate output of \(chunk.columns.count) columns, expected \(codedKeys) keys")
        }
        var columns: [Vector] = []
        columns.reserveCapacity(chunk.columns.count - codedKeys + sources.count)
        for s in sources {
            switch s {
            case .key(let k):
                columns.append(chunk.columns[k])
            case .coded(let j, let k, let c):
                guard j < dictionaries.count else { throw SQLError.internalError("no dictionary for coded key") }
                columns.append(try dictionaries[j].decode(chunk.columns[k], column: c))
            }
        }
        columns.append(contentsOf: chunk.columns[codedKeys...])
        return Chunk(columns: columns, count: chunk.physicalCount, selection: chunk.selection)
    }
}
