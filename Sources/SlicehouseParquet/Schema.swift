// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// The schema of a Parquet file is a tree flattened depth-first into a list: the root
/// (the message) first, then each field; a group (struct, list, map) gives its number of
/// children and is followed by them. Only leaves hold data, and the column chunks of a
/// row group are the leaves in that same order.
///
/// Each field is REQUIRED, OPTIONAL (may be NULL) or REPEATED (a list). Along the path to a
/// leaf, every OPTIONAL or REPEATED ancestor adds one *definition level* and every REPEATED
/// one adds one *repetition level*. A flat nullable column is a top-level OPTIONAL leaf:
/// its definition level is 1 for a value and 0 for NULL, and it has no repetition levels.
///
/// A top-level leaf is read straight into a vector (`ColumnDecoder`). A top-level group
/// or repeated field is *nested*: its leaves are assembled into one JSON value per row
/// (`NestedSchema`, `NestedColumnReader`), for SUPER columns or as JSON text.

/// One top-level field of a Parquet file.
public struct ParquetColumn: Sendable, CustomStringConvertible {
    /// The field name as written.
    public let name: String
    /// Position among the top-level fields (what `readRowGroup(columns:)` takes).
    public let index: Int
    /// A group (struct, list, map) or a repeated field: not readable into a flat table.
    public let isNested: Bool
    /// The field may hold NULLs (OPTIONAL).
    public let isNullable: Bool
    /// Physical type of a leaf (nil for groups).
    public let physicalType: ParquetPhysicalType?
    /// Raw physical type number (for an unknown type in the file).
    let physicalTypeRaw: Int32?
    /// Byte length of FIXED_LEN_BYTE_ARRAY values (0 otherwise).
    public let typeLength: Int
    public let logicalType: ParquetLogicalType
    /// Index of the column chunk holding this field (the first leaf below it).
    let leafIndex: Int
    /// Maximum definition level of the leaf (0 or 1 for flat columns).
    let maxDefinitionLevel: Int
    /// The field resolved for record assembly (nested columns, and flat ones loaded into
    /// SUPER); nil when it cannot be read that way (`nestedProblem` says why).
    let nested: NestedColumnSchema?
    let nestedProblem: String?
    /// The schema element's field id (Iceberg's column identity), when the writer gave one.
    public internal(set) var fieldID: Int32? = nil

    public var description: String {
        if isNested { return "\(name) (nested)" }
        let t = physicalType?.description ?? "type #\(physicalTypeRaw ?? -1)"
        let l = logicalType == .none ? "" : " \(logicalType)"
        return "\(name) \(t)\(typeLength > 0 ? "(\(typeLength))" : "")\(l)\(isNullable ? "" : " NOT NULL")"
    }

    /// The Slicehouse type a COPY into a new table would naturally use for this column,
    /// or nil when there is none (nested, binary, time-of-day, ...).
    public var naturalType: DataType? {
        guard !isNested, let physicalType else { return nil }
        switch logicalType {
        case .string, .enumeration, .json:
            return .varchar(DataType.maxVarcharLength)
        case .decimal(let p, let s):
            guard p >= 1, p <= DataType.maxDecimalPrecision, s >= 0, s <= p else { return nil }
            return .decimal(precision: p, scale: s)
        case .date: return .date
        case .timestamp: return .timestamp
        case .integer(let bits, let signed):
            if bits <= 8 || (bits == 16 && signed) { return .smallint }
            if bits == 16 || (bits == 32 && signed) { return .integer }
            if bits == 32 || signed { return .bigint }
            return .decimal(precision: 20, scale: 0)
        case .none:
            switch physicalType {
            case .boolean: return .boolean
            case .int32: return .integer
            case .int64: return .bigint
            case .int96: return .timestamp
            case .float: return .real
            case .double: return .double
            case .byteArray: return .varchar(DataType.maxVarcharLength)
            case .fixedLenByteArray: return nil
            }
        default:
            return nil
        }
    }
}

/// The top-level fields of a file's schema.
public struct ParquetSchema: Sendable {
    public let columns: [ParquetColumn]
    /// Number of leaf columns (column chunks per row group).
    let leafCount: Int

