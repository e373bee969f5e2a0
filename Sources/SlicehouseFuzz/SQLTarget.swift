// SPDX-License-Identifier: Apache-2.0
import SlicehouseBench
import SlicehouseEngine
import SlicehouseSQL
import SlicehouseTypes
import SlicehousePlatform

/// `sql`: the input as UTF-8 SQL text through the lexer and parser
/// (`parseScript`), and, when it parses, every statement through the binder, planner
/// and executor of an in-memory database holding a few small tables (a table of every
/// column type with NULLs, a DISTSTYLE ALL table, an EVEN one, a view, and TPC-H's
/// eight tables with a handful of rows each).
///
/// Bounds: inputs over 4 KB are ignored and at most 8 statements of an input run.
/// COPY and UNLOAD are parsed but not run (they read and write files; the COPY
/// parsers have targets of their own). Each input sees the same state: after an
/// input that changed the data or the catalog the database is built again, and after
/// one that changed session settings the session is replaced.
enum SQLFuzzTarget {
    static let maxLength = 4096
    static let maxStatements = 8

    static let target = FuzzTarget(
        name: "sql",
        summary: "SQL text: lexer, parser, binder, planner, execution (in-memory database)",
        maxLength: maxLength,
        dictionary: dictionary,
        // TPC-H's 22 queries, as the benchmark runs them (datasets/tpch/queries).
        seeds: { (1...22).compactMap { TPCHText.query($0) }.map { Array($0.utf8) } },
        body: { bytes in state.run(bytes) })

    /// The database and session shared by every input of the process.
    static let state = SQLFuzzState()

    /// SQL tokens for the mutator: keywords, operators, literals, functions, the fuzz
    /// tables' names and columns.
    static let dictionary: [String] = [
        "SELECT", "FROM", "WHERE", "GROUP BY", "HAVING", "ORDER BY", "LIMIT", "OFFSET", "TOP", "DISTINCT", "ALL",
        "UNION", "UNION ALL", "INTERSECT", "EXCEPT", "MINUS", "WITH", "WITH RECURSIVE", "x AS (SELECT", "AS", "JOIN",
        "LEFT JOIN", "RIGHT JOIN", "FULL OUTER JOIN", "CROSS JOIN", "NATURAL JOIN", "ON", "USING", "LATERAL", "EXISTS",
        "IN", "NOT", "AND", "OR",
        "IS NULL", "IS NOT NULL", "IS DISTINCT FROM", "BETWEEN", "LIKE", "ILIKE", "SIMILAR TO", "ESCAPE", "CASE",
        "WHEN", "THEN", "ELSE", "END", "CAST(", "::", "OVER (", "PARTITION BY", "ROWS BETWEEN", "UNBOUNDED PRECEDING",
        "CURRENT ROW", "FOLLOWING", "NULLS FIRST", "NULLS LAST", "DESC", "ASC", "VALUES", "INSERT INTO", "UPDATE",
        "SET", "DELETE FROM", "CREATE TABLE", "CREATE TEMP TABLE", "DROP TABLE", "CREATE VIEW", "TRUNCATE", "EXPLAIN",
        "ANALYZE", "VACUUM", "SHOW", "DISTKEY", "SORTKEY", "DISTSTYLE", "ENCODE", "IDENTITY(1,1)", "DEFAULT",
        "NOT NULL", "PRIMARY KEY", "INTERVAL", "DATE", "TIMESTAMP", "DECIMAL(38,10)", "NUMERIC(5,2)", "VARCHAR(3)",
        "CHAR(2)", "SMALLINT", "INTEGER", "BIGINT", "REAL", "DOUBLE PRECISION", "BOOLEAN", "TEXT", "TRUE", "FALSE",
        "NULL", "count(*)", "sum(", "avg(", "min(", "max(", "stddev(", "median(", "listagg(", "percentile_cont(",
        "WITHIN GROUP (", "row_number()", "rank()", "lag(", "lead(", "first_value(", "ntile(", "coalesce(", "nullif(",
        "nvl(", "decode(", "greatest(", "least(", "substring(", "position(", "trim(", "upper(", "lower(", "length(",
        "concat(", "||", "replace(", "split_part(", "regexp_replace(", "to_char(", "to_date(", "date_trunc(",
        "extract(", "dateadd(", "datediff(", "round(", "trunc(", "abs(", "mod(", "power(", "sqrt(", "ln(", "exp(",
        "floor(", "ceil(", "random()", "getdate()", "sysdate", "current_date", "(", ")", ",", ";", "*", "+", "-", "/",
        "%", "=", "<>", "!=", "<", "<=", ">", ">=", "^", "|/", "~", "'", "\"", "$1", "--", "/*", "*/", "'a''b'",
        "E'\\n'", "1e308", "-9223372036854775808", "99999999999999999999999999999999999999", "0.0001", "'NaN'",
        "'infinity'", "'2024-02-29'", "'9999-12-31 23:59:59.999999'", "'4713-01-01 BC'", "t", "s", "e", "v", "a", "b",
        "c", "d", "f", "g", "h", "i", "j", "k", "x", "y", "lineitem", "orders", "customer", "nation", "region", "part",
        "supplier", "partsupp", "l_orderkey", "l_shipdate", "l_extendedprice", "o_orderdate", "o_custkey",
        "c_custkey", "n_name", "stv_slices", "pg_table_def", "svv_table_info", "ANY (", "ALL (", "FILTER (WHERE",
        "ROLLUP(", "ALTER TABLE", "ADD COLUMN", "INTERLEAVED", "json_extract_path_text(", "regexp_substr(",
        "convert_timezone(", "nth_value(", "ratio_to_report(", "generate_series(",
        "json_parse(", "json_serialize(", "'{\"a\":[1,{\"b\":null}]}'", ".a", "[0]", "super", "interval '1 day'",
        "timestamptz", "time", "timetz", "varbyte", "to_varbyte(", "hll_create_sketch(", "hll_cardinality(", " AT i",
        "CALL ", "CREATE PROCEDURE p() AS $$ BEGIN", " END; $$ LANGUAGE plpgsql", "RAISE INFO", "LOOP", "EXECUTE",
    ]

