// SPDX-License-Identifier: Apache-2.0
import SlicehouseSQL

/// Statements short enough to run on the thread that received them: the server's event
/// loop answers a `select 1` itself instead of handing it to a statement thread and the
/// rows back (two thread wake-ups, each costing more than the statement).
///
/// A statement is short when its text was parsed before (`ParseCache`), it is one SELECT,
/// and the plan cache holds its plan for this session, values and catalog revision with
/// `PlanCache.isShort`: a plan that reads no table — so it waits for no lock, WLM slot or
/// slice — and whose last run took at most `PlanCache.shortRunMicros` (a kept plan is
/// deterministic, so its next run does the same work). A statement's first run is never
/// short: it is parsed, planned and timed on a statement thread. Nothing else changes:
/// the statement runs through `Session.run` as any other, logged in STL_QUERY, shown in
/// STV_INFLIGHT while it runs and cancellable, under the session user's privileges.
///
/// The caller's stack is the thread's own (not `LargeStack`'s), which is why the text's
/// length is bounded: a kept plan's trees are no taller than its text is long.
public struct ShortStatements {
    let session: Session

    /// Texts longer than this (UTF-8 bytes) are not short.
    public static let maxTextBytes = 1024

    /// A statement found short, with the plan cache key it was found under (its run's
    /// lookup takes that key rather than hash the query's tree a second time).
    public struct Found {
        public let statement: ParsedStatement
        let key: PlanCache.Hashed
    }

    public init(_ session: Session) { self.session = session }

    /// `sql` as the one short statement it is, or nil (then it runs as usual: parsed,
    /// planned and run on a thread with a large stack). Looks only; nothing is parsed,
    /// planned or run.
    public func statement(_ sql: String) -> Found? {
        guard sql.utf8.count <= Self.maxTextBytes,
              let parsed = session.database.parseCache.cached(sql, options: session.parseOptions),
              parsed.count == 1 else { return nil }
        return find(parsed[0])
    }

    /// `statement` (with the values bound to it) when it is short now, else nil.
    public func find(_ statement: ParsedStatement) -> Found? {
        guard case .query(let q) = statement.statement, Self.hasNoFromClause(q),
              statement.text.utf8.count <= Self.maxTextBytes, !session.isTerminated else { return nil }
        // The revision the statement's transaction will read: the latest committed one
        // outside a block; in a block, its snapshot's (once taken: looking must not take it).
        let revision: UInt64?
        if session.inTransactionBlock {
            revision = session.transaction.hasSnapshot ? session.transaction.catalogRevision : nil
        } else {
            revision = session.database.store.currentCatalogRevision
        }
        guard let revision,
              let key = QueryRunner.planCacheKey(q, parameters: statement.parameters, session: session) else { return nil }
        let hashed = PlanCache.Hashed(key)
        guard let entry = session.database.planCache.peek(hashed, revision: revision),
              session.database.planCache.isShort(entry) else { return nil }
        return Found(statement: statement, key: hashed)
    }

    /// Whether `q` is a select list or VALUES with no FROM and no WITH: only such a query can
    /// have a plan that reads no table, and telling so costs no look into the plan cache (a
    /// statement that reads a table — most — is turned away without hashing its tree).
    static func hasNoFromClause(_ q: Query) -> Bool {
        guard q.with == nil else { return false }
        switch q.body {
        case .select(let s): return s.from.isEmpty
        case .values: return true
        case .setOperation, .nested: return false
        }
    }

    /// Run `found` on this thread, its rows to `sink`: `Session.run`'s work without the
    /// large-stack thread. (Should the plan have gone meanwhile — another session's DDL —
    /// the statement is planned here as any other.)
    public func run(_ found: Found, sink: RowSink?) throws -> StatementResult {
        session.shortStatementKey = found.key
        defer { session.shortStatementKey = nil }
        return try session.withParameters(found.statement.parameters) {
            try session.run(found.statement.statement, text: found.statement.text, sink: sink)
        }
    }
}
