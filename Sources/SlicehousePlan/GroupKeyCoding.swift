// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// Group keys coded through a join: an aggregate that groups by text columns of a hash
/// join's build side — a dimension's names, as TPC-DS q57 groups catalog sales by the
/// item's category and brand and the call center's name — groups by one 64-bit code per
/// distinct combination of them instead, and turns the codes back into the text for its
/// groups alone.
///
/// The join codes each build row once, the first time a probe row matches it: a
/// `BuildKeyDictionary` (a group index over the build rows' coded columns) gives the row
/// the code of its combination, and every probe row that matches it gets that code in
/// place of the text — one 32-bit gather where each text column was a gather of bytes. A
/// build row no probe row meets is never coded, so coding costs at most the hashing the
/// aggregate would have done on the text (once per matched build row instead of once per
/// output row). The aggregate then hashes and compares integers (several such keys and
/// small integer keys pack into one 64-bit key), and `GroupKeyDecodeOperator` above it gathers each group's
/// text from the dictionary: as many rows as there are groups, not as there were rows
/// (`BuildKeyDictionary`, `GroupKeyDecodeOperator` and the hash join's `coding` in
/// SlicehouseExecution). EXPLAIN names the coded keys under the aggregate.
///
/// Equal codes mean equal combinations (the dictionary is a group index, with GROUP BY's
/// own equality: NULLs group together), so the groups are the same, in the same order of
/// first appearance. The plan is not changed: `plan(_:)` reads it when the aggregate's
/// operator is built, and the codes live only inside one pipeline (a partition's joins,
/// filters and projections up to the aggregate, whose own spill files hold them as
/// integers) — they never reach an exchange or the client.
///
/// A key is coded only where nothing but the aggregate's grouping reads it on the way:
/// - it comes, as a column, from the build side of an INNER hash join reached from the
///   aggregate through filters, projections and the probe sides of inner, left, semi and
///   anti hash joins (a right or full join would add NULL probe columns, whose NULL code
///   would be a group apart from a real combination of NULLs);
/// - no filter, projection expression, join key or residual condition on the way reads
///   it, nor any aggregate's argument, FILTER or ORDER BY;
/// - it is text (integer keys are already cheap).
public struct GroupKeyCoding: Sendable {
    /// One join whose build columns travel as codes.
    public struct CodedJoin: Sendable {
        /// The join's node: its operator in the pipeline takes the dictionary.
        public let node: ObjectIdentifier
        /// The build columns coded together (the code travels in the first one's output
        /// position; the others are NULL placeholders), and their types.
        public let columns: [Int]
        public let types: [DataType]
        /// The build side's names of the columns (for EXPLAIN).
        public let names: [String]

        public init(node: ObjectIdentifier, columns: [Int], types: [DataType], names: [String] = []) {
            self.node = node; self.columns = columns; self.types = types; self.names = names
        }
    }

    /// Where one of the aggregate's group keys comes from in the coded aggregate's output.
    public enum Source: Sendable, Equatable {
        /// Group key `key` of the coded aggregate, as it is.
        case key(Int)
        /// Column `column` of join `join`'s dictionary, at the code in group key `key`.
        case coded(join: Int, key: Int, column: Int)
    }

    public let joins: [CodedJoin]
    /// The coded aggregate's group columns (input positions) and their types.
    public let groups: [Int]
    public let groupTypes: [DataType]
    /// Per group key of the aggregate, in order.
    public let sources: [Source]
    /// Per projection on the way: the output positions that carry a code (a projection
    /// passes them through as they are).
    public let passThrough: [ObjectIdentifier: Set<Int>]

    public init(joins: [CodedJoin], groups: [Int], groupTypes: [DataType], sources: [Source],
                passThrough: [ObjectIdentifier: Set<Int>]) {
        self.joins = joins; self.groups = groups; self.groupTypes = groupTypes; self.sources = sources
        self.passThrough = passThrough
    }

