// SPDX-License-Identifier: Apache-2.0
/// One record of a sqllogictest script: a statement, a query, or a control
/// directive, with the `skipif`/`onlyif` conditions written in front of it.
public struct SQLLogicTestRecord: Sendable, Equatable {
    /// `skipif <engine>` / `onlyif <engine>`.
    public enum Condition: Sendable, Equatable {
        case skipIf(String)
        case onlyIf(String)
    }

    /// How result rows are ordered before they are compared.
    public enum SortMode: String, Sendable, Equatable {
        /// Compare in the order the engine returned.
        case noSort = "nosort"
        /// Sort whole rows (as text, column by column).
        case rowSort = "rowsort"
        /// Sort every value individually, ignoring row boundaries.
        case valueSort = "valuesort"
    }

    /// One letter of a query's type string (`query ITR`).
    public enum ColumnType: Sendable, Equatable {
        case integer    // I
        case real       // R
        case text       // T
        case boolean    // B
        case date       // D
        case other(Character)

        public init(letter: Character) {
            switch letter {
            case "I": self = .integer
            case "R": self = .real
            case "T": self = .text
            case "B": self = .boolean
            case "D": self = .date
            default: self = .other(letter)
            }
        }

        public var letter: Character {
            switch self {
            case .integer: return "I"
            case .real: return "R"
            case .text: return "T"
            case .boolean: return "B"
            case .date: return "D"
            case .other(let c): return c
            }
        }
    }

    /// What an expected error message must look like.
    public enum ExpectedError: Sendable, Equatable {
        /// Any error will do.
        case any
        /// The error text must contain this substring.
        case contains(String)
        /// The error text must match this regular expression (`<REGEX>:pattern`).
        case regex(String)
        /// The error text must *not* match this regular expression (`<!REGEX>:pattern`).
        case notRegex(String)
    }

    /// What running a `statement` must produce.
    public enum StatementExpectation: Sendable, Equatable {
        /// `statement ok`: must succeed.
        case ok
        /// `statement error`: must fail (with a matching message).
        case error(ExpectedError)
        /// `statement count N`: must succeed affecting (or returning) N rows.
        case count(Int)
        /// `statement maybe`: may succeed, or fail with a matching message.
        case maybe(ExpectedError)
    }

    /// The expected result of a `query`.
    public enum ExpectedResult: Sendable, Equatable {
        /// Result lines as written: one row per line (values separated by a TAB),
        /// or one value per line (the classic SQLite corpus layout).
        case values([String])
        /// `N values hashing to <md5>`.
        case hash(count: Int, md5: String)
    }

    public struct Statement: Sendable, Equatable {
        public var sql: String
        public var expectation: StatementExpectation
        public init(sql: String, expectation: StatementExpectation) {
            self.sql = sql
            self.expectation = expectation
        }
    }

    public struct Query: Sendable, Equatable {
        public var sql: String
        public var columnTypes: [ColumnType]
        public var sortMode: SortMode
        /// Queries with the same label must produce the same results.
        public var label: String?
        /// nil when the record has no `----` line: the query only has to succeed.
        public var expected: ExpectedResult?
        public init(sql: String, columnTypes: [ColumnType], sortMode: SortMode = .noSort,
                    label: String? = nil, expected: ExpectedResult?) {
            self.sql = sql
            self.columnTypes = columnTypes
            self.sortMode = sortMode
            self.label = label
            self.expected = expected
        }
    }

    public enum Kind: Sendable, Equatable {
        case statement(Statement)
        case query(Query)
        /// `hash-threshold N`: results with more than N values are written as a hash.
        case hashThreshold(Int)
        /// `halt`: stop running this file.
        case halt
        /// `mode skip` (true) / `mode unskip` (false).
        case skipMode(Bool)
        /// `require <feature>` (and similar setup lines); ignored by the runner.
        case require(String)
        /// `connection NAME`: the records after it run on the named connection to the
        /// same database (opened on first use; `default` is the first one).
        case connection(String)
        /// A line the parser could not understand; reported as a failure.
        case parseError(String)
    }

    /// 1-based line of the record's first line (its `statement`/`query` line).
    public var line: Int
    public var conditions: [Condition]
    public var kind: Kind

    public init(line: Int, conditions: [Condition] = [], kind: Kind) {
        self.line = line
        self.conditions = conditions
        self.kind = kind
    }

    /// Whether the record's conditions exclude it for an engine known by `engineNames`
    /// (lower-case), e.g. `["postgresql", "slicehouse", "redshift"]`.
    public func isExcluded(forEngines engineNames: Set<String>) -> Bool {
        for condition in conditions {
            switch condition {
            case .skipIf(let engine):
                if engineNames.contains(engine.lowercased()) { return true }
            case .onlyIf(let engine):
                if !engineNames.contains(engine.lowercased()) { return true }
            }
        }
        return false
    }
}

/// A parsed `.test` file.
public struct SQLLogicTestScript: Sendable, Equatable {
    public var path: String
    public var records: [SQLLogicTestRecord]
    public init(path: String, records: [SQLLogicTestRecord]) {
        self.path = path
        self.records = records
    }
}
