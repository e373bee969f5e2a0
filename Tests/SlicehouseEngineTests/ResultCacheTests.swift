// SPDX-License-Identifier: Apache-2.0
import XCTest
@testable import SlicehouseEngine
import SlicehouseSQL
import SlicehouseTypes

/// The leader's result cache where SQL files cannot reach: its memory bound and what it
/// drops first, rows streamed to a client, a client's bound parameters, sessions sharing
/// it. (What it answers, and when it is invalidated, is runtime/result_cache.test.)
final class ResultCacheTests: XCTestCase {
    func rows(_ s: Session, _ sql: String) throws -> [[String?]] {
        try s.execute(sql).last?.textRows() ?? []
    }

    /// Whether the last query of `s` was answered from the cache (SVL_QLOG.source_query).
    func servedFromCache(_ s: Session) throws -> Bool {
        try rows(s, "select count(source_query) from svl_qlog where query = pg_last_query_id()") == [["1"]]
    }

    func database(capacity: Int? = nil) throws -> (Database, Session) {
        let db = try Database()
        if let capacity { db.resultCacheBytes = capacity }
        let s = db.connect()
        _ = try s.execute("create table t (a int, b varchar(100))")
        _ = try s.execute("insert into t values (1, repeat('x', 100))")
        // 4,096 rows, a from 1 to 4096.
        for _ in 0..<12 { _ = try s.execute("insert into t select a + (select max(a) from t), b from t") }
        return (db, s)
    }

    func testTheCacheStaysWithinItsCapacityAndKeepsNoResultLargerThanAQuarterOfIt() throws {
        let (db, s) = try database(capacity: 64 << 10)
        let count = try rows(s, "select count(*) from t").first?.first ?? nil
        XCTAssertEqual(count, "4096")
        // Each result holds a few rows of 100 bytes and more: many do not fit at once.
        for n in 0..<60 {
            _ = try rows(s, "select a, b from t where a % 60 = \(n)")
            XCTAssertLessThanOrEqual(db.resultCache.usage.bytes, 64 << 10, "after query \(n)")
        }
        XCTAssertGreaterThan(db.resultCache.usage.entries, 1)
        XCTAssertLessThan(db.resultCache.usage.entries, 60)
        // Every row at once is more than a quarter of 64 KB: it runs every time.
        let before = db.resultCache.usage
        _ = try rows(s, "select a, b from t")
        _ = try rows(s, "select a, b from t")
        XCTAssertFalse(try servedFromCache(s))
        XCTAssertEqual(db.resultCache.usage.entries, before.entries)
    }

    func testTheLeastRecentlyUsedResultIsDroppedFirst() throws {
        let (_, s) = try database(capacity: 64 << 10)
        let favourite = "select a, b from t where a % 60 = 59"
        let first = try rows(s, favourite)
        for n in 0..<40 {
            _ = try rows(s, "select a, b from t where a % 60 = \(n)")
            XCTAssertEqual(try rows(s, favourite), first)
            XCTAssertTrue(try servedFromCache(s), "after query \(n)")
        }
        // The first of the others was dropped long ago.
        _ = try rows(s, "select a, b from t where a % 60 = 0")
        XCTAssertFalse(try servedFromCache(s))
    }

    func testACommitDropsTheEntriesOfTheTablesItChanged() throws {
        let (db, s) = try database()
        _ = try s.execute("create table u (a int)")
        _ = try s.execute("insert into u values (1)")
        _ = try rows(s, "select count(*) from t")
        _ = try rows(s, "select max(a) from t")
        _ = try rows(s, "select count(*) from u")
        XCTAssertEqual(db.resultCache.usage.entries, 3)
        _ = try s.execute("insert into t values (0, 'y')")
        // The next result stored sweeps out the two that read t.
        _ = try rows(s, "select min(a) from u")
        XCTAssertEqual(db.resultCache.usage.entries, 2)
        XCTAssertEqual(try rows(s, "select count(*) from u"), [["1"]])
        XCTAssertTrue(try servedFromCache(s))
    }

    final class Collector: RowSink {
        var columns: [ResultColumn] = []
        var chunks: [Chunk] = []
        func start(_ columns: [ResultColumn]) throws { self.columns = columns }
        func rows(_ chunk: Chunk) throws { chunks.append(chunk) }
        var text: [[String?]] {
            var r = StatementResult(tag: "", columns: columns, chunks: chunks)
            r.streamed = false
            return r.textRows()
        }
    }

