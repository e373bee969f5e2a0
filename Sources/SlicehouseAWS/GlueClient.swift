// SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SlicehouseTypes

/// A database of the AWS Glue Data Catalog.
public struct GlueDatabase: Codable, Sendable, Equatable {
    public var name: String
    public var description: String?
    public var locationUri: String?
    public var parameters: [String: String]?

    public init(name: String, description: String? = nil, locationUri: String? = nil, parameters: [String: String]? = nil) {
        self.name = name; self.description = description; self.locationUri = locationUri; self.parameters = parameters
    }

    enum CodingKeys: String, CodingKey {
        case name = "Name", description = "Description", locationUri = "LocationUri", parameters = "Parameters"
    }
}

/// A column as Glue keeps it: a name and a Hive type (`bigint`, `decimal(12,2)`,
/// `varchar(20)`, `struct<…>`).
public struct GlueColumn: Codable, Sendable, Equatable {
    public var name: String
    public var type: String
    public var comment: String?

    public init(name: String, type: String, comment: String? = nil) {
        self.name = name; self.type = type; self.comment = comment
    }

    enum CodingKeys: String, CodingKey { case name = "Name", type = "Type", comment = "Comment" }
}

/// How a table's or partition's files are read: their columns, where they are, and the
/// Hive input format and SerDe that say what they are (Parquet, text, JSON).
public struct GlueStorageDescriptor: Codable, Sendable, Equatable {
    public struct SerDe: Codable, Sendable, Equatable {
        public var serializationLibrary: String?
        public var parameters: [String: String]?

        public init(serializationLibrary: String? = nil, parameters: [String: String]? = nil) {
            self.serializationLibrary = serializationLibrary; self.parameters = parameters
        }

        enum CodingKeys: String, CodingKey { case serializationLibrary = "SerializationLibrary", parameters = "Parameters" }
    }

    public var columns: [GlueColumn]?
    public var location: String?
    public var inputFormat: String?
    public var outputFormat: String?
    public var serdeInfo: SerDe?
    public var parameters: [String: String]?

    public init(columns: [GlueColumn]? = nil, location: String? = nil, inputFormat: String? = nil,
                outputFormat: String? = nil, serdeInfo: SerDe? = nil, parameters: [String: String]? = nil) {
        self.columns = columns; self.location = location; self.inputFormat = inputFormat
        self.outputFormat = outputFormat; self.serdeInfo = serdeInfo; self.parameters = parameters
    }

    enum CodingKeys: String, CodingKey {
        case columns = "Columns", location = "Location", inputFormat = "InputFormat", outputFormat = "OutputFormat"
        case serdeInfo = "SerdeInfo", parameters = "Parameters"
    }
}

/// A table of the catalog: Hive-style (`EXTERNAL_TABLE`, files under a location), or
/// Iceberg (`Parameters["table_type"] == "ICEBERG"`, `metadata_location`).
public struct GlueTable: Codable, Sendable, Equatable {
    public var name: String
    public var databaseName: String?
    public var tableType: String?
    public var storageDescriptor: GlueStorageDescriptor?
    public var partitionKeys: [GlueColumn]?
    public var parameters: [String: String]?

    public init(name: String, databaseName: String? = nil, tableType: String? = "EXTERNAL_TABLE",
                storageDescriptor: GlueStorageDescriptor? = nil, partitionKeys: [GlueColumn]? = nil,
                parameters: [String: String]? = nil) {
        self.name = name; self.databaseName = databaseName; self.tableType = tableType
        self.storageDescriptor = storageDescriptor; self.partitionKeys = partitionKeys; self.parameters = parameters
    }

    enum CodingKeys: String, CodingKey {
        case name = "Name", databaseName = "DatabaseName", tableType = "TableType"
        case storageDescriptor = "StorageDescriptor", partitionKeys = "PartitionKeys", parameters = "Parameters"
    }

    /// The table as CreateTable / UpdateTable take it (a TableInput: no database name).
    var input: GlueTable {
        var t = self
        t.databaseName = nil
        return t
    }
}

