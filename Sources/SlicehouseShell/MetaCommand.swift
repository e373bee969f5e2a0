// SPDX-License-Identifier: Apache-2.0
/// A psql backslash command understood by the shell.
public enum MetaCommand: Sendable, Equatable {
    /// `\q`
    case quit
    /// `\?`
    case help
    /// `\timing [on|off]` (nil toggles).
    case timing(Bool?)
    /// `\bars [on|off]` (nil toggles): EXPLAIN ANALYZE's per-slice rows and block
    /// skipping drawn as text bars.
    case bars(Bool?)
    /// `\x [on|off|auto]` (nil toggles).
    case expanded(ShellOptions.Expanded?)
    /// `\d` (all relations) or `\dt` (tables), optionally filtered by a pattern.
    case listTables(pattern: String?, tablesOnly: Bool)
    /// `\d name`: describe a table (a pattern with `*`/`?` describes every match).
    case describe(String)
    /// `\i file` / `\ir file` (relative to the current script).
    case include(String, relativeToScript: Bool)
    /// `\echo text`
    case echo(String)
    /// `\pset [option [value]]`
    case pset(String?, String?)
    /// `\set [name [value]]`
    case set(String?, String?)
    /// `\unset name`
    case unset(String)
    /// `\a`: toggle aligned/unaligned.
    case toggleAligned
    /// `\t [on|off]` (nil toggles).
    case tuplesOnly(Bool?)
    /// `\f [separator]`
    case fieldSeparator(String?)
    /// `\g`: run the query buffer.
    case go
    /// `\r`: clear the query buffer.
    case resetBuffer
    /// `\p`: print the query buffer.
    case printBuffer
    /// `\conninfo`
    case connectionInfo
    /// A command that exists in psql but not here, or a misspelt one; the
    /// payload is the message to print.
    case invalid(String)

    /// Parse the text after a backslash (`d t`, `timing on`, `x \timing`).
    /// One line may hold several commands, each starting with a backslash.
    public static func parse(_ text: String) -> [MetaCommand] {
        var commands: [MetaCommand] = []
        var name = ""
        var args: [String] = []
        var started = false
        func flush() {
            if started { commands.append(make(name: name, args: args)) }
            name = ""
            args = []
            started = false
        }
        // The first word is the command name (it follows the backslash directly).
        var tokens = tokenize(text)
        if let first = tokens.first, !first.quoted {
            name = first.text
            started = true
            tokens.removeFirst()
        } else {
            started = true
        }
        for token in tokens {
            if !token.quoted && token.text.hasPrefix("\\") {
                flush()
                let rest = String(token.text.dropFirst())
                if rest.isEmpty || rest == "\\" { continue }  // `\\` separates commands
                name = rest
                started = true
            } else {
                args.append(token.text)
            }
        }
        flush()
        return commands
    }

    private static func make(name: String, args: [String]) -> MetaCommand {
        let arg = args.first
        switch name {
        case "q", "quit":
            return .quit
        case "?":
            return .help
        case "timing":
            return booleanArgument(arg, command: name) { .timing($0) }
        case "bars":
            return booleanArgument(arg, command: name) { .bars($0) }
        case "x":
            guard let arg else { return .expanded(nil) }
            if arg.lowercased() == "auto" { return .expanded(.auto) }
            guard let b = parseBoolean(arg) else {
                return .invalid("\\x: unrecognized value \"\(arg)\": Boolean or \"auto\" expected")
            }
            return .expanded(b ? .on : .off)
        case "d", "d+", "dS", "dS+", "dtS", "dtS+":
            if let arg { return .describe(arg) }
            return .listTables(pattern: nil, tablesOnly: false)
        case "dt", "dt+":
            return .listTables(pattern: arg, tablesOnly: true)
        case "i", "include", "ir", "include_relative":
            guard let arg else { return .invalid("\\\(name): missing required argument") }
            return .include(arg, relativeToScript: name == "ir" || name == "include_relative")
        case "echo":
            return .echo(args.joined(separator: " "))
        case "pset":
            return .pset(arg, args.count > 1 ? args[1] : nil)
        case "set":
            return .set(arg, args.count > 1 ? args.dropFirst().joined() : nil)
        case "unset":
            guard let arg else { return .invalid("\\unset: missing required argument") }
            return .unset(arg)
        case "a":
            return .toggleAligned
        case "t":
            return booleanArgument(arg, command: name) { .tuplesOnly($0) }
        case "f":
            return .fieldSeparator(arg)
        case "g":
            return .go
        case "r", "reset":
            return .resetBuffer
        case "p", "print":
            return .printBuffer
        case "conninfo":
            return .connectionInfo
        case "":
            return .invalid("invalid command \\")
        default:
            return .invalid("invalid command \\\(name)")
        }
    }

    private static func booleanArgument(_ arg: String?, command: String,
                                        _ make: (Bool?) -> MetaCommand) -> MetaCommand {
        guard let arg else { return make(nil) }
        guard let b = parseBoolean(arg) else {
            return .invalid("\\\(command): unrecognized value \"\(arg)\": Boolean expected")
        }
        return make(b)
    }

    /// psql's boolean words: on/off, true/false, yes/no, 1/0 (and unique prefixes).
    public static func parseBoolean(_ text: String) -> Bool? {
        let t = text.lowercased()
        guard !t.isEmpty else { return nil }
        if t == "1" { return true }
        if t == "0" { return false }
        if t == "on" { return true }
        if t == "of" || t == "off" { return false }
        for (word, value) in [("true", true), ("false", false), ("yes", true), ("no", false)] where word.hasPrefix(t) {
            return value
        }
        return nil
    }

    struct Token: Equatable {
        var text: String
        var quoted: Bool
    }

    /// Splits arguments at blanks; `'...'` quotes (with `''` and `\n`/`\t`
    /// escapes) and `"..."` quotes (kept verbatim, quotes removed) group words.
    static func tokenize(_ text: String) -> [Token] {
        var tokens: [Token] = []
        var current = ""
        var quoted = false
        var inToken = false
        var chars = Array(text)[...]
        func endToken() {
            if inToken { tokens.append(Token(text: current, quoted: quoted)) }
            current = ""
            quoted = false
            inToken = false
        }
        while let c = chars.first {
            chars = chars.dropFirst()
            switch c {
            case " ", "\t", "\r", "\n":
                endToken()
            case "'":
                inToken = true
                quoted = true
                while let q = chars.first {
                    chars = chars.dropFirst()
                    if q == "'" {
                        if chars.first == "'" {
                            current.append("'")
                            chars = chars.dropFirst()
                        } else {
                            break
                        }
                    } else if q == "\\", let e = chars.first {
                        chars = chars.dropFirst()
                        switch e {
                        case "n": current.append("\n")
                        case "t": current.append("\t")
                        case "r": current.append("\r")
                        default: current.append(e)
                        }
                    } else {
                        current.append(q)
                    }
                }
            case "\"":
                inToken = true
                quoted = true
                current.append("\"")
                while let q = chars.first {
                    chars = chars.dropFirst()
                    current.append(q)
                    if q == "\"" { break }
                }
            default:
                inToken = true
                current.append(c)
            }
        }
        endToken()
        return tokens
    }
}
