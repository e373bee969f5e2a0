// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL

/// The session's settings: SET, RESET and SHOW, over the parameters Redshift documents
/// (`settableParameters`), the PostgreSQL client parameters drivers set
/// (`clientParameters`) and those SHOW reports and SET cannot change (`fixedSettings`).
extension Session {
    /// `SET name {TO | =} value` (or `TO DEFAULT`).
    func set(_ s: SetStatement) throws -> StatementResult {
        guard Session.settableParameters[s.name] != nil || Session.clientParameters.contains(s.name) else {
            throw SQLError(.undefinedObject, "unrecognized configuration parameter \"\(s.name)\"")
        }
        if s.local && !inTransactionBlock {
            // Its transaction is the statement itself: nothing to set (PostgreSQL's warning).
            return StatementResult(tag: "SET", notices: ["WARNING:  SET LOCAL can only be used in transaction blocks"])
        }
        if inTransactionBlock { settingsBlock.willSet(s.name, local: s.local, current: settings) }
        if s.isDefault {   // SET name TO DEFAULT: as RESET
            settings[s.name] = defaultSetting(s.name)
            return StatementResult(tag: "SET")
        }
        settings[s.name] = try settingValue(s)
        return StatementResult(tag: "SET")
    }

    /// The text a SET of `s` stores, checked as the parameter needs.
    func settingValue(_ s: SetStatement) throws -> String {
        let value = s.values.map { v -> String in
            // search_path names schemas: a quoted name keeps its case (and its quotes, as
            // PostgreSQL shows it) only while enable_case_sensitive_identifier is on.
            guard s.name == "search_path", case .identifier(let name) = v else { return v.text }
            return parseOptions.caseSensitiveIdentifiers ? quoteIdentifierIfNeeded(name) : name.lowercased()
        }.joined(separator: ", ")
        if s.name == "timezone", !s.values.isEmpty, TimeZoneRules.rule(named: value) == nil {
            throw SQLError(.invalidParameter, "invalid value for parameter \"timezone\": \"\(value)\"")
        }
        if s.name == "wlm_query_slot_count", !(Int(value).map { (1...50).contains($0) } ?? false) {
            throw SQLError(.invalidParameter, "invalid value for parameter \"wlm_query_slot_count\": \"\(value)\" (1 to 50)")
        }
        if s.name == "statement_timeout", Session.milliseconds(value) == nil {
            throw SQLError(.invalidParameter, "invalid value for parameter \"statement_timeout\": \"\(value)\"")
        }
        if s.name == "datestyle" {
            // `ISO, MDY`: an output style (ISO, Postgres, SQL, German) and a field order
            // (MDY, DMY, YMD), either or both. Only the order changes what is read;
            // values are shown in ISO style whatever the setting (DIFFERENCES.md).
            let words = value.uppercased().split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
            let known: Set<String> = ["ISO", "POSTGRES", "SQL", "GERMAN", "MDY", "DMY", "YMD", "EURO", "EUROPEAN", "US", "NONEURO", "NONEUROPEAN"]
            guard !words.isEmpty, words.allSatisfy(known.contains) else {
                throw SQLError(.invalidParameter, "invalid value for parameter \"datestyle\": \"\(value)\"")
            }
        }
        if s.name == "standard_conforming_strings", value.lowercased() != "off" {
            // Every literal reads backslash escapes (Lexer.scanQuoted), as Redshift's do.
            throw SQLError(.featureNotSupported,
                           "standard_conforming_strings cannot be turned on: string literals read backslash escapes, as in Redshift")
        }
        if Session.booleanParameters.contains(s.name), Session.boolean(value) == nil {
            throw SQLError(.invalidParameter, "parameter \"\(s.name)\" requires a Boolean value")
        }
        return value
    }

    /// A parameter's value before any SET in this session: the user's own default
    /// (`ALTER USER ... SET`), else the database's.
    func defaultSetting(_ name: String) -> String? {
        database.user(named: sessionUser)?.settings?[name] ?? Session.defaultSettings[name]
    }

