// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The generated TPC-DS Parquet files of one scale factor, kept between runs, the way
/// `TPCHDataCache` keeps TPC-H's: a marker file written after every table was generated
/// records the scale factor, the schema it was cast to, and each file's size; the cache
/// is used only when the marker matches the files on disk.
public enum TPCDSDataCache {
    public static let markerName = ".slicehouse-bench-tpcds.json"

    struct Marker: Codable, Equatable {
        var scaleFactor: Double
        /// The schema the files were cast to: a changed schema regenerates them.
        var schemaSQL: String
        var duckDB: String
        var seconds: Double
        var tables: [Table]
        struct Table: Codable, Equatable { var name: String; var rows: Int64; var bytes: Int64 }
    }

    /// What the script's generate mode prints.
    struct Generated: Decodable {
        var version: String
        var seconds: Double
        var tables: [Marker.Table]
    }

    public static func prepare(scaleFactor: Double, directory: String, python: String, threads: Int,
                               beforeGenerating: () -> Void = {}) throws -> GenerationFigures {
        if let marker = validMarker(scaleFactor: scaleFactor, directory: directory) {
            return figures(marker, cached: true)
        }
        let markerPath = (directory as NSString).appendingPathComponent(markerName)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw BenchError.io("could not create \(directory): \(error.localizedDescription)")
        }
        try? FileManager.default.removeItem(atPath: markerPath)
        beforeGenerating()
        let spec = TPCDSScriptSpec(mode: "generate", scaleFactor: scaleFactor, data: directory, threads: threads,
                                   tables: TPCDSText.tables, schema: TPCDSText.schemaStatements)
        let work = TPCHBenchmark.temporaryDirectory("tpcds-gen")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let stdout = try TPCDSScriptSpec.runScript(spec, python: python, workDirectory: work)
        let generated: Generated
        do {
            generated = try JSONDecoder().decode(Generated.self, from: Data(stdout.utf8))
        } catch {
            throw BenchError.duckDBFailed("could not read the TPC-DS generator's output: \(error)\n" + String(stdout.prefix(500)))
        }
        let marker = Marker(scaleFactor: scaleFactor, schemaSQL: TPCDSText.schemaSQL, duckDB: generated.version,
                            seconds: generated.seconds, tables: generated.tables)
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(marker).write(to: URL(fileURLWithPath: markerPath), options: .atomic)
        } catch {
            throw BenchError.io("could not write \(markerPath): \(error.localizedDescription)")
        }
        guard validMarker(scaleFactor: scaleFactor, directory: directory) != nil else {
            throw BenchError.io("the TPC-DS generator did not write every table into \(directory)")
        }
        return figures(marker, cached: false)
    }

    static func figures(_ marker: Marker, cached: Bool) -> GenerationFigures {
        GenerationFigures(cached: cached, seconds: cached ? 0 : marker.seconds,
                          bytes: marker.tables.reduce(0) { $0 + $1.bytes },
                          rows: Dictionary(marker.tables.map { ($0.name, $0.rows) }, uniquingKeysWith: { a, _ in a }))
    }

    /// The marker, when it names this scale factor and schema and every table file has its recorded size.
    static func validMarker(scaleFactor: Double, directory: String) -> Marker? {
        let markerPath = (directory as NSString).appendingPathComponent(markerName)
        guard let data = FileManager.default.contents(atPath: markerPath),
              let marker = try? JSONDecoder().decode(Marker.self, from: data),
              marker.scaleFactor == scaleFactor, marker.schemaSQL == TPCDSText.schemaSQL,
              Set(marker.tables.map(\.name)) == Set(TPCDSText.tables) else { return nil }
        for t in marker.tables {
            let path = (directory as NSString).appendingPathComponent("\(t.name).parquet")
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  let size = attributes[.size] as? NSNumber, size.int64Value == t.bytes else { return nil }
        }
        return marker
    }
}
