// SPDX-License-Identifier: Apache-2.0
import Foundation
import SlicehouseTypes
import SlicehouseSQL
import SlicehousePlan
import SlicehousePlanner
import SlicehouseExecution

/// The session's settings for the leader's result cache (`ResultCache`); a SELECT's way
/// through the cache is `QueryRunner.select`: bound first, then answered from the cache
/// when an equal plan over the same table versions has run, otherwise planned, run, and
/// its rows kept for the next time.
extension Session {
    /// Settings that steer how a query runs but not what it answers: they are left out
    /// of the cache's key, so changing them still finds the cached rows.
    static let settingsOutsideResultCacheKey: Set<String> = [
        "enable_result_cache_for_session", "query_group", "statement_timeout", "wlm_query_slot_count",
        "describe_field_name_in_uppercase", "extra_float_digits", "max_concurrency_scaling_clusters",
        "analyze_threshold_percent", "auto_analyze", "enable_vacuum_boost", "stored_proc_log_min_messages",
    ]

    /// `SET enable_result_cache_for_session` (on unless turned off).
    var resultCacheEnabled: Bool {
        guard let value = settings["enable_result_cache_for_session"]?.lowercased() else { return true }
        return !["off", "false", "0", "no", "f", "n"].contains(value)
    }

    /// The settings a cached result is found under, `name=value;` in name order.
    var resultCacheSettings: String {
        if let memo = resultCacheSettingsMemo { return memo }
        var out = ""
        for key in settings.keys.sorted() where !Session.settingsOutsideResultCacheKey.contains(key) {
            out += key + "=" + (settings[key] ?? "") + ";"
        }
        resultCacheSettingsMemo = out
        return out
    }
}
