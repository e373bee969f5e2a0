// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehouseCatalog
import SlicehouseStorage
import SlicehousePlan
import SlicehouseFunctions
import SlicehousePlatform

/// Runs a physical plan over the cluster's slices.
///
/// The plan is cut at its exchanges into stages. A stage runs as one pull-based
/// operator pipeline per partition (slice, or the leader), all partitions in
/// parallel on the worker pool; an exchange materializes its input stage's
/// output and re-partitions it (redistribute by hash, broadcast, gather) before
/// the stage above starts.
public final class QueryExecutor: @unchecked Sendable {
    public let layout: SliceLayout
    private let snapshots: [Int: TableSnapshot]
    private let lock = Lock()
    private let cache: BlockCache
    /// Block and row counters of every scan, per table id, for the query summary (STL_SCAN).
    public private(set) var counters: [Int: ScanCounters] = [:]
    /// The statement's runtime context: its cancellation (checked by every scan at each
    /// chunk, nested-loop join at each block of pairs, and exchange, so a cancelled
    /// statement stops within a chunk's work), its memory budget and spill space, its
    /// scheduling class, and the step metrics the operators report into.
    public let context: QueryContext
    public var cancellation: Cancellation { context.cancellation }
    /// What each step of this executor's plan did on each slice (the statement's running
    /// totals are in `context.metrics`).
    public let steps = QueryMetrics()
    /// Whether each step's rows, time and memory are recorded per slice (`steps`, and the
    /// statement's running totals). A query of constants, which Redshift runs on the leader
    /// alone, has no steps on the slices to record: it runs unmetered.
    public let metered: Bool
    /// Whether aggregates group text keys from joins' build sides by codes
    /// (`GroupKeyCoding`). On unless the environment sets `SLICEHOUSE_GROUP_KEY_CODING=off`
    /// (to time a query both ways in one build).
    public var groupKeyCoding = QueryExecutor.groupKeyCodingDefault
    public static let groupKeyCodingDefault = ProcessInfo.processInfo.environment["SLICEHOUSE_GROUP_KEY_CODING"] != "off"

    public init(layout: SliceLayout, snapshots: [Int: TableSnapshot], cache: BlockCache,
                context: QueryContext, metered: Bool = true) {
        self.layout = layout
        self.snapshots = snapshots
        self.cache = cache
        self.context = context
        self.metered = metered
    }

    /// The plan's nodes with their execution state, numbered as steps when metered.
    private func states(_ root: PhysicalNode) -> NodeState {
        NodeState.tree(root, steps: metered ? StepNumbering.number(root) : [:])
    }

    /// Execute `root`, handing its rows to `sink` as they are produced instead of
    /// collecting them: the last stage's partitions run in parallel and feed a bounded
    /// queue that `sink` drains on the calling thread, so a slow consumer (a client
    /// reading over the network) holds the producers back and memory stays a few
    /// chunks per slice. `sink` gets chunks without selection; when it throws, the
    /// producers stop and the error is rethrown.
    public func stream(_ root: PhysicalNode, into sink: (Chunk) throws -> Void) throws {
        _ = try streamPartitioned(root) { _, chunk in try sink(chunk) }
    }

