// SPDX-License-Identifier: Apache-2.0
/// An error reported to the user for one statement.
///
/// `message` is the text after `ERROR:`; `line`/`column` (1-based) point into the
/// statement text when the error has a location (syntax errors, unknown names).
public struct SQLError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case syntax = "42601"
        case undefinedColumn = "42703"
        case undefinedTable = "42P01"
        case wrongObjectType = "42809"
        case undefinedFunction = "42883"
        case undefinedObject = "42704"
        case duplicateTable = "42P07"
        case duplicateSchema = "42P06"
        case invalidSchemaName = "3F000"
        case dependentObjectsStillExist = "2BP01"
        case duplicateColumn = "42701"
        case duplicateAlias = "42712"
        case ambiguousColumn = "42702"
        case datatypeMismatch = "42804"
        case groupingError = "42803"
        case invalidParameter = "22023"
        case invalidText = "22P02"
        case numericOutOfRange = "22003"
        case divisionByZero = "22012"
        case stringTooLong = "22001"
        case invalidDatetime = "22007"
        case datetimeOverflow = "22008"
        case notNullViolation = "23502"
        case featureNotSupported = "0A000"
        case ioError = "58030"
        case loadError = "XX000"
        case internalError = "XX001"
        case cardinality = "21000"
        case serializationFailure = "40001"
        case deadlockDetected = "40P01"
        case inFailedTransaction = "25P02"
        case activeTransaction = "25001"
        case objectInUse = "55006"
        case duplicateDatabase = "42P04"
        case queryCanceled = "57014"
        case adminShutdown = "57P01"
        case insufficientPrivilege = "42501"
        case invalidPassword = "28P01"
        case invalidAuthorization = "28000"
        case tooManyConnections = "53300"
        case protocolViolation = "08P01"
        /// PL/pgSQL: RAISE EXCEPTION, SELECT INTO STRICT finding no row / several rows.
        case raiseException = "P0001"
        case noDataFound = "P0002"
        case tooManyRows = "P0003"
        case invalidTransactionTermination = "2D000"
        case caseNotFound = "20000"
        case nullValueNotAllowed = "22004"
        case objectNotInPrerequisiteState = "55000"
        case undefinedParameter = "42P02"
        case invalidCursorName = "34000"
        case invalidStatementName = "26000"
        case duplicatePreparedStatement = "42P05"
        case duplicateObject = "42710"
        case invalidCatalogName = "3D000"
        case invalidGrantOperation = "0LP01"
        case invalidRoleSpecification = "0P000"
        case reservedName = "42939"
        case ambiguousFunction = "42725"
        /// A spill file could not be created or written.
        case diskFull = "53100"
        case invalidObjectDefinition = "42P17"
        case programLimitExceeded = "54000"
    }

    public var code: Code
    public var message: String
    public var line: Int?
    public var column: Int?
    /// Extra detail lines (psql prints them as DETAIL:).
    public var detail: String?
    /// A suggestion (psql prints it as HINT:).
    public var hint: String?
    /// Notices the failed statement raised before the error (`INFO:  text`), sent first.
    public var notices: [String] = []

    public init(_ code: Code, _ message: String, line: Int? = nil, column: Int? = nil, detail: String? = nil,
                hint: String? = nil) {
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.detail = detail
        self.hint = hint
    }

    public static func syntax(_ message: String, line: Int? = nil, column: Int? = nil) -> SQLError {
        SQLError(.syntax, message, line: line, column: column)
    }
    public static func unsupported(_ what: String) -> SQLError {
        SQLError(.featureNotSupported, "\(what) is not supported")
    }
    public static func internalError(_ message: String) -> SQLError {
        SQLError(.internalError, "internal error: \(message)")
    }
    public static func overflow(_ type: DataType) -> SQLError {
        switch type {
        case .smallint: return SQLError(.numericOutOfRange, "smallint out of range")
        case .integer: return SQLError(.numericOutOfRange, "integer out of range")
        case .bigint: return SQLError(.numericOutOfRange, "bigint out of range")
        default: return SQLError(.numericOutOfRange, "numeric overflow for type \(type.sqlName)")
        }
    }
    public static let divisionByZero = SQLError(.divisionByZero, "division by zero")

    public var description: String {
        var s = "ERROR:  \(message)"
        if let line, let column { s += " (line \(line), column \(column))" }
        return s
    }
}
