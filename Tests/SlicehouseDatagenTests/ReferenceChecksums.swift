// SPDX-License-Identifier: Apache-2.0
import SlicehouseDatagen

/// SHA-256 and row counts of the `.tbl` files TPC's dbgen writes (as recorded
/// from tpchgen-cli 4.0.0, which reproduces dbgen byte for byte).
enum ReferenceChecksums {
    struct Entry {
        let table: TPCHTable
        let sha256: String
        let rows: Int64
    }

    static let sf0_01: [Entry] = [
        Entry(table: .region, sha256: "6022658d673924389b54dcb70fa8c3d6da1b0d7afa3c1c017bab62a019df404f", rows: 5),
        Entry(table: .nation, sha256: "66f96949939fa8fdf1c4ffed1e5f6c2842fe11a14b51fdc6ed1e17460031e8c5", rows: 25),
        Entry(table: .supplier, sha256: "9dc1002ee774699a092ed83ba278caf466d62a15d7e35bb6ed9293475528734b", rows: 100),
        Entry(table: .customer, sha256: "6b690cce995cb715861ebf2c77aa02c61406e3a0ddcd3326d1ecfa969b9163f8", rows: 1500),
        Entry(table: .part, sha256: "896e14465325110dd9cf05a16972028a58be0010959262176ecd97f4db1702f8", rows: 2000),
        Entry(table: .partsupp, sha256: "5947b5ebab042b49148f82c1324ad122f7e0d98cfadcbef12da0a5e239e09e79", rows: 8000),
        Entry(table: .orders, sha256: "07cc8b362fda6d0b503c4d6c5d228817548e0688a3b21b590c52bb47b7b79c0f", rows: 15000),
        Entry(table: .lineitem, sha256: "ee411d23efcd2943ef70489799e37dfc24543dbd03b461a88e16fd82a95765e4", rows: 60175),
    ]

    static let sf0_1: [Entry] = [
        Entry(table: .region, sha256: "6022658d673924389b54dcb70fa8c3d6da1b0d7afa3c1c017bab62a019df404f", rows: 5),
        Entry(table: .nation, sha256: "66f96949939fa8fdf1c4ffed1e5f6c2842fe11a14b51fdc6ed1e17460031e8c5", rows: 25),
        Entry(table: .supplier, sha256: "75d5d11bd57607c5386295e74bb8edec4af5dd08d43c5831b67c224473be9a08", rows: 1000),
        Entry(table: .customer, sha256: "952d7f4ee8787657c94e488aae78524439f904fde9113382943ced58ba7895fa", rows: 15000),
        Entry(table: .part, sha256: "f262984f0a5063d20b2aff651c5ac8ca1eea182b3ee75b6a5dab3854eb471997", rows: 20000),
        Entry(table: .partsupp, sha256: "9a50586162af988723fa2c64969454ca34840e9a602bb9fbc974b9c3808f6620", rows: 80000),
        Entry(table: .orders, sha256: "5e9fabe33d7f15596225a00da871f8c18b3da76f515c91119840c7115c50d101", rows: 150000),
        Entry(table: .lineitem, sha256: "6fe51474be8c04e04737c83f1cea2feaf3179e4f3bd6ba08c5065928d96ee60b", rows: 600572),
    ]

    static let sf1: [Entry] = [
        Entry(table: .region, sha256: "6022658d673924389b54dcb70fa8c3d6da1b0d7afa3c1c017bab62a019df404f", rows: 5),
        Entry(table: .nation, sha256: "66f96949939fa8fdf1c4ffed1e5f6c2842fe11a14b51fdc6ed1e17460031e8c5", rows: 25),
        Entry(table: .supplier, sha256: "9b99cf155974e6db8773970b40746bfccfa64fa078169574165f3e19e2158391", rows: 10000),
        Entry(table: .customer, sha256: "4483680548a965833877c911ed43e795f4d3543c7a3f7d1dba9ccb24ea5989d6", rows: 150000),
        Entry(table: .part, sha256: "f0e4ccdfb5f6d19428ce54f9c84b17037d20f00ac8d2b2272c8d43b18a0b4880", rows: 200000),
        Entry(table: .partsupp, sha256: "43c37f99918f06d4de6b99b05c0a28d5c46f71d66424cffcc595cb059a499254", rows: 800000),
        Entry(table: .orders, sha256: "8709061d7bbc81932356fdfc664f8d582252747c2d7e204ae6d3cde624586357", rows: 1500000),
        Entry(table: .lineitem, sha256: "96d555e07a1ae8cf5196387d9edd9427f9af70c56fa5f4b18affee5555ddb184", rows: 6001215),
    ]
}