    /// Statements that build the fuzz database (run again after an input changes it).
    static let setup: [String] = [
        """
        CREATE TABLE t (a integer, b varchar(20), c decimal(10,2), d date, e boolean, f double precision,
          g timestamp, h char(3), i bigint, j smallint, k real, l decimal(38,6)) DISTKEY(a) SORTKEY(d)
        """,
        """
        INSERT INTO t VALUES
          (1, 'one', 1.50, '2024-01-01', true, 1.5, '2024-01-01 10:00:00', 'abc', 10000000000, 1, 1.25, 12345678901234567890.123456),
          (2, 'two', -2.25, '1999-12-31', false, -0.0, '1999-12-31 23:59:59.5', 'x', -1, -2, 2.5, -1),
          (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          (4, '', 0, '2000-02-29', true, 1e300, '2000-02-29 00:00:00', '', 0, 32767, -0.5, 0.000001),
          (NULL, 'dup', 1.50, '2024-01-01', NULL, 3.0, NULL, 'abc', 9223372036854775807, -32768, 3.25, 5)
        """,
        "CREATE TABLE s (k integer, v varchar(10) ENCODE bytedict) DISTSTYLE ALL SORTKEY(k)",
        "INSERT INTO s VALUES (1, 'a'), (2, 'b'), (2, 'bb'), (NULL, 'n'), (5, NULL)",
        "CREATE TABLE e (x integer ENCODE runlength, y varchar(5)) DISTSTYLE EVEN",
        "INSERT INTO e VALUES (1, 'p'), (1, 'p'), (1, 'q'), (7, NULL)",
        "CREATE VIEW v AS SELECT a, b, c FROM t WHERE a > 1",
        "CREATE TABLE region (r_regionkey integer NOT NULL, r_name char(25) NOT NULL, r_comment varchar(152)) DISTSTYLE ALL",
        "INSERT INTO region VALUES (0, 'AFRICA', 'x'), (1, 'AMERICA', 'y'), (3, 'EUROPE', NULL)",
        """
        CREATE TABLE nation (n_nationkey integer NOT NULL, n_name char(25) NOT NULL, n_regionkey integer NOT NULL,
          n_comment varchar(152)) DISTSTYLE ALL
        """,
        "INSERT INTO nation VALUES (0, 'ALGERIA', 0, 'c'), (1, 'ARGENTINA', 1, 'd'), (6, 'FRANCE', 3, NULL), (7, 'GERMANY', 3, 'g')",
        """
        CREATE TABLE supplier (s_suppkey integer NOT NULL, s_name char(25) NOT NULL, s_address varchar(40) NOT NULL,
          s_nationkey integer NOT NULL, s_phone char(15) NOT NULL, s_acctbal decimal(15,2) NOT NULL,
          s_comment varchar(101) NOT NULL) DISTSTYLE ALL
        """,
        """
        INSERT INTO supplier VALUES (1, 'Supplier#1', 'addr', 6, '16-111-111-1111', 100.50, 'Customer Complaints'),
          (2, 'Supplier#2', 'addr2', 7, '17-222-222-2222', -10.00, 'ok')
        """,
        """
        CREATE TABLE customer (c_custkey integer NOT NULL, c_name varchar(25) NOT NULL, c_address varchar(40) NOT NULL,
          c_nationkey integer NOT NULL, c_phone char(15) NOT NULL, c_acctbal decimal(15,2) NOT NULL,
          c_mktsegment char(10) NOT NULL, c_comment varchar(117) NOT NULL) DISTKEY(c_custkey)
        """,
        """
        INSERT INTO customer VALUES (1, 'Customer#1', 'a', 6, '16-123-456-7890', 711.56, 'BUILDING', 'x'),
          (2, 'Customer#2', 'b', 1, '11-123-456-7890', -50.00, 'MACHINERY', 'special requests'),
          (3, 'Customer#3', 'c', 0, '10-123-456-7890', 5000.00, 'AUTOMOBILE', 'y')
        """,
        """
        CREATE TABLE part (p_partkey integer NOT NULL, p_name varchar(55) NOT NULL, p_mfgr char(25) NOT NULL,
          p_brand char(10) NOT NULL, p_type varchar(25) NOT NULL, p_size integer NOT NULL, p_container char(10) NOT NULL,
          p_retailprice decimal(15,2) NOT NULL, p_comment varchar(23) NOT NULL) DISTKEY(p_partkey)
        """,
        """
        INSERT INTO part VALUES (1, 'forest green', 'Manufacturer#1', 'Brand#12', 'PROMO BRUSHED COPPER', 15, 'SM BOX', 901.00, 'c'),
          (2, 'blush thistle', 'Manufacturer#2', 'Brand#23', 'LARGE POLISHED BRASS', 49, 'MED BAG', 902.00, 'd')
        """,
        """
        CREATE TABLE partsupp (ps_partkey integer NOT NULL, ps_suppkey integer NOT NULL, ps_availqty integer NOT NULL,
          ps_supplycost decimal(15,2) NOT NULL, ps_comment varchar(199) NOT NULL) DISTKEY(ps_partkey)
        """,
        "INSERT INTO partsupp VALUES (1, 1, 100, 10.50, 'a'), (1, 2, 200, 11.00, 'b'), (2, 1, 5, 1.00, 'c')",
        """
        CREATE TABLE orders (o_orderkey integer NOT NULL, o_custkey integer NOT NULL, o_orderstatus char(1) NOT NULL,
          o_totalprice decimal(15,2) NOT NULL, o_orderdate date NOT NULL, o_orderpriority char(15) NOT NULL,
          o_clerk char(15) NOT NULL, o_shippriority integer NOT NULL, o_comment varchar(79) NOT NULL)
          DISTKEY(o_orderkey) SORTKEY(o_orderdate)
        """,
        """
        INSERT INTO orders VALUES (1, 1, 'O', 1000.00, '1995-03-10', '1-URGENT', 'Clerk#1', 0, 'x'),
          (2, 2, 'F', 20.00, '1994-01-01', '5-LOW', 'Clerk#2', 0, 'special requests y'),
          (3, 1, 'P', 300.00, '1998-08-02', '2-HIGH', 'Clerk#3', 1, 'z')
        """,
        """
        CREATE TABLE lineitem (l_orderkey integer NOT NULL, l_partkey integer NOT NULL, l_suppkey integer NOT NULL,
          l_linenumber integer NOT NULL, l_quantity decimal(15,2) NOT NULL, l_extendedprice decimal(15,2) NOT NULL,
          l_discount decimal(15,2) NOT NULL, l_tax decimal(15,2) NOT NULL, l_returnflag char(1) NOT NULL,
          l_linestatus char(1) NOT NULL, l_shipdate date NOT NULL, l_commitdate date NOT NULL,
          l_receiptdate date NOT NULL, l_shipinstruct char(25) NOT NULL, l_shipmode char(10) NOT NULL,
          l_comment varchar(44) NOT NULL) DISTKEY(l_orderkey) SORTKEY(l_shipdate)
        """,
        """
        INSERT INTO lineitem VALUES
          (1, 1, 1, 1, 17, 17954.55, 0.04, 0.02, 'N', 'O', '1995-03-16', '1995-03-20', '1995-03-21', 'DELIVER IN PERSON', 'TRUCK', 'a'),
          (1, 2, 2, 2, 36, 34850.16, 0.09, 0.06, 'R', 'F', '1994-01-02', '1994-02-01', '1994-02-03', 'NONE', 'MAIL', 'b'),
          (2, 1, 2, 1, 8, 7200.00, 0.10, 0.02, 'A', 'F', '1998-09-01', '1998-09-02', '1998-09-30', 'COLLECT COD', 'AIR', 'c'),
          (3, 2, 1, 1, 50, 45000.00, 0.00, 0.08, 'N', 'O', '1996-01-01', '1995-12-01', '1996-01-10', 'TAKE BACK RETURN', 'SHIP', 'd')
        """,
    ]
}