/// One partition: its key values, in the table's partition key order, and where its files are.
public struct GluePartition: Codable, Sendable, Equatable {
    public var values: [String]
    public var storageDescriptor: GlueStorageDescriptor?
    public var parameters: [String: String]?

    public init(values: [String], storageDescriptor: GlueStorageDescriptor? = nil, parameters: [String: String]? = nil) {
        self.values = values; self.storageDescriptor = storageDescriptor; self.parameters = parameters
    }

    enum CodingKeys: String, CodingKey {
        case values = "Values", storageDescriptor = "StorageDescriptor", parameters = "Parameters"
    }
}

/// A failure of the Glue API, as Redshift words Spectrum's catalog errors.
public enum GlueError: Error, CustomStringConvertible, Sendable, Equatable {
    /// `type`: Glue's exception name (`EntityNotFoundException`, `AlreadyExistsException`, …).
    case service(status: Int, type: String, message: String)
    case connection(String)
    case unreadable(String)

    public var description: String {
        switch self {
        case .service(let status, let type, let message): return "Glue \(type) (status \(status)): \(message)"
        case .connection(let why): return "Glue request failed: \(why)"
        case .unreadable(let why): return "Glue answer could not be read: \(why)"
        }
    }

    public var isNotFound: Bool {
        if case .service(_, let type, _) = self { return type == "EntityNotFoundException" }
        return false
    }

    public var isAlreadyExists: Bool {
        if case .service(_, let type, _) = self { return type == "AlreadyExistsException" }
        return false
    }

    /// Worth another try: throttling, or a failure on Glue's side.
    var isTransient: Bool {
        if case .service(let status, let type, _) = self {
            return status >= 500 || ["ThrottlingException", "InternalServiceException", "OperationTimeoutException"].contains(type)
        }
        return false
    }

    public var sqlError: SQLError {
        switch self {
        case .service(_, let type, _) where type == "AccessDeniedException":
            return SQLError(.insufficientPrivilege, description)
        default:
            return SQLError(.ioError, description)
        }
    }
}

/// The AWS Glue Data Catalog API calls an external schema makes: the JSON 1.1 protocol
/// (`POST /` with `X-Amz-Target: AWSGlue.<Operation>`), signed with Signature Version 4
/// for the service `glue`, through the same transport as `S3Client` (retries with
/// backoff on throttling and 5xx, `stop` asked while a request waits). The endpoint is
/// `AWS_ENDPOINT_URL_GLUE`, else `AWS_ENDPOINT_URL`, else the region's
/// (`glue.<region>.amazonaws.com`). Listing calls follow `NextToken` page by page.
public final class GlueClient: Sendable {
    public let scheme: String
    public let host: String
    public let port: Int?
    public let region: String
    let signer: SigV4Signer
    let transport: AWSTransport

    public init(scheme: String, host: String, port: Int?, region: String, credentials: AWSCredentials,
                attempts: Int = 4, requestTimeout: TimeAmount = .seconds(60), client: HTTPClient = .shared,
                stop: @escaping @Sendable () -> Error? = { nil }) {
        self.scheme = scheme; self.host = host; self.port = port; self.region = region
        signer = SigV4Signer(credentials: credentials, region: region, service: "glue")
        transport = AWSTransport(client: client, attempts: max(1, attempts), requestTimeout: requestTimeout, stop: stop)
    }

    /// A client for the endpoint the environment names (the AWS SDKs' variables), else the region's.
    public static func resolve(region explicit: String?, credentials: AWSCredentials, environment: [String: String],
                               stop: @escaping @Sendable () -> Error? = { nil }) throws -> GlueClient {
        let region = explicit ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
        if let url = environment["AWS_ENDPOINT_URL_GLUE"] ?? environment["AWS_ENDPOINT_URL"], !url.isEmpty {
            let e = try S3Endpoint.parse(url, region: region)
            return GlueClient(scheme: e.scheme, host: e.host, port: e.port, region: region, credentials: credentials, stop: stop)
        }
        return GlueClient(scheme: "https", host: "glue.\(region).amazonaws.com", port: nil, region: region,
                          credentials: credentials, stop: stop)
    }

