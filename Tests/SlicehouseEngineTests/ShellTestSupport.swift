// SPDX-License-Identifier: Apache-2.0
import SlicehouseEngine
import SlicehouseShell
import SlicehouseSQLLogicTest
import SlicehouseTypes

/// A stand-in for `Session` used by the shell and sqllogictest tests: it
/// answers SQL text from a table of canned results and records what ran.
final class ShellFakeExecutor: SQLExecutor, ShellBackend {
    var responses: [String: Result<[StatementResult], SQLError>] = [:]
    /// Used for SQL without a canned response.
    var fallback: (String) throws -> [StatementResult] = { _ in [StatementResult(tag: "SELECT 0")] }
    var tables = StatementResult(tag: "SELECT 0")
    var descriptions: [String: StatementResult] = [:]
    private(set) var executed: [String] = []
    var copyProgress: (@Sendable (CopyProgress) -> Void)?

    func on(_ sql: String, _ results: StatementResult...) {
        responses[sql] = .success(results)
    }

    func on(_ sql: String, error: SQLError) {
        responses[sql] = .failure(error)
    }

    func execute(_ sql: String) throws -> [StatementResult] {
        executed.append(sql)
        if let response = responses[sql] { return try response.get() }
        return try fallback(sql)
    }

    func listTables() throws -> StatementResult { tables }

    func describeTable(_ name: String) throws -> StatementResult {
        guard let result = descriptions[name] else {
            throw SQLError(.undefinedTable, "relation \"\(name)\" does not exist")
        }
        return result
    }
}

/// A vector of `type` holding `values`.
func shellVector(_ type: DataType, _ values: [Value]) -> Vector {
    var v = Vector(type: type, capacity: values.count)
    for value in values { v.append(value) }
    return v
}

/// A query result with the given columns and rows (row-major values).
func shellResult(_ columns: [(String, DataType)], rows: [[Value]], tag: String? = nil) -> StatementResult {
    let vectors = columns.enumerated().map { (c, column) in
        shellVector(column.1, rows.map { c < $0.count ? $0[c] : .null })
    }
    return StatementResult(tag: tag ?? "SELECT \(rows.count)",
                           columns: columns.map { ResultColumn(name: $0.0, type: $0.1) },
                           chunks: rows.isEmpty ? [] : [Chunk(columns: vectors, count: rows.count)])
}