    /// `stream`, telling `sink` which partition of the plan's last distributed stage made
    /// each chunk (UNLOAD ... PARALLEL ON writes one file set per slice). A plan that ends
    /// on the leader has one partition, 0. Returns the number of partitions.
    @discardableResult
    public func streamPartitioned(_ root: PhysicalNode, into sink: (Int, Chunk) throws -> Void) throws -> Int {
        var node = states(root)
        if case .exchange(.gather) = node.plan.kind, let child = node.children.first { node = child }
        if case .exchange = node.plan.kind {
            let parts = try runStage(node)
            for (p, part) in parts.enumerated() { for c in part where c.count > 0 { try sink(p, c.compacted()) } }
            return parts.count
        }
        try materializeExchanges(under: node)
        try cancellation.check()
        let n = partitionCount(node)
        if n == 1 {
            try runPipeline(node, partition: 0) { c in if c.count > 0 { try sink(0, c.compacted()) } }
            return 1
        }
        let queue = ChunkQueue(capacity: 2 * n)
        let stage = node
        let producers = ParallelCollector<Bool>(count: n)
        let finished = DispatchSemaphore(value: 0)
        // The producers run as a batch of their own on the pool while this thread drains
        // the queue; a producer waiting for room gives its core away (`blocking`).
        Scheduler.shared.start(n, context: context, { p in
            if producers.hasFailed { return }
            do {
                try self.runPipeline(stage, partition: p) { c in if c.count > 0 { try queue.push(c.compacted(), partition: p) } }
                producers.set(p, true)
            } catch {
                producers.fail(error)
                queue.finish(error)
            }
        }, finished: {
            queue.finish(nil)
            finished.signal()
        })
        do {
            while case let (p, c)? = try queue.pop() { try sink(p, c) }
        } catch {
            queue.finish(error)
            finished.wait()
            throw error
        }
        finished.wait()
        return n
    }

    /// Where each node of `root` runs among the query's steps: its stage and its step in
    /// the stage, as `steps` records them (EXPLAIN ANALYZE matches the two).
    public static func stepPositions(_ root: PhysicalNode) -> [ObjectIdentifier: (stage: Int, step: Int)] {
        StepNumbering.number(root).mapValues { ($0.stage, $0.step) }
    }

    /// Execute `root` and return its rows (gathered on the leader).
    public func run(_ root: PhysicalNode) throws -> [Chunk] {
        let parts = try runStage(states(root))
        return parts.flatMap { $0 }
    }

    /// Number of partitions a node's output has.
    func partitionCount(_ node: PhysicalNode) -> Int {
        node.distribution == .single ? 1 : layout.sliceCount
    }
    func partitionCount(_ node: NodeState) -> Int { partitionCount(node.plan) }

    /// Materialize every exchange below `node` (not below another exchange), then run
    /// `node`'s pipeline on each partition in parallel.
    func runStage(_ node: NodeState) throws -> [[Chunk]] {
        if case .exchange(let kind) = node.plan.kind, let input = node.children.first {
            return try materialized(node, kind, input).collect()
        }
        try materializeExchanges(under: node)
        let n = partitionCount(node)
        return try parallelMap(n, context: context) { p in
            var out: [Chunk] = []
            try self.runPipeline(node, partition: p) { out.append($0) }
            return out
        }
    }

    private func materializeExchanges(under node: NodeState) throws {
        for child in node.children {
            if case .exchange(let kind) = child.plan.kind, let input = child.children.first {
                _ = try materialized(child, kind, input)
            } else {
                try materializeExchanges(under: child)
            }
        }
    }

    /// The output of exchange `node`: its input stage run with every partition's chunks
    /// handed to the exchange's buffer as they are made (re-partitioned there, spilled
    /// beyond the statement's budget), once per query however many parents read it (a
    /// shared subplan has several).
    private func materialized(_ node: NodeState, _ kind: ExchangeKind, _ input: NodeState) throws -> ExchangeBuffer {
        if let done = node.exchangeBuffer { return done }
        let buffer = ExchangeBuffer(kind: kind, producers: partitionCount(input), targets: partitionCount(node),
                                    readers: max(1, node.readers), context: context)
        if case .exchange(let innerKind) = input.plan.kind, let below = input.children.first {
            // An exchange straight over another: re-partition the inner one's partitions.
            let inner = try materialized(input, innerKind, below)
            let readers = (0..<inner.targets).map { inner.reader(for: $0) }
            _ = try parallelMap(inner.targets, context: context) { p in
                while let c = try readers[p].next() { try buffer.add(c, from: p) }
            }
        } else {
            try materializeExchanges(under: input)
            _ = try parallelMap(partitionCount(input), context: context) { p in
                try self.runPipeline(input, partition: p) { try buffer.add($0, from: p) }
            }
        }
        try buffer.finish()
        try cancellation.check()
        if let id = node.step {
            // What each target partition received (a broadcast counts every copy), and the
            // time the producers spent handing their chunks to the exchange.
            let nanos = buffer.nanos / UInt64(max(1, buffer.targets))
            for p in 0..<buffer.targets {
                let r = buffer.received(by: p)
                steps.record(stage: id.stage, step: id.step, slice: node.plan.distribution == .single ? -1 : p,
                             label: id.label,
                             StepMetrics(rows: r.rows, bytes: r.bytes, nanos: nanos, peakMemory: r.memoryBytes,
                                         spilledBytes: r.spilledBytes))
            }
        }
        node.exchangeBuffer = buffer
        return buffer
    }

