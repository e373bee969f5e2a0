// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseAWS
import SlicehouseEngine

/// `bench tpch --external`: the eight tables as Hive-partitioned Parquet external tables
/// (Redshift Spectrum's shape) on the S3 endpoint the environment names, and DuckDB reading
/// the same objects through httpfs.
///
/// The tables are loaded as usual, then — once per prefix and scale factor, remembered by a
/// marker object — written under the prefix with UNLOAD … FORMAT PARQUET (lineitem and
/// orders PARTITION BY the month of l_shipdate and o_orderdate, as a lake keeps fact
/// tables). An external schema registers them (with `numRows`, which guides the join
/// order as Redshift's statistics do) and the queries run with it first on the search
/// path: every table a query names is read from S3.
extension TPCHBenchmark {
    /// The fact tables' partition columns: the month of a date column.
    static let externalMonths = ["lineitem": ("l_shipmonth", "l_shipdate"), "orders": ("o_ordermonth", "o_orderdate")]
    static let externalSchema = "tpch_lake"

    /// The prefix the Parquet objects are kept under.
    var externalLocation: String {
        options.externalLocation ?? "s3://slicehouse-bench/tpch-sf\(TPCHBenchOptions.scaleName(options.scaleFactor))-parquet/"
    }

    func runExternal(events: (BenchEvent) -> Void) throws -> (EngineFigures, [Int: ResultText], [String]) {
        var notes: [String] = []
        let fm = FileManager.default
        let directory = options.databaseDirectory ?? Self.temporaryDirectory("db")
        let temporary = options.databaseDirectory == nil
        defer { if temporary { try? fm.removeItem(atPath: directory) } }
        let resetWorks = MemoryProbe.resetPeak()
        let (db, load) = try loadSlicehouse(into: directory, events: events)
        let session = db.connect()
        _ = try session.execute("SET enable_result_cache_for_session TO off")
        let location = externalLocation
        guard let prefix = S3Location(location) else { throw BenchError.invalidOption("--external-location: not an s3:// prefix: \(location)") }
        let client = try Self.ambientS3Client(what: location)
        let marker = prefix.sibling(prefix.key + "_uploaded/parquet-v1")
        let uploaded = ((try? client.list(marker)) ?? []).contains { $0.key == marker.key }
        do {
            if !uploaded {
                events(.step("writing the tables as Parquet under \(location)"))
                _ = try? client.createBucket(prefix.bucket)
                let start = ContinuousClock.now
                for table in TPCHText.tables {
                    events(.progress("UNLOAD \(table)"))
                    let target = "\(location)\(table)/"
                    if let (column, date) = Self.externalMonths[table] {
                        _ = try session.execute("UNLOAD ('SELECT *, to_char(\(date), ''YYYY-MM'') AS \(column) FROM \(table)') "
                                                + "TO '\(target)' FORMAT PARQUET PARTITION BY (\(column)) ALLOWOVERWRITE")
                    } else {
                        _ = try session.execute("UNLOAD ('SELECT * FROM \(table)') TO '\(target)' FORMAT PARQUET ALLOWOVERWRITE")
                    }
                }
                try client.put(marker, body: [])
                notes.append(String(format: "the tables were written under %@ as Parquet in %.2f s (UNLOAD)", location,
                                    TPCHDataCache.elapsedSeconds(since: start)))
            }
            events(.step("registering the external tables (\(Self.externalSchema))"))
            try register(session, location: location)
        } catch let e as BenchError {
            throw e
        } catch {
            throw BenchError.load("the external tables under \(location): \(Self.message(error))")
        }
        _ = try session.execute("SET search_path TO \(Self.externalSchema), public")
        notes.append("every table was read from \(location) (Hive-partitioned Parquet external tables; "
                     + "lineitem and orders by month); the load figures are the local COPYs the Parquet was written from")
        var (figures, results) = runQueries(session, load: load, size: Self.diskUsage(directory), resetWorks: resetWorks,
                                            notes: &notes, events: events)
        figures.sizeBytes = (try? client.list(prefix).reduce(Int64(0)) { $0 + Int64($1.size) }) ?? 0
        // What the S3 scans read, from SVL_S3QUERY_SUMMARY.
        if let scanned = try? session.execute("SELECT sum(s3_scanned_bytes), sum(files) FROM svl_s3query_summary").last,
           let row = scanned.textRows().first, let bytes = row.first.flatMap({ $0 }).flatMap(Int64.init) {
            notes.append(String(format: "the S3 scans of all runs read %.1f MB of Parquet", Double(bytes) / 1_048_576))
        }
        return (figures, results, notes)
    }

