// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

// COPY and UNLOAD, whose many options are parsed generically (see `CopyOption`).

extension Parser {
    /// `COPY t [(cols)] FROM 'source' [options]`.
    mutating func parseCopy() throws -> Copy {
        let start = advance()  // COPY
        let table = try parseObjectName()
        let columns = isSymbol("(") ? try parseParenthesizedIdentifiers() : []
        try expectWord("from")
        let source = try parseStringLiteral()
        let options = try parseCopyOptions()
        return Copy(table: table, columns: columns, source: source, options: options, location: start.location)
    }

    /// `UNLOAD ('select ...') TO 'destination' [options]`.
    mutating func parseUnload() throws -> Unload {
        let start = advance()  // UNLOAD
        try expectSymbol("(")
        let query = try parseStringLiteral()
        try expectSymbol(")")
        try expectWord("to")
        let destination = try parseStringLiteral()
        let options = try parseCopyOptions()
        return Unload(query: query, destination: destination, options: options, location: start.location)
    }

    /// Words accepted as a bare (unquoted) option argument, e.g. `COMPUPDATE OFF`,
    /// `MANIFEST VERBOSE`, `MAXFILESIZE 100 MB`, `IAM_ROLE default`.
    /// Any other word after an option starts the next option.
    private static let wordArguments: Set<String> = [
        "on", "off", "true", "false", "preset", "auto", "verbose", "include", "default",
        "kb", "mb", "gb", "k", "m", "g", "simplify",
    ]

    /// Options whose next word, whatever it is, is their argument.
    private static let optionsTakingAnyWord: Set<String> = ["encoding"]

    /// Options until the end of the statement: `NAME [AS] [arguments]` each.
    mutating func parseCopyOptions() throws -> [CopyOption] {
        var options: [CopyOption] = []
        _ = acceptWord("with")
        while !atEnd && !isSymbol(";") {
            let token = current
            guard case .word(var name) = token.kind else { throw syntaxError(at: token) }
            advance()
            if name == "format" {
                // `FORMAT [AS] CSV|JSON|PARQUET ...`: FORMAT is a noise word before the format option.
                _ = acceptWord("as")
                guard case .word = current.kind else { throw syntaxError(at: current) }
                continue
            }
            if name == "partition" {
                try expectWord("by")
                name = "partition by"
            }
            _ = acceptWord("as")
            var args: [CopyOptionArgument] = []
            argumentLoop: while true {
                switch current.kind {
                case .string(let s):
                    args.append(.string(s))
                case .integer(let n), .decimal(let n), .float(let n):
                    args.append(.number(n))
                case .word(let w) where Parser.wordArguments.contains(w)
                    || (args.isEmpty && Parser.optionsTakingAnyWord.contains(name)):
                    args.append(.identifier(w))
                case .symbol("("):
                    args.append(.list(try parseParenthesizedIdentifiers()))
                    continue argumentLoop
                default:
                    break argumentLoop
                }
                advance()
            }
            options.append(CopyOption(name: name, args: args, location: token.location))
        }
        return options
    }
}