    /// Run `node`'s pipeline on partition `p`, handing each chunk to `consume`, and
    /// record what each step did there.
    private func runPipeline(_ node: NodeState, partition p: Int, _ consume: (Chunk) throws -> Void) throws {
        guard metered else {
            let op = try buildOperator(node, partition: p, filters: BuildScope(meters: nil))
            while let c = try op.next() { try consume(c) }
            return
        }
        let meters = PipelineMeters()
        // The meters hold every operator of the pipeline: let them go with it, whatever
        // happens (an operator keeps its hash table or groups until it is freed).
        defer { meters.clear() }
        let op = try buildOperator(node, partition: p, filters: BuildScope(meters: meters))
        while let c = try op.next() { try consume(c) }
        meters.report(into: steps, slice: node.plan.distribution == .single ? -1 : p)
    }

    /// What building a pipeline carries down the plan: the runtime filter slots of the
    /// hash joins above (by filter id) and the pipeline's step meters.
    struct BuildScope {
        var slots: [Int: RuntimeFilterSlot] = [:]
        let meters: PipelineMeters?
        /// The joins below an aggregate that hand it group keys as codes, by node, with
        /// the dictionary of this partition's pipeline (`GroupKeyCoding`).
        var codings: [ObjectIdentifier: BuildKeyDictionary] = [:]
        /// The projections on the way, by node: the output positions that carry a code.
        var passThrough: [ObjectIdentifier: Set<Int>] = [:]
        subscript(id: Int) -> RuntimeFilterSlot? {
            get { slots[id] }
            set { slots[id] = newValue }
        }
    }

    /// Build `node`'s operator for partition `p`, metered as a step when the pipeline is.
    /// `narrowed`: the output columns `node`'s consumer reads in either width of a wide
    /// DECIMAL (`ProjectOperator.narrowed`; only a projection uses it).
    private func buildOperator(_ state: NodeState, partition p: Int, filters: BuildScope,
                               narrowed: Set<Int> = []) throws -> Operator {
        let op = try buildStep(state, partition: p, filters: filters, narrowed: narrowed)
        guard let meters = filters.meters, let id = state.step else { return op }
        // An exchange's output read here is the step of the stage that produced it.
        if case .exchange = state.plan.kind { return op }
        let metered = MeteredOperator(input: op, node: state.plan, id: id, metrics: context.metrics)
        meters.add(metered)
        return metered
    }

