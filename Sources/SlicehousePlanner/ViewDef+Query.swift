// SPDX-License-Identifier: Apache-2.0
import SlicehouseCatalog
import SlicehouseSQL

extension ViewDef {
    /// How the view's text is read: as it was when the view was made
    /// (enable_case_sensitive_identifier then), whatever the reading session's setting.
    public var parseOptions: ParseOptions { ParseOptions(caseSensitiveIdentifiers: caseSensitiveIdentifiers) }

    /// The view's query, parsed (with `options`, else as when it was made); nil when its
    /// text is not one query.
    public func parsedQuery(options: ParseOptions? = nil) throws -> Query? {
        let statements = try parseStatements(queryText, options: options ?? parseOptions)
        guard statements.count == 1, case .query(let q) = statements[0] else { return nil }
        return q
    }
}
