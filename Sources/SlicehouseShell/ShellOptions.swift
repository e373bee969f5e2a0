// SPDX-License-Identifier: Apache-2.0
/// Output and behaviour settings of the shell, in psql's vocabulary
/// (`\pset`, `\x`, `\timing`, `-A`, `-t`, `-F`, `--csv`, `ON_ERROR_STOP`).
public struct ShellOptions: Sendable, Equatable {
    /// psql's `\pset format`.
    public enum Format: String, Sendable, Equatable, CaseIterable {
        case aligned
        case unaligned
        case csv
    }

    /// psql's `\x` setting.
    public enum Expanded: String, Sendable, Equatable {
        case off
        case on
        /// Expanded only when the aligned table would be wider than the terminal.
        case auto
    }

    public var format: Format = .aligned
    public var expanded: Expanded = .off
    /// `-t` / `\t`: no header, no footer, no title.
    public var tuplesOnly = false
    /// `-F` / `\f`: separator of unaligned output.
    public var fieldSeparator = "|"
    /// Separator between records of unaligned output.
    public var recordSeparator = "\n"
    /// Separator of CSV output (`\pset csv_fieldsep`).
    public var csvFieldSeparator: Character = ","
    /// `\pset null`: how NULL is shown (psql shows nothing).
    public var nullDisplay = ""
    /// `\pset footer`: the `(N rows)` footer.
    public var showFooter = true
    /// `\timing`: print `Time: ... ms` after each statement.
    public var timing = false
    /// `\bars`: draw EXPLAIN ANALYZE's per-slice rows and zone-map block skipping as bars.
    public var explainBars = false
    /// `-v ON_ERROR_STOP=1`: stop at the first error.
    public var onErrorStop = false
    /// `-q`: do not print command tags and informational messages.
    public var quiet = false
    /// `-e` / `ECHO=queries`: print each statement before running it.
    public var echoQueries = false
    /// Terminal width used by `\x auto` (nil: never switch).
    public var terminalColumns: Int? = nil

    public init() {}
}
