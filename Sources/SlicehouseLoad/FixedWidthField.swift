// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// One `label:width` pair of a COPY `FIXEDWIDTH 'fixedwidth_spec'`.
///
/// As in Redshift, the label is informational (any name or number the user likes):
/// pairs map to the loaded columns **by position**, so the spec must list exactly one
/// pair per loaded column, in column (or column-list) order. Widths count characters,
/// not bytes.
public struct FixedWidthField: Sendable, Equatable {
    public var label: String
    public var width: Int

    public init(label: String, width: Int) {
        self.label = label
        self.width = width
    }

    /// Widest field accepted (a sanity bound: far beyond any VARCHAR).
    public static let maxWidth = 1 << 20

    /// Parse `'label:width,label:width,...'` (blanks around labels and widths allowed).
    public static func parseSpec(_ spec: String) throws -> [FixedWidthField] {
        let pairs = spec.split(separator: ",", omittingEmptySubsequences: false)
        guard !spec.trimmingBlanks.isEmpty else {
            throw SQLError(.invalidParameter, "FIXEDWIDTH specification is empty (expected 'label:width,...')")
        }
        var out: [FixedWidthField] = []
        for pair in pairs {
            guard let colon = pair.lastIndex(of: ":") else {
                throw SQLError(.invalidParameter, "FIXEDWIDTH entry '\(pair)' is not 'label:width'")
            }
            let label = String(pair[..<colon]).trimmingBlanks
            let widthText = String(pair[pair.index(after: colon)...]).trimmingBlanks
            guard !label.isEmpty else {
                throw SQLError(.invalidParameter, "FIXEDWIDTH entry '\(pair)' has an empty column label")
            }
            guard let width = Int(widthText), width >= 1, width <= maxWidth else {
                throw SQLError(.invalidParameter,
                               "FIXEDWIDTH width for '\(label)' must be an integer between 1 and \(maxWidth), got '\(widthText)'")
            }
            out.append(FixedWidthField(label: String(label), width: width))
        }
        return out
    }
}
