// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// Type names, resolved through `DataType.named` (which knows Redshift's aliases).

extension Parser {
    /// A type name with optional modifiers: `INT`, `DECIMAL(15,2)`, `DOUBLE PRECISION`,
    /// `CHARACTER VARYING(30)`, `VARCHAR(MAX)`, `TIMESTAMP WITHOUT TIME ZONE`.
    /// Unknown types and bad modifiers are reported at the type name.
    mutating func parseDataType() throws -> DataType {
        let start = current
        var name: String
        switch current.kind {
        case .word(let w): name = w
        case .quotedIdentifier(let s): name = s
        default: throw syntaxError(at: current)
        }
        advance()
        if name == "pg_catalog", acceptSymbol(".") {
            // `x::pg_catalog.int4`: the built-in types live in pg_catalog (psql qualifies them).
            switch current.kind {
            case .word(let w): name = w
            case .quotedIdentifier(let s): name = s
            default: throw syntaxError(at: current)
            }
            advance()
        }
        switch name {
        case "double":
            if acceptWord("precision") { name = "double precision" }
        case "character", "char", "nchar":
            if acceptWord("varying") { name += " varying" }
        case "binary":
            if acceptWord("varying") { name = "binary varying" }
        case "interval":
            // INTERVAL [YEAR TO MONTH | DAY TO SECOND | ...]: one type whatever the fields.
            _ = try parseIntervalQualifier()
            return .interval
        case "national":
            guard acceptWord("character") || acceptWord("char") else { throw syntaxError(at: current) }
            name = acceptWord("varying") ? "nvarchar" : "nchar"
        default:
            break
        }
        let args = try parseTypeModifiers(for: name)
        if name == "timestamp" || name == "time" {
            if acceptWords("without", "time", "zone") {
                name += " without time zone"
            } else if acceptWords("with", "time", "zone") {
                name += " with time zone"
            }
        }
        do {
            return try DataType.named(name, args)
        } catch var error as SQLError {
            if error.line == nil {
                error.line = start.location.line
                error.column = start.location.column
            }
            throw error
        }
    }

    /// The type of a CAST, `::` or CONVERT: as `parseDataType`, except that VARCHAR or TEXT
    /// without a length is `DataType.unsizedVarchar`, whose length the binder takes from
    /// the operand (Redshift: "if used in an expression, the size of the output is
    /// determined using the input expression"), where a column's is 256.
    mutating func parseCastType() throws -> DataType {
        let unsized: Bool
        switch current.word {
        case "varchar", "nvarchar", "text": unsized = !isSymbol("(", at: 1)
        case "character", "char":
            unsized = peek().word == "varying" && !isSymbol("(", at: 2)
        default: unsized = false
        }
        let type = try parseDataType()
        // `::smallint[]`: the catalog's integer arrays (pg_constraint.conkey's type).
        if isSymbol("["), isSymbol("]", at: 1), let element = ArrayElement(type) {
            advance(); advance()
            return .array(element)
        }
        return unsized ? DataType.unsizedVarchar : type
    }

    /// `(n[, m])`; `MAX` is the largest length of a character type.
    private mutating func parseTypeModifiers(for name: String) throws -> [Int] {
        guard acceptSymbol("(") else { return [] }
        var args: [Int] = []
        repeat {
            if acceptWord("max") {
                let isFixed = ["char", "character", "nchar", "bpchar"].contains(name)
                let isBinary = ["varbyte", "varbinary", "binary varying"].contains(name)
                args.append(isFixed ? DataType.maxCharLength : isBinary ? DataType.maxVarbyteLength : DataType.maxVarcharLength)
                continue
            }
            let token = current
            let value = try parseInteger()
            guard let n = Int(exactly: value), n <= Int(Int32.max) else { throw syntaxError(at: token) }
            args.append(n)
        } while acceptSymbol(",")
        try expectSymbol(")")
        return args
    }
}