    // MARK: - Databases

    /// The database, or nil when the catalog has none of that name.
    public func getDatabase(_ name: String) throws -> GlueDatabase? {
        struct Out: Decodable { let Database: GlueDatabase }
        do {
            return try call("GetDatabase", ["Name": name], Out.self).Database
        } catch let e as GlueError where e.isNotFound {
            return nil
        }
    }

    public func createDatabase(_ database: GlueDatabase) throws {
        struct In: Encodable { let DatabaseInput: GlueDatabase }
        try send("CreateDatabase", In(DatabaseInput: database))
    }

    public func deleteDatabase(_ name: String) throws {
        try send("DeleteDatabase", ["Name": name])
    }

    // MARK: - Tables

    /// Every table of `database`, page after page.
    public func getTables(database: String) throws -> [GlueTable] {
        struct In: Encodable { let DatabaseName: String; let NextToken: String? }
        struct Out: Decodable { let TableList: [GlueTable]?; let NextToken: String? }
        var out: [GlueTable] = []
        var token: String? = nil
        repeat {
            let page = try call("GetTables", In(DatabaseName: database, NextToken: token), Out.self)
            out += page.TableList ?? []
            token = page.NextToken.flatMap { $0.isEmpty ? nil : $0 }
        } while token != nil
        return out
    }

    /// The table, or nil when `database` has none of that name.
    public func getTable(database: String, name: String) throws -> GlueTable? {
        struct Out: Decodable { let Table: GlueTable }
        do {
            return try call("GetTable", ["DatabaseName": database, "Name": name], Out.self).Table
        } catch let e as GlueError where e.isNotFound {
            return nil
        }
    }

    public func createTable(database: String, _ table: GlueTable) throws {
        struct In: Encodable { let DatabaseName: String; let TableInput: GlueTable }
        try send("CreateTable", In(DatabaseName: database, TableInput: table.input))
    }

    public func updateTable(database: String, _ table: GlueTable) throws {
        struct In: Encodable { let DatabaseName: String; let TableInput: GlueTable }
        try send("UpdateTable", In(DatabaseName: database, TableInput: table.input))
    }

    public func deleteTable(database: String, name: String) throws {
        try send("DeleteTable", ["DatabaseName": database, "Name": name])
    }

    // MARK: - Partitions

    /// The table's partitions, page after page; `expression` (Glue's partition predicate,
    /// `year = '2024' AND month > '06'`) narrows them on Glue's side.
    /// With `excludeColumnSchema`, Glue leaves each partition's column list out (a smaller
    /// answer, when only values and locations are wanted).
    public func getPartitions(database: String, table: String, expression: String? = nil,
                              excludeColumnSchema: Bool = false) throws -> [GluePartition] {
        struct In: Encodable {
            let DatabaseName: String; let TableName: String; let Expression: String?; let NextToken: String?
            let ExcludeColumnSchema: Bool?
        }
        struct Out: Decodable { let Partitions: [GluePartition]?; let NextToken: String? }
        var out: [GluePartition] = []
        var token: String? = nil
        repeat {
            let page = try call("GetPartitions", In(DatabaseName: database, TableName: table, Expression: expression,
                                                    NextToken: token, ExcludeColumnSchema: excludeColumnSchema ? true : nil),
                                Out.self)
            out += page.Partitions ?? []
            token = page.NextToken.flatMap { $0.isEmpty ? nil : $0 }
        } while token != nil
        return out
    }