    /// `filters`: the runtime filter slots of the hash joins above `node` in this
    /// partition's pipeline, by filter id. A join adds its own for its children; a scan
    /// takes the ones it is marked for. Only ancestors' slots are visible, so a scan never
    /// picks up the keys of a join it is not below.
    private func buildStep(_ state: NodeState, partition p: Int, filters: BuildScope,
                           narrowed: Set<Int>) throws -> Operator {
        let node = state.plan, children = state.children
        switch node.kind {
        case .scan(let table, let columns, let filter, let mode):
            guard let snap = snapshots[table.id] else {
                throw SQLError.internalError("no snapshot for table \(table.name)")
            }
            var parts: [(slice: Int, data: SliceData)] = []
            let all = snap.slices.enumerated().map { (slice: $0.offset, data: $0.element) }
            let onePerNode = snap.distribution == .all ? [all[0]] : all
            switch mode {
            case .perSlice:
                parts = [all[p]]
            case .replicated:
                if snap.distribution == .all {
                    parts = [all[layout.firstSlice(ofNode: layout.node(ofSlice: p))]]
                } else {
                    parts = all
                }
            case .oneCopy:
                if p == 0 { parts = onePerNode }
            case .leader:
                parts = onePerNode
            }
            let columns = columns.map { table.columns[$0].name == rowIDColumnName ? rowIDColumn : $0 }
            let types = columns.map { $0 == rowIDColumn ? DataType.bigint : table.columns[$0].type }
            let runtime = node.runtimeFilterTargets.compactMap { t in
                filters[t.id].map { (position: t.column, slot: $0) }
            }
            let predicates = ZonePredicates.extract(filter, columns: columns, types: types, nulls: true)
            // A filter that pins the distribution key to constants can only match rows on
            // those constants' slices: the other slices are not read at all.
            if case .key(let keyColumn) = snap.distribution, keyColumn < table.columns.count,
               let slices = ZonePredicates.keySlices(predicates, keyColumn: keyColumn, type: table.columns[keyColumn].type,
                                                     sliceCount: all.count) {
                parts = parts.filter { slices.contains($0.slice) }
            }
            let scanner = SliceScanner(parts: parts, columns: columns, types: types,
                                       predicates: predicates,
                                       encodedFilters: ZonePredicates.encodedFilters(filter, columns: columns),
                                       runtimeFilters: runtime, cache: cache)
            scanner.tableName = table.name
            scanner.columnNames = columns.map { $0 == rowIDColumn ? rowIDColumnName : table.columns[$0].name }
            let meters = filters.meters
            let scanNode = ObjectIdentifier(node)
            // Weak: the meters hold the pipeline's operators, this scan among them.
            let scan = ScanOperator(scanner: scanner, context: context) { [weak self, weak meters] c in
                meters?.scans[scanNode, default: ScanCounters()].add(c)
                guard let self else { return }
                self.lock.withLock { self.counters[table.id, default: ScanCounters()].add(c) }
            }
            if let filter { return FilterOperator(input: scan, predicate: filter) }
            return scan
        case .filter(let pred):
            return FilterOperator(input: try buildOperator(children[0], partition: p, filters: filters), predicate: pred)
        case .project(let exprs):
            return ProjectOperator(input: try buildOperator(children[0], partition: p, filters: filters), expressions: exprs,
                                   shared: state.sharedSubexpressions, narrowed: narrowed,
                                   passThrough: filters.passThrough[ObjectIdentifier(node)] ?? [])
        case .unnest(let array, let withPosition):
            return UnnestOperator(input: try buildOperator(children[0], partition: p, filters: filters),
                                  array: array, withPosition: withPosition,
                                  objects: withPosition && node.types.last?.isString == true)
        case .hashJoin(let kind, let probeKeys, let buildKeys, let residual, _, let nullAware):
            var published: [(buildKey: Int, slot: RuntimeFilterSlot)] = []
            var below = filters
            for spec in node.runtimeFilters {
                let slot = RuntimeFilterSlot()
                below[spec.id] = slot
                published.append((spec.buildKey, slot))
            }
            // The join's own slots are for its probe side; its build side is read before
            // they are filled (filters from joins above may reach it).
            let probe = try buildOperator(children[0], partition: p, filters: below)
            let build = try buildOperator(children[1], partition: p, filters: filters)
            return HashJoinOperator(kind: JoinKind(kind), probe: probe, build: build, probeKeys: probeKeys,
                                    buildKeys: buildKeys, residual: residual, buildTypes: node.children[1].types,
                                    probeTypes: node.children[0].types, nullAware: nullAware,
                                    runtimeFilters: published,
                                    shared: sharedBuild(state, kind: kind, scope: filters),
                                    readOutputs: node.readOutputs.isEmpty ? nil : node.readOutputs,
                                    coding: filters.codings[ObjectIdentifier(node)],
                                    context: context)
        case .nestedLoopJoin(let kind, let condition, _, let singleRow):
            let probe = try buildOperator(children[0], partition: p, filters: filters)
            let build = try buildOperator(children[1], partition: p, filters: filters)
            return NestedLoopJoinOperator(kind: kind, probe: probe, build: build, condition: condition, singleRow: singleRow,
                                          probeTypes: node.children[0].types, buildTypes: node.children[1].types,
                                          context: context)
        case .aggregate(let groups, let aggs, let phase):
            let mode: AggregateMode = phase == .single ? .single : (phase == .partial ? .partial : .final)
            // SUM/AVG arguments computed right below may come in 64 bits where they fit.
            let narrowable = HashAggregateOperator.narrowableArguments(groupColumns: groups, aggregates: aggs, mode: mode)
            // The rows one partition's operator reads and the groups it makes, as the
            // planner expects them.
            func perPartition(_ n: PhysicalNode) -> Double? {
                let x = n.rows / Double(max(1, partitionCount(n)))
                return x.isFinite && x > 0 ? x : nil
            }
            // Text keys from a join's build side are grouped by codes (`GroupKeyCoding`).
            if groupKeyCoding, let coding = state.groupKeyCoding {
                var below = filters
                let dictionaries = coding.joins.map { BuildKeyDictionary(columns: $0.columns, types: $0.types) }
                for (j, d) in zip(coding.joins, dictionaries) { below.codings[j.node] = d }
                below.passThrough.merge(coding.passThrough) { $0.union($1) }
                let input = try buildOperator(children[0], partition: p, filters: below, narrowed: narrowable)
                let aggregate = HashAggregateOperator(input: input, groupColumns: coding.groups, groupTypes: coding.groupTypes,
                                                      aggregates: aggs, mode: mode,
                                                      expectedRows: perPartition(node.children[0]),
                                                      expectedGroups: perPartition(node), context: context)
                return GroupKeyDecodeOperator(input: aggregate, coding: coding, dictionaries: dictionaries)
            }
            let input = try buildOperator(children[0], partition: p, filters: filters, narrowed: narrowable)
            let groupTypes = groups.map { node.children[0].types[$0] }
            return HashAggregateOperator(input: input, groupColumns: groups, groupTypes: groupTypes,
                                         aggregates: aggs, mode: mode,
                                         expectedRows: perPartition(node.children[0]), expectedGroups: perPartition(node),
                                         context: context)
        case .window(let partition, let order, let functions):
            let input = try buildOperator(children[0], partition: p, filters: filters)
            return WindowOperator(input: input, inputTypes: node.children[0].types, partitionColumns: partition,
                                  orderKeys: order.map { SortKey(column: $0.column, ascending: $0.ascending, nullsFirst: $0.nullsFirst) },
                                  functions: functions, context: context)
        case .sort(let keys, let limit, let offset):
            let input = try buildOperator(children[0], partition: p, filters: filters)
            return SortOperator(input: input, keys: keys.map { SortKey(column: $0.column, ascending: $0.ascending, nullsFirst: $0.nullsFirst) },
                                limit: limit, offset: offset, context: context)
        case .limit(let limit, let offset):
            return LimitOperator(input: try buildOperator(children[0], partition: p, filters: filters), limit: limit, offset: offset)
        case .exchange:
            guard let buffer = state.exchangeBuffer else {
                throw SQLError.internalError("exchange read before it ran")
            }
            return buffer.reader(for: p)
        case .unionAll:
            return ConcatOperator(inputs: try children.map { try buildOperator($0, partition: p, filters: filters) })
        case .setOperation(let kind, let all):
            let l = try buildOperator(children[0], partition: p, filters: filters)
            let r = try buildOperator(children[1], partition: p, filters: filters)
            switch kind {
            case .intersect:
                return SetOperationOperator(kind: .intersect, all: all, left: l, right: r, types: node.types)
            case .except:
                return SetOperationOperator(kind: .except, all: all, left: l, right: r, types: node.types)
            case .union:
                throw SQLError.internalError("UNION is planned as UNION ALL + DISTINCT")
            }
        case .values(let rows):
            if p != 0 && node.distribution != .single { return ChunkSource([]) }
            var cols = node.types.map { Vector(type: $0, capacity: rows.count) }
            for row in rows { for (i, v) in row.enumerated() { cols[i].append(v) } }
            return ChunkSource([Chunk(columns: cols, count: rows.count)])
        }
    }
}