    /// Every parameter's value before any SET in this session (`defaultSetting`).
    var defaultSettings: [String: String] {
        Session.defaultSettings.merging(database.user(named: sessionUser)?.settings ?? [:]) { _, user in user }
    }

    /// Start from the logged-in user's own defaults (at connection, `ALTER USER ... SET`).
    func applyUserSettings() {
        settings = defaultSettings
    }

    /// What the session's settings make of SQL text: its statements are parsed with these.
    public var parseOptions: ParseOptions {
        ParseOptions(caseSensitiveIdentifiers: Session.boolean(settings["enable_case_sensitive_identifier"] ?? "off") ?? false)
    }

    /// Parameters whose value is a Boolean (SET checks it; `boolean` reads it).
    static let booleanParameters: Set<String> = ["enable_case_sensitive_identifier", "enable_case_sensitive_super_attribute"]

    /// A Boolean setting's value as PostgreSQL reads it (`on`, `true`, `yes`, `1`, and
    /// their opposites, in any case), or nil.
    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "on", "true", "t", "yes", "y", "1": return true
        case "off", "false", "f", "no", "n", "0": return false
        default: return nil
        }
    }

    /// `RESET name` or `RESET ALL`.
    func reset(_ name: String) -> StatementResult {
        if inTransactionBlock {
            if name == "all" { settingsBlock.willResetAll() } else { settingsBlock.willSet(name, local: false, current: settings) }
        }
        if name == "all" { settings = defaultSettings } else { settings[name] = defaultSetting(name) }
        return StatementResult(tag: "RESET")
    }

    /// `SHOW name` or `SHOW ALL`.
    func show(_ name: String) throws -> StatementResult {
        if name == "all" {
            // Every parameter SET can change, with its value in this session.
            var names = Vector(type: .text), values = Vector(type: .text)
            for key in Session.settableParameters.keys.sorted() {
                names.append(.string(key))
                values.append(.string(settings[key] ?? Session.settableParameters[key] ?? ""))
            }
            return StatementResult(tag: "SHOW", columns: [ResultColumn(name: "name", type: .text),
                                                          ResultColumn(name: "setting", type: .text)],
                                   chunks: [Chunk(columns: [names, values], count: names.count)])
        }
        guard let value = settings[name] ?? Session.fixedSettings[name] ?? Session.settableParameters[name]
                ?? (Session.clientParameters.contains(name) ? "" : nil) else {
            throw SQLError(.undefinedObject, "unrecognized configuration parameter \"\(name)\"")
        }
        var v = Vector(type: .text)
        v.append(.string(value))
        return StatementResult(tag: "SHOW", columns: [ResultColumn(name: name, type: .text)], chunks: [Chunk(columns: [v], count: 1)])
    }

    /// `statement_timeout` in milliseconds (0 or unset: none).
    var statementTimeout: Int? {
        guard let text = settings["statement_timeout"] else { return nil }
        return Session.milliseconds(text)
    }

    /// A duration setting's value in milliseconds: a number (milliseconds) or a number
    /// with a unit (`ms`, `s`, `min`, `h`, `d`); nil when it is not one.
    static func milliseconds(_ text: String) -> Int? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        let digits = t.prefix { $0.isNumber }
        guard let n = Int(digits) else { return nil }
        let unit = t.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)
        switch unit {
        case "", "ms": return n
        case "s": return n.multipliedReportingOverflow(by: 1000).overflow ? nil : n * 1000
        case "min": return n.multipliedReportingOverflow(by: 60_000).overflow ? nil : n * 60_000
        case "h": return n.multipliedReportingOverflow(by: 3_600_000).overflow ? nil : n * 3_600_000
        case "d": return n.multipliedReportingOverflow(by: 86_400_000).overflow ? nil : n * 86_400_000
        default: return nil
        }
    }

    /// The parameters SET accepts and SHOW ALL lists (Redshift's configuration reference),
    /// with their values before any SET. Those `defaultSettings` holds are used by the
    /// engine; the others are kept and shown.
    static let settableParameters: [String: String] = [
        "analyze_threshold_percent": "10", "datestyle": "ISO, MDY", "extra_float_digits": "0", "query_group": "unset",
        "search_path": "$user, public", "statement_timeout": "0", "timezone": "UTC", "wlm_query_slot_count": "1",
        "enable_result_cache_for_session": "on", "describe_field_name_in_uppercase": "off",
        "enable_case_sensitive_identifier": "off", "enable_case_sensitive_super_attribute": "off",
        "downcase_delimited_identifier": "on", "enable_numeric_rounding": "on", "error_on_nondeterministic_update": "off",
        "json_parse_dedupe_keys": "off", "json_serialization_max_length": "65535",
        "json_serialization_parse_nested_strings": "off", "max_concurrency_scaling_clusters": "1",
        "max_cursor_result_set_size": "0", "mv_enable_aqmv_for_session": "true", "navigate_super_null_on_error": "on",
        "parse_super_null_on_error": "off", "cast_super_null_on_error": "on", "spectrum_query_maxerror": "-1",
        "stored_proc_log_min_messages": "log", "default_geometry_encoding": "2", "enable_vacuum_boost": "false",
        "default_array_search_null_handling": "false", "datashare_break_glass_session_var": "",
        "use_fips_ssl": "false", "auto_analyze": "true",
    ]

    /// PostgreSQL client parameters SET also accepts (drivers and tools set them); SHOW
    /// ALL does not list them.
    static let clientParameters: Set<String> = [
        "application_name", "client_encoding", "client_min_messages", "intervalstyle", "lc_messages", "lc_monetary",
        "lc_numeric", "lc_time", "bytea_output", "lock_timeout", "idle_in_transaction_session_timeout",
        "default_transaction_isolation", "default_transaction_read_only", "transaction_isolation", "standard_conforming_strings",
        "escape_string_warning", "synchronize_seqscans", "join_collapse_limit", "from_collapse_limit", "geqo", "jit",
        "work_mem", "maintenance_work_mem", "timezone_abbreviations", "row_security", "check_function_bodies",
        "default_with_oids", "ssl_renegotiation_limit", "array_nulls", "backslash_quote", "seq_page_cost",
    ]

    /// Settings that SHOW reports and SET does not change (what clients ask on connect).
    static let fixedSettings: [String: String] = [
        "transaction_isolation": "serializable", "standard_conforming_strings": "off", "server_version": "8.0.2",
        "server_encoding": "UNICODE", "client_encoding": "UTF8", "integer_datetimes": "on", "max_identifier_length": "127",
        "statement_timeout": "0", "enable_result_cache_for_session": "on", "max_index_keys": "32",
    ]
}

