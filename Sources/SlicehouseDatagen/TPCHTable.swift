// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The eight TPC-H tables, in dbgen's order of generation.
public enum TPCHTable: String, CaseIterable, Sendable, CustomStringConvertible {
    case region, nation, supplier, customer, part, partsupp, orders, lineitem

    public var description: String { rawValue }

    /// Column names, lower case, as in the TPC-H schema (and the CSV header).
    public var columnNames: [String] {
        switch self {
        case .region: return ["r_regionkey", "r_name", "r_comment"]
        case .nation: return ["n_nationkey", "n_name", "n_regionkey", "n_comment"]
        case .supplier:
            return ["s_suppkey", "s_name", "s_address", "s_nationkey", "s_phone", "s_acctbal", "s_comment"]
        case .customer:
            return ["c_custkey", "c_name", "c_address", "c_nationkey", "c_phone", "c_acctbal",
                    "c_mktsegment", "c_comment"]
        case .part:
            return ["p_partkey", "p_name", "p_mfgr", "p_brand", "p_type", "p_size", "p_container",
                    "p_retailprice", "p_comment"]
        case .partsupp: return ["ps_partkey", "ps_suppkey", "ps_availqty", "ps_supplycost", "ps_comment"]
        case .orders:
            return ["o_orderkey", "o_custkey", "o_orderstatus", "o_totalprice", "o_orderdate",
                    "o_orderpriority", "o_clerk", "o_shippriority", "o_comment"]
        case .lineitem:
            return ["l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity", "l_extendedprice",
                    "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate",
                    "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_comment"]
        }
    }

    /// Rows per scale factor of the table's *generation unit*, or nil for the
    /// fixed-size tables. The unit is the row for most tables; partsupp is
    /// generated per part (four rows each) and lineitem per order (one to seven).
    var unitsPerScaleFactor: Int64? {
        switch self {
        case .region, .nation: return nil
        case .supplier: return 10_000
        case .customer: return 150_000
        case .part, .partsupp: return 200_000
        case .orders, .lineitem: return 1_500_000
        }
    }

    /// Parses a table name or dbgen's one-letter code (`-T` letters:
    /// r n s c P S O L; lower-case `p`, `o`, `l` are accepted too).
    public init?(name: String) {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        if let table = TPCHTable(rawValue: trimmed.lowercased()) {
            self = table
            return
        }
        switch trimmed {
        case "r": self = .region
        case "n": self = .nation
        case "s": self = .supplier
        case "c": self = .customer
        case "P", "p": self = .part
        case "S": self = .partsupp
        case "O", "o": self = .orders
        case "L", "l": self = .lineitem
        default: return nil
        }
    }
}