extension QueryExecutor {
    /// The table shared by every partition's join of `state`, when its build side is the
    /// same rows in every partition and the join never marks build rows; else nil.
    func sharedBuild(_ state: NodeState, kind: PhysicalJoinKind, scope: BuildScope) -> SharedHashBuild? {
        let node = state.plan
        guard partitionCount(node) > 1, node.children.count == 2 else { return nil }
        switch kind {
        case .inner, .left, .semi, .anti: break
        case .right, .full, .rightSemi, .rightAnti: return nil
        }
        guard Self.sameInEveryPartition(node.children[1], scope: scope) else { return nil }
        let (users, memory) = (partitionCount(node), context.memory)
        return state.sharedBuild { SharedHashBuild(users: users, memory: memory) }
    }

    /// Whether `node` yields the same rows in every partition: a broadcast, or a scan of
    /// every slice's rows (or of an ALL table's copy), under filters and projections.
    /// A scan a runtime filter of this pipeline reaches, or one yielding row ids (they
    /// name the slice's own copy), does not.
    static func sameInEveryPartition(_ node: PhysicalNode, scope: BuildScope) -> Bool {
        switch node.kind {
        case .exchange(.broadcast):
            return true
        case .filter, .project:
            return node.children.count == 1 && sameInEveryPartition(node.children[0], scope: scope)
        case .scan(let table, let columns, _, .replicated):
            return !columns.contains { $0 >= 0 && $0 < table.columns.count && table.columns[$0].name == rowIDColumnName }
                && !node.runtimeFilterTargets.contains { scope[$0.id] != nil }
        default:
            return false
        }
    }
}

