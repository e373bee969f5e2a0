// SPDX-License-Identifier: Apache-2.0
import SlicehouseEngine

/// sqllogictest support for Slicehouse: a parser for `.test` scripts
/// (`SQLLogicTestParser`), a runner (`SQLLogicTestRunner`) and the value
/// formatting it compares with (`SQLLogicTestValueFormatter`).
///
/// # Script syntax
///
/// A script is a sequence of records separated by blank lines. Lines starting
/// with `#` are comments (between records and inside SQL). Both the classic
/// SQLite corpus format and the DuckDB dialect are accepted:
///
/// - `skipif <engine>` / `onlyif <engine>` lines in front of a record make it
///   conditional. Slicehouse answers to `postgresql`, `slicehouse` and
///   `redshift` (case-insensitive), so `onlyif sqlite|mysql|mssql|oracle` and
///   `skipif postgresql` records are skipped.
/// - `statement ok` / `statement error [text]` / `statement count N` /
///   `statement maybe`, then SQL lines. For `error` (and `maybe`), an optional
///   `----` line is followed by the expected message (lines joined with a
///   newline, up to a blank line); text after `statement error` on the same
///   line means the same. The message matches when it is a substring of the
///   error text `ERROR:  <message>` (plus `\nDETAIL:  <detail>` when there is
///   one); `<REGEX>:pattern` and `<!REGEX>:pattern` match a regular expression
///   instead. `count N` requires the command tag's row count ("INSERT 0 5",
///   "DELETE 3") or the number of rows returned to be N.
/// - `query <types> [nosort|rowsort|valuesort] [label]`, SQL lines, then
///   optionally `----` and the expected results up to a blank line. A query
///   without `----` only has to succeed. `query error` is a `statement error`.
///   Type letters: `I` integer, `R` real/decimal, `T` text, `B` boolean,
///   `D` date; other letters behave like `T`.
/// - `hash-threshold N` is accepted; results written as
///   `N values hashing to <md5>` are always compared by hash.
/// - `halt` stops the file; `mode skip` / `mode unskip` skip the records in
///   between; `require <x>` and DuckDB's `load`, `restart`, `set`... lines are
///   ignored; `loop var a b` (b exclusive) and `foreach var v1 v2 ...` blocks up
///   to `endloop` are expanded with `${var}` substituted.
/// - Anything else is a parse error, reported as a failure at its line;
///   parsing resumes at the next record.
///
/// # Comparison rules
///
/// 1. The result compared is the last row-returning result of the SQL (or its
///    last result); it must have as many columns as the type string has letters.
/// 2. Each value is rendered as text: NULL → `NULL`; an empty string →
///    `(empty)`; booleans → `true`/`false`; under an `R` column, numbers get
///    exactly 3 decimals: integers `7.000`, decimals rounded half away from zero
///    from their exact value (`1.2345` → `1.235`), floating point with C's
///    `%.3f` (NaN and infinities print as PostgreSQL does); everything else
///    uses PostgreSQL's text output (`Value.formatted(as:)`): decimals with
///    their scale (`0.040`), doubles in shortest round-trip form, dates as
///    `YYYY-MM-DD`, CHAR(n) blank-padded.
/// 3. `rowsort` sorts rows comparing values as byte strings, column by column
///    (strcmp order, as sqllogictest); `valuesort` sorts all values; `nosort`
///    keeps the engine's order. Sorting is applied to the expected values too,
///    so the order written in the file does not matter in sorted modes.
/// 4. Expected lines are read as rows of TAB-separated values when every line
///    has exactly one field per column; else as rows of blank-separated values
///    when every line has exactly one token per column; else as one value per
///    line (the SQLite corpus layout). Values are then compared one by one.
/// 5. A hash is the MD5 of every value followed by `"\n"`, in comparison order;
///    both the value count and the digest must match.
/// 6. Tolerances: a value also matches (a) the classic rendering, which
///    differs only under `I` columns: booleans as `1`/`0`, decimals and floats
///    truncated toward zero as SQLite would; (b) its plain PostgreSQL text
///    (so `R` columns may also be written `1.50` or `3`); and (c) the same text
///    without trailing blanks. For hashes the standard rendering is tried
///    first, then the classic one.
/// 7. Queries with the same label must produce the same values (compared by hash).
///
/// # Counting
///
/// Every statement and query record that runs counts as passed or failed;
/// parse errors, unreadable files and databases that cannot be created count
/// as failures. Records excluded by conditions or `mode skip` are counted as
/// skipped; records after `halt` are not counted.
public enum SQLLogicTest {
    /// Run every `.test` file under `paths` (files, or directories searched
    /// recursively), each against a fresh in-memory database laid out as `cluster`.
    public static func runFiles(_ paths: [String], cluster: ClusterConfig = ClusterConfig()) -> SQLLogicTestSummary {
        SQLLogicTestRunner(cluster: cluster).runFiles(paths)
    }
}
