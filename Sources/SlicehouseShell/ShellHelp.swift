// SPDX-License-Identifier: Apache-2.0
/// Help texts of the shell.
public enum ShellHelp {
    /// Printed when `help` is typed at the prompt.
    public static let intro = """
        You are using slicehouse, the command-line interface to Slicehouse.
        Type:  \\? for help with slicehouse commands
               \\q to quit
        SQL statements end with a semicolon; they may span several lines.

        """

    /// `\?`
    public static let backslashCommands = """
        General
          \\q                     quit slicehouse
          \\?                     show this help
          \\timing [on|off]       toggle timing of statements (currently per statement)
          \\bars [on|off]         draw EXPLAIN ANALYZE's rows per slice and skipped blocks as bars
          \\conninfo              show where the database lives

        Query Buffer
          \\g                     execute the query buffer (or the previous query)
          \\p                     show the contents of the query buffer
          \\r                     reset (clear) the query buffer

        Input/Output
          \\echo [STRING]         write string to standard output
          \\i FILE                execute commands from file
          \\ir FILE               as \\i, but relative to location of current script

        Informational
          \\d                     list tables
          \\dt [PATTERN]          list tables (matching PATTERN: * and ? wildcards)
          \\d NAME                describe table (columns, types, encodings, keys)

        Formatting
          \\a                     toggle between unaligned and aligned output mode
          \\f [STRING]            show or set field separator for unaligned output
          \\pset [NAME [VALUE]]   set table output option
                                 (border|csv_fieldsep|expanded|fieldsep|footer|format|
                                 null|pager|recordsep|tuples_only)
          \\t [on|off]            show only rows
          \\x [on|off|auto]       toggle expanded output

        Variables
          \\set [NAME [VALUE]]    set internal variable, or list all if no parameters
                                 (ON_ERROR_STOP, QUIET and ECHO have an effect)
          \\unset NAME            unset (delete) internal variable


        """
}