    /// The coding for aggregate `node`, or nil when none of its keys may be coded.
    public static func plan(_ node: PhysicalNode) -> GroupKeyCoding? {
        guard case .aggregate(let groups, let aggregates, let phase) = node.kind, phase != .final,
              let child = node.children.first else { return nil }
        let types = child.types
        guard groups.allSatisfy({ $0 >= 0 && $0 < types.count }) else { return nil }
        // Per group key: its position in the current node's output, while it is followed.
        var traced: [Int: Int] = [:]
        for (k, g) in groups.enumerated() where types[g].isString { traced[k] = g }
        if traced.isEmpty { return nil }
        // Positions of the current node's output read otherwise than as a followed key.
        var reads = Set<Int>()
        for a in aggregates {
            if let x = a.argument { reads.insert(x) }
            if let f = a.filter { reads.insert(f) }
            for o in a.orderBy { reads.insert(o.column) }
        }
        // The nodes from the aggregate's child down, and per coded key its join's depth
        // in `path` and its build column.
        var path: [PhysicalNode] = []
        var coded: [Int: (depth: Int, column: Int)] = [:]
        var current = child
        walk: while !traced.isEmpty {
            traced = traced.filter { !reads.contains($0.value) }
            path.append(current)
            switch current.kind {
            case .filter(let predicate):
                guard current.children.count == 1 else { break walk }
                reads.formUnion(predicate.referencedColumns)
            case .project(let exprs):
                guard current.children.count == 1 else { break walk }
                let followed = Set(traced.values)
                var below = Set<Int>()
                for (e, x) in exprs.enumerated() where !followed.contains(e) { below.formUnion(x.referencedColumns) }
                var next: [Int: Int] = [:]
                for (k, p) in traced {
                    if p < exprs.count, case .column(let i, _) = exprs[p] { next[k] = i }
                }
                traced = next
                reads = below
            case .hashJoin(let kind, let probeKeys, _, let residual, _, _):
                guard current.children.count == 2 else { break walk }
                let probeWidth = current.children[0].types.count
                let residualReads = residual?.referencedColumns ?? []
                switch kind {
                case .inner:
                    for (k, p) in traced where p >= probeWidth {
                        if !residualReads.contains(p) { coded[k] = (path.count - 1, p - probeWidth) }
                        traced[k] = nil
                    }
                case .left, .semi, .anti:
                    for (k, p) in traced where p >= probeWidth { traced[k] = nil }
                case .right, .full, .rightSemi, .rightAnti:
                    break walk
                }
                reads = reads.filter { $0 < probeWidth }
                reads.formUnion(probeKeys)
                reads.formUnion(residualReads.filter { $0 < probeWidth })
            default:
                break walk
            }
            current = current.children[0]
        }
        if coded.isEmpty { return nil }

        // One dictionary per join, its columns in the order of the keys that code them.
        var joins: [CodedJoin] = []
        var joinAtDepth: [Int: Int] = [:]
        var keyColumn: [Int: (join: Int, column: Int)] = [:]
        for k in groups.indices {
            guard let (depth, column) = coded[k] else { continue }
            let j: Int
            if let known = joinAtDepth[depth] {
                j = known
            } else {
                j = joins.count
                joinAtDepth[depth] = j
                joins.append(CodedJoin(node: ObjectIdentifier(path[depth]), columns: [], types: []))
            }
            let join = joins[j]
            if let c = join.columns.firstIndex(of: column) {
                keyColumn[k] = (j, c)
            } else {
                let build = path[depth].children[1]
                let name = column < build.names.count ? build.names[column] : "#\(column)"
                joins[j] = CodedJoin(node: join.node, columns: join.columns + [column],
                                     types: join.types + [build.types[column]], names: join.names + [name])
                keyColumn[k] = (j, join.columns.count)
            }
        }

        // The code travels in the join's output position of its first column: follow it up
        // to the aggregate, noting the projections that pass it on.
        var passThrough: [ObjectIdentifier: Set<Int>] = [:]
        var carriers: [Set<Int>] = []
        for (depth, j) in joinAtDepth.sorted(by: { $0.value < $1.value }) {
            let node = path[depth]
            var at: Set<Int> = [node.children[0].types.count + joins[j].columns[0]]
            for d in stride(from: depth - 1, through: 0, by: -1) {
                guard case .project(let exprs) = path[d].kind else { continue }
                var up = Set<Int>()
                for (e, x) in exprs.enumerated() {
                    if case .column(let i, _) = x, at.contains(i) { up.insert(e) }
                }
                passThrough[ObjectIdentifier(path[d]), default: []].formUnion(up)
                at = up
            }
            carriers.append(at)
        }

        var codedGroups: [Int] = [], codedTypes: [DataType] = [], sources: [Source] = []
        var codeKey: [Int: Int] = [:]
        for (k, g) in groups.enumerated() {
            guard let (j, c) = keyColumn[k] else {
                sources.append(.key(codedGroups.count))
                codedGroups.append(g)
                codedTypes.append(types[g])
                continue
            }
            if let key = codeKey[j] {
                sources.append(.coded(join: j, key: key, column: c))
                continue
            }
            // The first key of a join's columns is its first column: its position carries the code.
            guard c == 0, carriers[j].contains(g) else { return nil }
            codeKey[j] = codedGroups.count
            sources.append(.coded(join: j, key: codedGroups.count, column: c))
            codedGroups.append(g)
            codedTypes.append(.bigint)
        }
        return GroupKeyCoding(joins: joins, groups: codedGroups, groupTypes: codedTypes, sources: sources,
                              passThrough: passThrough)
    }
}
