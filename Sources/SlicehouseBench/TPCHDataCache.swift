// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseDatagen

/// The generated .tbl files of one scale factor, kept between runs. A marker file,
/// written after every table was generated, records the scale factor and each file's
/// size; the cache is used only when the marker matches the files on disk, so an
/// interrupted generation is redone.
public enum TPCHDataCache {
    public static let markerName = ".slicehouse-bench-tpch.json"

    struct Marker: Codable, Equatable {
        var scaleFactor: Double
        var tables: [Table]
        struct Table: Codable, Equatable { var name: String; var rows: Int64; var bytes: Int64 }
    }

    /// Generate the data into `directory` unless a complete copy of this scale factor is
    /// already there. `progress` gets the generator's updates (on this thread).
    public static func prepare(scaleFactor: Double, directory: String, threads: Int? = nil,
                               beforeGenerating: () -> Void = {},
                               progress: ((DatagenProgress) -> Void)? = nil) throws -> GenerationFigures {
        if let marker = validMarker(scaleFactor: scaleFactor, directory: directory) {
            return GenerationFigures(cached: true, seconds: 0, bytes: marker.tables.reduce(0) { $0 + $1.bytes },
                                     rows: Dictionary(uniqueKeysWithValues: marker.tables.map { ($0.name, $0.rows) }))
        }
        var generator = TPCHGenerator(scaleFactor: scaleFactor)
        if let threads { generator.threadCount = max(1, threads) }
        do {
            try generator.validate()
        } catch let e as DatagenError {
            throw BenchError.invalidOption(e.description)
        }
        let markerPath = (directory as NSString).appendingPathComponent(markerName)
        try? FileManager.default.removeItem(atPath: markerPath)
        beforeGenerating()
        let started = ContinuousClock.now
        TPCHGenerator.prepareTextPool()
        let summaries: [DatagenTableSummary]
        do {
            summaries = try generator.writeTables(TPCHTable.allCases, to: directory, progress: progress)
        } catch let e as DatagenError {
            throw BenchError.io("generating TPC-H SF \(TPCHBenchOptions.scaleName(scaleFactor)) into \(directory): \(e.description)")
        }
        let seconds = elapsedSeconds(since: started)
        let marker = Marker(scaleFactor: scaleFactor,
                            tables: summaries.map { Marker.Table(name: $0.table.rawValue, rows: $0.rows, bytes: $0.bytes) })
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(marker).write(to: URL(fileURLWithPath: markerPath), options: .atomic)
        } catch {
            throw BenchError.io("could not write \(markerPath): \(error.localizedDescription)")
        }
        return GenerationFigures(cached: false, seconds: seconds, bytes: marker.tables.reduce(0) { $0 + $1.bytes },
                                 rows: Dictionary(uniqueKeysWithValues: marker.tables.map { ($0.name, $0.rows) }))
    }

    /// The marker, when it names this scale factor and every table file has its recorded size.
    static func validMarker(scaleFactor: Double, directory: String) -> Marker? {
        let markerPath = (directory as NSString).appendingPathComponent(markerName)
        guard let data = FileManager.default.contents(atPath: markerPath),
              let marker = try? JSONDecoder().decode(Marker.self, from: data),
              marker.scaleFactor == scaleFactor,
              Set(marker.tables.map(\.name)) == Set(TPCHText.tables) else { return nil }
        for t in marker.tables {
            let path = (directory as NSString).appendingPathComponent("\(t.name).tbl")
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  let size = attributes[.size] as? NSNumber, size.int64Value == t.bytes else { return nil }
        }
        return marker
    }

    static func elapsedSeconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
