// SPDX-License-Identifier: Apache-2.0
import Foundation

public enum Clock {
    /// The current time in microseconds since 1970-01-01 00:00:00 UTC.
    public static func nowMicros() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1_000_000).rounded(.down))
    }
}