    /// CREATE EXTERNAL SCHEMA and the eight tables with their partitions and row counts.
    private func register(_ session: Session, location: String) throws {
        let database = "tpch_sf" + TPCHBenchOptions.scaleName(options.scaleFactor).replacingOccurrences(of: ".", with: "_")
        let schema = Self.externalSchema
        _ = try session.execute("DROP SCHEMA IF EXISTS \(schema) DROP EXTERNAL DATABASE CASCADE")
        _ = try session.execute("CREATE EXTERNAL SCHEMA \(schema) FROM DATA CATALOG DATABASE '\(database)' "
                                + "CREATE EXTERNAL DATABASE IF NOT EXISTS")
        for table in TPCHText.tables {
            // The catalog outlives the database (an earlier run's tables are replaced).
            _ = try session.execute("DROP TABLE IF EXISTS \(schema).\(table)")
            let columns = try session.execute("""
                SELECT column_name, CASE data_type WHEN 'character' THEN 'char(' || character_maximum_length || ')'
                  WHEN 'character varying' THEN 'varchar(' || character_maximum_length || ')'
                  WHEN 'numeric' THEN 'decimal(' || numeric_precision || ',' || numeric_scale || ')'
                  ELSE data_type END
                FROM information_schema.columns WHERE table_name = '\(table)' AND table_schema = 'public'
                ORDER BY ordinal_position
                """).last?.textRows().map { "\($0[0] ?? "") \($0[1] ?? "")" } ?? []
            let rows = try session.execute("SELECT count(*) FROM public.\(table)").last?.textRows().first?.first.flatMap { $0 } ?? "0"
            let target = "\(location)\(table)/"
            if let (column, date) = Self.externalMonths[table] {
                _ = try session.execute("CREATE EXTERNAL TABLE \(schema).\(table) (\(columns.joined(separator: ", "))) "
                                        + "PARTITIONED BY (\(column) char(7)) STORED AS PARQUET LOCATION '\(target)' "
                                        + "TABLE PROPERTIES ('numRows'='\(rows)')")
                let months = try session.execute("SELECT DISTINCT to_char(\(date), 'YYYY-MM') FROM public.\(table) ORDER BY 1")
                    .last?.textRows().compactMap { $0.first.flatMap { $0 } } ?? []
                let specs = months.map { "PARTITION (\(column) = '\($0)') LOCATION '\(target)\(column)=\($0)/'" }
                for chunk in stride(from: 0, to: specs.count, by: 50) {
                    _ = try session.execute("ALTER TABLE \(schema).\(table) ADD "
                                            + specs[chunk..<min(specs.count, chunk + 50)].joined(separator: " "))
                }
            } else {
                _ = try session.execute("CREATE EXTERNAL TABLE \(schema).\(table) (\(columns.joined(separator: ", "))) "
                                        + "STORED AS PARQUET LOCATION '\(target)' TABLE PROPERTIES ('numRows'='\(rows)')")
            }
        }
    }

    /// What DuckDB reads instead of loading the .tbl files: views over the same objects.
    func duckDBExternal() throws -> DuckDBRunner.External {
        let environment = ProcessInfo.processInfo.environment
        guard let endpoint = environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"],
              let url = URL(string: endpoint), let host = url.host else {
            throw BenchError.invalidOption("--external needs an S3 endpoint in AWS_ENDPOINT_URL (DuckDB's httpfs reads it too)")
        }
        let location = externalLocation
        var views: [String: String] = [:]
        for table in TPCHText.tables {
            if let (column, _) = Self.externalMonths[table] {
                views[table] = "CREATE VIEW \(table) AS SELECT * EXCLUDE (\(column)) FROM read_parquet('\(location)\(table)/*/*.parquet', hive_partitioning = true)"
            } else {
                views[table] = "CREATE VIEW \(table) AS SELECT * FROM read_parquet('\(location)\(table)/*.parquet')"
            }
        }
        return DuckDBRunner.External(endpoint: host + (url.port.map { ":\($0)" } ?? ""), useSSL: url.scheme == "https",
                                     region: environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1",
                                     views: views)
    }

    /// An S3 client with the environment's endpoint and keys.
    static func ambientS3Client(what: String) throws -> S3Client {
        let environment = ProcessInfo.processInfo.environment
        do {
            let credentials = try AWSCredentialResolver(roleMapPath: nil, environment: environment).credentials(for: nil)
            return S3Client(endpoint: try S3Endpoint.resolve(region: nil, environment: environment), credentials: credentials)
        } catch {
            throw BenchError.io("\(what): \(Self.message(error))")
        }
    }
}