    /// Build from the footer's flattened schema. Child counts are checked against the
    /// list, and the tree is walked without recursion (a forged depth cannot overflow
    /// the stack).
    init(elements: [SchemaElement]) throws {
        guard let root = elements.first else { throw ParquetError.corrupt("empty schema") }
        let rootChildren = Int(root.numChildren ?? 0)
        guard rootChildren >= 0, rootChildren < elements.count else {
            throw ParquetError.corrupt("schema root claims \(rootChildren) children but the schema has \(elements.count - 1) elements")
        }
        var columns: [ParquetColumn] = []
        var i = 1
        var leaf = 0
        for top in 0..<rootChildren {
            guard i < elements.count else { throw ParquetError.corrupt("schema ends inside the root's fields") }
            let e = elements[i]
            let start = i
            let isGroup = (e.numChildren ?? 0) > 0 || e.type == nil
            let repetition = e.repetition.flatMap(Repetition.init(rawValue:))
            let firstLeaf = leaf
            // Consume this field's subtree, counting its leaves.
            var pending = 1
            while pending > 0 {
                guard i < elements.count else { throw ParquetError.corrupt("schema ends inside field \"\(e.name)\"") }
                let node = elements[i]
                pending -= 1
                let children = Int(node.numChildren ?? 0)
                guard children >= 0, children <= elements.count - i - 1 else {
                    throw ParquetError.corrupt("schema element \"\(node.name)\" claims \(children) children")
                }
                if children > 0 { pending += children } else if node.type != nil { leaf += 1 }
                i += 1
            }
            let physical = e.type.flatMap(ParquetPhysicalType.init(rawValue:))
            var nested: NestedColumnSchema? = nil
            var nestedProblem: String? = nil
            do {
                nested = try NestedSchemaBuilder.build(elements, start: start, leafBase: firstLeaf, columnIndex: top)
            } catch let error as ParquetError {
                nestedProblem = error.message
            }
            columns.append(ParquetColumn(
                name: e.name,
                index: top,
                isNested: isGroup || repetition == .repeated,
                isNullable: repetition != .required,
                physicalType: isGroup ? nil : physical,
                physicalTypeRaw: isGroup ? nil : e.type,
                typeLength: Int(max(0, e.typeLength ?? 0)),
                logicalType: e.resolvedLogicalType,
                leafIndex: firstLeaf,
                maxDefinitionLevel: repetition == .required ? 0 : 1,
                nested: nested, nestedProblem: nestedProblem, fieldID: e.fieldID))
        }
        guard i == elements.count else {
            throw ParquetError.corrupt("schema has \(elements.count - i) elements outside the root")
        }
        self.columns = columns
        self.leafCount = leaf
    }

    /// The column named `name` (exact match first, then case-insensitive).
    public func column(named name: String) -> ParquetColumn? {
        if let c = columns.first(where: { $0.name == name }) { return c }
        let lower = name.lowercased()
        return columns.first { $0.name.lowercased() == lower }
    }
}

extension ParquetColumn {
    /// Why this column's values cannot be loaded into a column of `type` (nil when they
    /// can): a nested column, or a conversion the reader does not make (a string into an
    /// integer, ...). Checked from the schema alone, before any data is read.
    public func conversionProblem(to type: DataType) -> String? {
        if isNested || type == .superType {
            if let nestedProblem { return nestedProblem }
            guard let nested else { return ParquetError.nested.message }
            for leaf in nested.leaves {
                do { _ = try NestedLeaf.jsonValueType(leaf.column) } catch let e as ParquetError { return e.message } catch { return "\(error)" }
            }
            switch type {
            case .superType, .varchar, .char: return nil
            default:
                return "a nested column (a list, map or struct) loads only into a SUPER column, or as JSON text into a VARCHAR column, not into \(type.sqlName)"
            }
        }
        do {
            _ = try ConversionPlan(column: self, target: type, options: ParquetReadOptions())
            return nil
        } catch let e as ParquetError {
            return e.message
        } catch {
            return "\(error)"
        }
    }
}