extension JoinKind {
    init(_ k: PhysicalJoinKind) {
        switch k {
        case .inner: self = .inner
        case .left: self = .left
        case .right: self = .right
        case .full: self = .full
        case .semi: self = .semi
        case .anti: self = .anti
        case .rightSemi: self = .rightSemi
        case .rightAnti: self = .rightAnti
        }
    }
}

/// Concatenates several inputs (UNION ALL).
final class ConcatOperator: Operator {
    private let inputs: [Operator]
    private var index = 0
    init(inputs: [Operator]) { self.inputs = inputs }
    func next() throws -> Chunk? {
        while index < inputs.count {
            if let c = try inputs[index].next() { return c }
            index += 1
        }
        return nil
    }
}

/// A bounded queue of chunks between a stage's producer partitions and the consumer
/// that streams them out. `push` blocks while the queue is full; `finish` ends it
/// (with an error, everything waiting wakes and throws it).
final class ChunkQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [(partition: Int, chunk: Chunk)] = []
    private var head = 0
    private let capacity: Int
    private var finished = false
    private var failure: Error?

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func push(_ c: Chunk, partition: Int) throws {
        condition.lock(); defer { condition.unlock() }
        if items.count - head >= capacity && !finished {
            // Waiting for the consumer (a client reading over the network): not on a core.
            Scheduler.shared.blocking {
                while items.count - head >= capacity && !finished { condition.wait() }
            }
        }
        if let failure { throw failure }
        if finished { throw SQLError.internalError("result queue closed") }
        items.append((partition, c))
        condition.broadcast()
    }

    /// The next chunk and the partition that made it, nil at the end; throws the
    /// producers' error.
    func pop() throws -> (Int, Chunk)? {
        condition.lock(); defer { condition.unlock() }
        while head == items.count && !finished { condition.wait() }
        if let failure { throw failure }
        if head == items.count { return nil }
        let c = items[head]
        items[head] = (0, Chunk(columns: [], count: 0))
        head += 1
        if head > 64 && head * 2 > items.count { items.removeFirst(head); head = 0 }
        condition.broadcast()
        return c
    }

    func finish(_ error: Error?) {
        condition.lock(); defer { condition.unlock() }
        if finished { return }
        finished = true
        failure = error
        condition.broadcast()
    }
}

