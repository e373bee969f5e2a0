// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseRuntime
import SlicehousePlatform

/// Short query acceleration's guess at whether a query will be short.
///
/// Two sources, as Redshift's SQA has: the plan's estimated cost (rows read by scans
/// plus rows every other step produces), and how long earlier queries of the same shape
/// — the same text with its constants blanked out — took. History wins when there is
/// some: a shape that ran under half the SQA limit on average is short, whatever its plan
/// says; without history a plan under `costLimit` is short.
public final class ShortQueryPredictor: @unchecked Sendable {
    public struct Prediction: Sendable, Equatable {
        public var isShort: Bool
        /// "history" or "plan" (what decided).
        public var source: String
        /// The shape's average execution time in milliseconds, when there was history.
        public var averageMilliseconds: Double?
        /// The shape's shortest execution time in milliseconds, when there was history:
        /// what it takes without contention (the average grows with the load).
        public var minimumMilliseconds: Double? = nil
        public var estimatedCost: Double
    }

    /// Plans estimated under this many rows (read and produced) are predicted short.
    public var costLimit: Double {
        get { lock.withLock { limit } }
        set { lock.withLock { limit = newValue } }
    }

    private let lock = Lock()
    private var limit: Double = 1_000_000
    /// Average execution time (ms, exponentially weighted) and run count by shape.
    private var history: [String: (average: Double, runs: Int, minimum: Double)] = [:]
    /// Shapes kept at most (the oldest half goes when full: a bound, not an LRU).
    static let maxShapes = 4_096
    private var order: [String] = []

    public init() {}

    public func predict(shape: String?, estimatedCost: Double, shortLimitMilliseconds: Int) -> Prediction {
        lock.withLock {
            if let shape, let h = history[shape] {
                return Prediction(isShort: h.average < Double(shortLimitMilliseconds) / 2, source: "history",
                                  averageMilliseconds: h.average, minimumMilliseconds: h.minimum, estimatedCost: estimatedCost)
            }
            return Prediction(isShort: estimatedCost < limit, source: "plan", averageMilliseconds: nil,
                              estimatedCost: estimatedCost)
        }
    }

    /// A query of `shape` ran for `milliseconds` (or, moved out of SQA, at least that long).
    public func record(shape: String, milliseconds: Double) {
        lock.withLock {
            if let h = history[shape] {
                history[shape] = (h.average * 0.7 + milliseconds * 0.3, h.runs + 1, min(h.minimum, milliseconds))
                return
            }
            if order.count >= Self.maxShapes {
                for s in order.prefix(Self.maxShapes / 2) { history[s] = nil }
                order.removeFirst(Self.maxShapes / 2)
            }
            history[shape] = (milliseconds, 1, milliseconds)
            order.append(shape)
        }
    }

    /// Forget everything (tests).
    public func reset() { lock.withLock { history = [:]; order = [] } }
}
