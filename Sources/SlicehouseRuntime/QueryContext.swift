// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehousePlatform

/// Everything the runtime tracks for one running statement: how to stop it, how much
/// memory it may hold and where it spills beyond that, how it competes for the worker
/// pool, and what each of its operators did.
///
/// The leader makes one per statement (a query, a COPY, an UNLOAD, a VACUUM) when WLM
/// admits it, and passes it explicitly — as DataFusion passes its `TaskContext` — to
/// everything the statement runs: the executor and its operators, the loaders, the
/// storage's appenders and vacuum, and every batch they start on the worker pool
/// (`parallelMap(_:context:_:)`). No parameter takes it optionally and nothing finds it
/// through the thread, so a statement's work is always budgeted, cancellable and
/// accounted as the statement's; work that belongs to no statement says so by naming
/// `QueryContext.system`.
public final class QueryContext: @unchecked Sendable {
    public let cancellation: Cancellation
    public let memory: QueryMemory
    public let spill: SpillSpace
    public let metrics: QueryMetrics
    private let lock = Lock()
    private var currentPriority: Int
    private var currentServiceClass: Int
    private var reservedQueryID: Int?

    public init(cancellation: Cancellation = .none, memory: QueryMemory = QueryMemory(budget: nil),
                spill: SpillSpace = .temporary, serviceClass: Int = 0, priority: Int = 0) {
        self.cancellation = cancellation
        self.memory = memory
        self.spill = spill
        currentServiceClass = serviceClass
        self.metrics = QueryMetrics()
        currentPriority = priority
    }

    /// Higher runs first on the worker pool (short query acceleration raises it).
    public var priority: Int {
        get { lock.withLock { currentPriority } }
        set { lock.withLock { currentPriority = newValue } }
    }

    /// The WLM service class (queue) the statement runs in: the scheduler shares the
    /// cores fairly among classes. WLM sets it when it admits the statement (a query is
    /// admitted once planned, after its context was made; a hop moves it).
    public var serviceClass: Int {
        get { lock.withLock { currentServiceClass } }
        set { lock.withLock { currentServiceClass = newValue } }
    }

    /// The query id WLM gave the statement when it admitted it; the first id the
    /// statement asks for is this one, so the system views agree on it.
    public func reserveQueryID(_ id: Int) { lock.withLock { reservedQueryID = id } }

    /// The reserved query id, once (nil after that, or when none was reserved).
    public func takeQueryID() -> Int? {
        lock.withLock {
            defer { reservedQueryID = nil }
            return reservedQueryID
        }
    }

    /// The context of work that belongs to no statement: the store's fsyncs at a commit
    /// (which must finish once begun), opening a data directory. Unbudgeted and never
    /// cancelled; named at each use so that a statement's work cannot fall into it.
    public static let system = QueryContext()
}