/// One plan node's shared state for one run of the plan (DuckDB's global operator
/// state): made for every node before any pipeline starts, and handed to every
/// partition's pipeline of the node. What is fixed is fixed at creation (the node's step,
/// how many parents read an exchange, a projection's recurring subexpressions); what a
/// run makes once for all partitions (an exchange's buffer, a join's shared hash table)
/// is made under the state's lock. A subplan shared by several parents has one state.
final class NodeState: @unchecked Sendable {
    let plan: PhysicalNode
    let children: [NodeState]
    /// The node's stage, step and label in the statement's metrics.
    let step: StepID?
    /// Exchanges: how many pipelines of each partition read it (its parents in the plan).
    /// The last one takes the exchange's references to the chunks, so they are freed as
    /// the readers consume them.
    let readers: Int
    /// Projections: the recurring subexpressions of the list, found once for all
    /// partitions (`ExpressionEvaluator.sharedSubexpressions`).
    let sharedSubexpressions: [BoundExpr]
    /// Aggregates: the group keys coded through joins below, found once for all
    /// partitions (`GroupKeyCoding.plan`); nil when none is.
    let groupKeyCoding: GroupKeyCoding?
    private let lock = Lock()
    private var buffer: ExchangeBuffer?
    private var build: SharedHashBuild?

    private init(plan: PhysicalNode, children: [NodeState], step: StepID?, readers: Int) {
        self.plan = plan; self.children = children; self.step = step; self.readers = readers
        if case .project(let exprs) = plan.kind {
            sharedSubexpressions = ExpressionEvaluator.sharedSubexpressions(exprs)
        } else {
            sharedSubexpressions = []
        }
        groupKeyCoding = GroupKeyCoding.plan(plan)
    }

    /// The states of `root`'s plan, shaped as the plan (shared subplans shared).
    static func tree(_ root: PhysicalNode, steps: [ObjectIdentifier: StepID]) -> NodeState {
        var readers: [ObjectIdentifier: Int] = [:]
        var visited = Set<ObjectIdentifier>()
        func count(_ n: PhysicalNode) {
            for c in n.children {
                readers[ObjectIdentifier(c), default: 0] += 1
                if visited.insert(ObjectIdentifier(c)).inserted { count(c) }
            }
        }
        count(root)
        var made: [ObjectIdentifier: NodeState] = [:]
        func make(_ n: PhysicalNode) -> NodeState {
            let id = ObjectIdentifier(n)
            if let m = made[id] { return m }
            let state = NodeState(plan: n, children: n.children.map(make), step: steps[id], readers: readers[id] ?? 0)
            made[id] = state
            return state
        }
        return make(root)
    }

    /// Exchanges: the buffer the input stage filled (nil until it has run).
    var exchangeBuffer: ExchangeBuffer? {
        get { lock.withLock { buffer } }
        set { lock.withLock { buffer = newValue } }
    }

    /// Hash joins: the table every partition shares, made by the first to ask.
    func sharedBuild(_ make: () -> SharedHashBuild) -> SharedHashBuild {
        lock.withLock {
            if let b = build { return b }
            let b = make()
            build = b
            return b
        }
    }
}
