// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
@testable import SlicehouseSQL

final class CopyUnloadTests: XCTestCase {
    private func copyOptions(_ options: String, file: StaticString = #filePath, line: UInt = #line) throws -> [CopyOption] {
        guard case .copy(let copy) = try parseStatement("COPY t FROM 'f' " + options) else {
            XCTFail("not COPY", file: file, line: line)
            return []
        }
        return copy.options
    }

    private func opt(_ name: String, _ args: CopyOptionArgument...) -> CopyOption {
        CopyOption(name: name, args: args)
    }

    func testCopyHeader() throws {
        XCTAssertEqual(try parseStatement("COPY s.t (a, b) FROM '/data/t.tbl'"), .copy(Copy(
            table: ObjectName(schema: "s", name: "t"), columns: ["a", "b"], source: "/data/t.tbl")))
    }

    func testEveryOptionFormParses() throws {
        let cases: [(String, [CopyOption])] = [
            ("DELIMITER '|'", [opt("delimiter", .string("|"))]),
            ("DELIMITER AS ','", [opt("delimiter", .string(","))]),
            ("CSV", [opt("csv")]),
            ("CSV QUOTE AS '\"'", [opt("csv"), opt("quote", .string("\""))]),
            ("FORMAT AS CSV", [opt("csv")]),
            ("FORMAT CSV", [opt("csv")]),
            ("IGNOREHEADER 1", [opt("ignoreheader", .number("1"))]),
            ("IGNOREHEADER AS 1", [opt("ignoreheader", .number("1"))]),
            (#"NULL AS '\N'"#, [opt("null", .string(#"\N"#))]),
            ("GZIP", [opt("gzip")]),
            ("JSON 'auto'", [opt("json", .string("auto"))]),
            ("FORMAT AS JSON 'auto ignorecase'", [opt("json", .string("auto ignorecase"))]),
            ("FIXEDWIDTH 'a:1,b:2'", [opt("fixedwidth", .string("a:1,b:2"))]),
            ("DATEFORMAT 'auto'", [opt("dateformat", .string("auto"))]),
            ("TIMEFORMAT AS 'epochsecs'", [opt("timeformat", .string("epochsecs"))]),
            ("MAXERROR 10", [opt("maxerror", .number("10"))]),
            ("IAM_ROLE 'arn:aws:iam::1:role/r'", [opt("iam_role", .string("arn:aws:iam::1:role/r"))]),
            ("IAM_ROLE default", [opt("iam_role", .identifier("default"))]),
            ("CREDENTIALS 'aws_access_key_id=x;aws_secret_access_key=y'",
             [opt("credentials", .string("aws_access_key_id=x;aws_secret_access_key=y"))]),
            ("REGION 'us-east-1'", [opt("region", .string("us-east-1"))]),
            ("REGION AS 'us-east-1'", [opt("region", .string("us-east-1"))]),
            ("MANIFEST", [opt("manifest")]),
            ("COMPUPDATE OFF", [opt("compupdate", .identifier("off"))]),
            ("COMPUPDATE PRESET STATUPDATE ON", [opt("compupdate", .identifier("preset")), opt("statupdate", .identifier("on"))]),
            ("ACCEPTINVCHARS '?'", [opt("acceptinvchars", .string("?"))]),
            ("ACCEPTINVCHARS", [opt("acceptinvchars")]),
            ("ENCODING UTF16LE", [opt("encoding", .identifier("utf16le"))]),
            ("EMPTYASNULL BLANKSASNULL TRIMBLANKS TRUNCATECOLUMNS", [opt("emptyasnull"), opt("blanksasnull"),
                                                                     opt("trimblanks"), opt("truncatecolumns")]),
            ("PARQUET", [opt("parquet")]),
            ("FORMAT AS AVRO 'auto'", [opt("avro", .string("auto"))]),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(try copyOptions(text), expected, text)
        }
    }

    func testOptionsInSequenceAndLookup() throws {
        guard case .copy(let copy) = try parseStatement("""
            copy lineitem from 's3://b/lineitem.tbl.' iam_role 'arn' delimiter '|' gzip region 'us-west-2'
            ignoreheader 1 maxerror 5;
            """) else { return XCTFail() }
        XCTAssertEqual(copy.options.map(\.name), ["iam_role", "delimiter", "gzip", "region", "ignoreheader", "maxerror"])
        XCTAssertEqual(copy.option("delimiter")?.stringValue, "|")
        XCTAssertEqual(copy.option("maxerror")?.value, .number("5"))
        XCTAssertNil(copy.option("csv"))
        XCTAssertEqual([copy.options[2].location.line, copy.options[2].location.column], [1, 72])
    }

    func testUnload() throws {
        guard case .unload(let unload) = try parseStatement("""
            UNLOAD ('select * from venue where venuestate = ''NV''') TO 's3://bucket/venue_'
            IAM_ROLE 'arn' FORMAT AS PARQUET PARTITION BY (venuestate, venuecity) INCLUDE
            MANIFEST VERBOSE HEADER ALLOWOVERWRITE PARALLEL OFF MAXFILESIZE AS 100 MB
            """) else { return XCTFail() }
        XCTAssertEqual(unload.query, "select * from venue where venuestate = 'NV'")
        XCTAssertEqual(unload.destination, "s3://bucket/venue_")
        XCTAssertEqual(unload.options, [
            opt("iam_role", .string("arn")),
            opt("parquet"),
            opt("partition by", .list(["venuestate", "venuecity"]), .identifier("include")),
            opt("manifest", .identifier("verbose")),
            opt("header"),
            opt("allowoverwrite"),
            opt("parallel", .identifier("off")),
            opt("maxfilesize", .number("100"), .identifier("mb")),
        ])
        XCTAssertEqual(unload.option("partition by")?.stringValue, "venuestate,venuecity")
        // The query inside parses on its own.
        XCTAssertNoThrow(try parseStatement(unload.query))
    }

    func testCopyErrors() {
        assertSyntaxError("COPY t FROM f", "syntax error at or near \"f\"", line: 1, column: 13)
        assertSyntaxError("COPY t FROM 'f' DELIMITER ,", "syntax error at or near \",\"", line: 1, column: 27)
    }
}