    /// Register partitions, 100 to a request (Glue's limit). A partition that already exists
    /// is an error unless `ignoreExisting`.
    public func batchCreatePartition(database: String, table: String, _ partitions: [GluePartition],
                                     ignoreExisting: Bool = false) throws {
        struct In: Encodable { let DatabaseName: String; let TableName: String; let PartitionInputList: [GluePartition] }
        struct Failure: Decodable {
            struct Detail: Decodable { let ErrorCode: String?; let ErrorMessage: String? }
            let PartitionValues: [String]?
            let ErrorDetail: Detail?
        }
        struct Out: Decodable { let Errors: [Failure]? }
        var at = 0
        while at < partitions.count {
            let batch = Array(partitions[at..<min(partitions.count, at + 100)])
            let out = try call("BatchCreatePartition", In(DatabaseName: database, TableName: table, PartitionInputList: batch),
                               Out.self)
            for f in out.Errors ?? [] {
                let code = f.ErrorDetail?.ErrorCode ?? "InternalServiceException"
                if ignoreExisting && code == "AlreadyExistsException" { continue }
                throw GlueError.service(status: 200, type: code,
                                        message: "partition (\((f.PartitionValues ?? []).joined(separator: ", "))): "
                                            + (f.ErrorDetail?.ErrorMessage ?? code))
            }
            at += batch.count
        }
    }

    public func batchDeletePartition(database: String, table: String, values: [[String]]) throws {
        struct Key: Encodable { let Values: [String] }
        struct In: Encodable { let DatabaseName: String; let TableName: String; let PartitionsToDelete: [Key] }
        var at = 0
        while at < values.count {
            let batch = values[at..<min(values.count, at + 25)].map { Key(Values: $0) }
            try send("BatchDeletePartition", In(DatabaseName: database, TableName: table, PartitionsToDelete: batch))
            at += batch.count
        }
    }

    // MARK: - Requests

    private func send<In: Encodable>(_ operation: String, _ input: In) throws {
        _ = try post(operation, input)
    }

    private func call<In: Encodable, Out: Decodable>(_ operation: String, _ input: In, _ type: Out.Type) throws -> Out {
        let body = try post(operation, input)
        do {
            return try JSONDecoder().decode(Out.self, from: Data(body))
        } catch {
            throw GlueError.unreadable("\(operation): \(error)")
        }
    }

    /// Sign and send one operation, trying again as `AWSTransport` does; the answer's body.
    private func post<In: Encodable>(_ operation: String, _ input: In) throws -> [UInt8] {
        let body: [UInt8]
        do {
            body = Array(try JSONEncoder().encode(input))
        } catch {
            throw GlueError.unreadable("\(operation): the request could not be encoded: \(error)")
        }
        let hostHeader = port.map { "\(host):\($0)" } ?? host
        let headers = [("content-type", "application/x-amz-json-1.1"), ("x-amz-target", "AWSGlue.\(operation)")]
        let answer = try transport.retrying(
            what: "Glue \(operation)",
            once: {
                let request = SigV4Signer.Request(method: "POST", host: hostHeader, path: "/", headers: headers,
                                                  payloadHash: SigV4Signer.payloadHash(body))
                let signed = signer.sign(request, amzDate: S3Client.amzDate(Date()))
                var h = HTTPHeaders()
                for (name, value) in headers + signed where name != "host" { h.add(name: name, value: value) }
                let r = try HTTPClient.Request(url: "\(scheme)://\(hostHeader)/", method: .POST, headers: h, body: .bytes(body))
                return try transport.exchange(r)
            },
            judge: { answer in
                if (200..<300).contains(answer.status) { return nil }
                let e = Self.error(status: answer.status, body: answer.body)
                return (e, e.isTransient)
            },
            connectionError: { GlueError.connection($0) },
            record: { _, _, _, _ in })
        return answer.body
    }

    /// Glue's error answer: `{"__type": "…#EntityNotFoundException", "Message": "…"}`.
    static func error(status: Int, body: [UInt8]) -> GlueError {
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        var type = (object?["__type"] as? String) ?? (object?["code"] as? String) ?? "HTTP \(status)"
        if let hash = type.lastIndex(of: "#") { type = String(type[type.index(after: hash)...]) }
        if let colon = type.firstIndex(of: ":") { type = String(type[..<colon]) }
        let message = (object?["Message"] as? String) ?? (object?["message"] as? String) ?? String(decoding: body.prefix(300), as: UTF8.self)
        return .service(status: status, type: type, message: message)
    }
}