/// What a transaction block does to the session's settings, as in PostgreSQL and Redshift:
/// a ROLLBACK undoes every SET made in the block, and a SET LOCAL lasts until the block
/// ends, committed or not — after a COMMIT the session's own value is back (the one before
/// the SET LOCAL, or a plain SET's made later in the block).
struct SettingsBlock {
    /// The settings when the block began (nil outside a block).
    private var atStart: [String: String]?
    /// For each parameter SET LOCAL changed: the session's value to restore at COMMIT
    /// (nil: the parameter was not set).
    private var sessionValues: [String: String?] = [:]

    /// A transaction block began with `settings`.
    mutating func began(_ settings: [String: String]) {
        atStart = settings
        sessionValues = [:]
    }

    /// `name` is about to be SET (LOCAL or not) or RESET in the block, from `current`.
    mutating func willSet(_ name: String, local: Bool, current: [String: String]) {
        if local {
            if sessionValues[name] == nil { sessionValues[name] = .some(current[name]) }
        } else {
            // A plain SET is the session's value now and after the block.
            sessionValues.removeValue(forKey: name)
        }
    }

    /// RESET ALL in the block: every parameter's session value is its default now.
    mutating func willResetAll() {
        sessionValues = [:]
    }

    /// The block ended: committed, the SET LOCAL values give way to the session's; rolled
    /// back, the settings are the block's starting ones.
    mutating func ended(committed: Bool, _ settings: inout [String: String]) {
        if committed {
            for (name, value) in sessionValues { settings[name] = value }
        } else if let atStart {
            settings = atStart
        }
        atStart = nil
        sessionValues = [:]
    }
}