/// The fuzz database and session (one per process), rebuilt when an input changes it.
/// Inputs are run one at a time (the lock serializes callers).
final class SQLFuzzState: @unchecked Sendable {
    private let lock = Lock()
    private var session: Session?
    /// What an input may have changed, from least to most.
    private enum Change: Int { case none, session, database }

    /// Run one input; returns its outcome signature.
    func run(_ bytes: UnsafeRawBufferPointer) -> String {
        guard bytes.count <= SQLFuzzTarget.maxLength else { return "skipped: too long" }
        let sql = String(decoding: bytes, as: UTF8.self)
        let statements: [ParsedStatement]
        do {
            statements = try parseScript(sql)
        } catch {
            return "parse " + Outcome.of(error)
        }
        return lock.withLock {
            var outcomes: [String] = []
            var change = Change.none
            let active: Session
            do {
                active = try currentSession()
            } catch {
                // The setup statements failing is a harness bug: fail loudly.
                fatalError("sql fuzz target: the setup statements failed: \(error)")
            }
            for parsed in statements.prefix(SQLFuzzTarget.maxStatements) {
                let effect = Self.effect(of: parsed.statement)
                guard let effect else {
                    outcomes.append("not run")
                    continue
                }
                if effect.rawValue > change.rawValue { change = effect }
                do {
                    let results = try active.execute(parsed.text)
                    let rows = results.reduce(0) { $0 + $1.rowCount }
                    outcomes.append(Outcome.ok(rows: rows, results.first.map { String($0.tag.prefix { $0 != " " }) } ?? ""))
                } catch {
                    outcomes.append(Outcome.of(error))
                }
            }
            switch change {
            case .none: break
            case .session: session = session.map { $0.database.connect() }
            case .database: session = nil
            }
            return Outcome.combine(outcomes)
        }
    }

    /// The shared session, building the database first when there is none.
    private func currentSession() throws -> Session {
        if let session { return session }
        let database = try Database(directory: nil)
        let fresh = database.connect()
        for statement in SQLFuzzTarget.setup { _ = try fresh.execute(statement) }
        session = fresh
        return fresh
    }

    /// What running `statement` may change; nil for statements the target does not run.
    private static func effect(of statement: Statement) -> Change? {
        switch statement {
        case .copy, .unload, .database, .external: return nil
        case .query, .explain, .show: return Change.none
        case .set, .reset, .begin, .commit, .rollback, .lock, .prepared: return .session
        case .createTable, .dropTable, .createView, .dropView, .insert, .update, .delete, .merge, .comment, .createFunction, .dropFunction, .procedure, .truncate, .vacuum, .analyze,
             .createSchema, .dropSchema, .alterSchema, .alterTable, .security, .refreshMaterializedView:
            return .database
        }
    }
}