    /// A server streams rows to its client: the streamed rows are kept and streamed again.
    func testStreamedRowsAreKeptAndStreamedAgain() throws {
        let (_, s) = try database()
        let sql = "select a, b from t where a < 20 order by a"
        guard let statement = try s.parse(sql).first else { return XCTFail("no statement") }
        let first = Collector(), second = Collector()
        let r1 = try s.run(statement, sink: first)
        XCTAssertFalse(try servedFromCache(s))
        let r2 = try s.run(statement, sink: second)
        XCTAssertTrue(try servedFromCache(s))
        XCTAssertEqual(r1.tag, r2.tag)
        XCTAssertEqual(first.columns.map(\.name), second.columns.map(\.name))
        XCTAssertEqual(first.text.count, 19)
        XCTAssertEqual(first.text, second.text)
    }

    /// The extended protocol's parameters are part of the query: other values, other rows.
    func testBoundParametersArePartOfTheKey() throws {
        let (_, s) = try database()
        let sql = "select count(*) from t where a < $1"
        func run(_ value: String) throws -> [[String?]] {
            guard let st = try s.parse(sql, parameters: [ParameterValue(text: value, type: .integer)]).first else { return [] }
            return try s.run(st, sink: nil).textRows()
        }
        XCTAssertEqual(try run("10"), [["9"]])
        XCTAssertEqual(try run("20"), [["19"]])
        XCTAssertFalse(try servedFromCache(s))
        XCTAssertEqual(try run("10"), [["9"]])
        XCTAssertTrue(try servedFromCache(s))
    }

    /// Sessions share the cache; a session that turned it off neither reads nor fills it.
    func testSessionsShareTheCache() throws {
        let (db, s) = try database()
        let other = db.connect()
        _ = try rows(s, "select sum(a) from t")
        XCTAssertEqual(try rows(other, "select sum(a) from t"), try rows(s, "select sum(a) from t"))
        XCTAssertTrue(try servedFromCache(other))
        _ = try other.execute("set enable_result_cache_for_session to off")
        _ = try rows(other, "select sum(a) from t")
        XCTAssertFalse(try servedFromCache(other))
        let entries = db.resultCache.usage.entries
        _ = try rows(other, "select min(a) from t")
        XCTAssertEqual(db.resultCache.usage.entries, entries)
        _ = try rows(s, "select min(a) from t")
        XCTAssertFalse(try servedFromCache(s))
    }

    /// A cached answer takes a query id and the session's pg_last_query_id, but no WLM slot.
    func testACachedAnswerIsAQueryOutsideWLM() throws {
        let (_, s) = try database()
        _ = try rows(s, "select max(a) from t")
        _ = try rows(s, "select max(a) from t")
        let id = try rows(s, "select pg_last_query_id()")
        XCTAssertEqual(try rows(s, "select count(*) from stl_query where query = \(id[0][0] ?? "0")"), [["1"]])
        XCTAssertEqual(try rows(s, "select count(*) from stl_wlm_query where query = \(id[0][0] ?? "0")"), [["0"]])
    }

    /// Cached rows count in the database's memory pool, and queries short of memory take
    /// them back (the pool asks the cache to shrink).
    func testTheCacheCountsInTheMemoryPoolAndGivesWayToQueries() throws {
        let db = try Database(memoryBytes: 256 << 20)
        let s = db.connect()
        _ = try s.execute("create table t (a int, b varchar(100))")
        _ = try s.execute("insert into t select n, repeat('x', 100) from generate_series(1, 2000) n")
        let before = db.memory.usedBytes
        _ = try rows(s, "select a, b from t where a < 1000")
        let held = db.resultCache.usage.bytes
        XCTAssertGreaterThan(held, 100_000)
        XCTAssertGreaterThanOrEqual(db.memory.usedBytes - before, held)
        // A reservation of the whole limit makes the pool ask every cache back: this one empties.
        let limit = try XCTUnwrap(db.memory.limit)
        if db.memory.tryReserve(limit) { db.memory.release(limit) }
        XCTAssertEqual(db.resultCache.usage.entries, 0)
        XCTAssertEqual(db.resultCache.usage.bytes, 0)
        // Turned off for everyone, it gives back what it held.
        _ = try rows(s, "select a, b from t where a < 1000")
        XCTAssertGreaterThan(db.resultCache.usage.bytes, 0)
        let usedWithCache = db.memory.usedBytes
        db.resultCacheBytes = 0
        XCTAssertEqual(db.resultCache.usage.bytes, 0)
        XCTAssertLessThan(db.memory.usedBytes, usedWithCache)
    }
}
