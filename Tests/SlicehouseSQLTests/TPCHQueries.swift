// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The 22 TPC-H queries, read from the repository's datasets/tpch/queries.
enum TPCHQueries {
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("datasets/tpch/queries")
    }

    static let all: [(name: String, sql: String)] = (1...22).map { n in
        let name = n < 10 ? "q0\(n)" : "q\(n)"
        let text = (try? String(contentsOf: directory.appendingPathComponent(name + ".sql"), encoding: .utf8)) ?? ""
        return (name, text)
    }
}
