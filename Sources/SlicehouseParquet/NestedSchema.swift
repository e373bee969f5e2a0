// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes

/// The shape of one top-level field for record assembly: the Parquet schema subtree
/// resolved into structs, lists and maps, with the levels that say, for each leaf entry,
/// where a value stops being present.
///
/// Lists come in several forms (the format's backward-compatibility rules):
/// - the standard 3-level form, `<opt|req> group name (LIST) { repeated group list {
///   <opt|req> element; } }`;
/// - 2-level forms written by older pyarrow, Spark, Hive and parquet-avro: the repeated
///   child is itself the element when it is a primitive, a group of several fields, or a
///   group named `array` or `<name>_tuple`;
/// - a bare REPEATED field outside any LIST group: a required list of required elements.
///
/// Maps are `<opt|req> group name (MAP or MAP_KEY_VALUE) { repeated group key_value {
/// required key; <opt|req> value; } }` (the value may be missing).
///
/// Levels: every OPTIONAL node adds one definition level where it is present, every
/// REPEATED node one definition level (a non-empty list) and one repetition level (a
/// further element).

/// The deepest nesting of groups (and so of levels) this reader accepts: far above what
/// writers produce, and it bounds the assembler's recursion.
let maxNestingDepth = 64

/// One leaf of a nested column: a flat description of it (for the value decoder) and its
/// maximum repetition level.
struct NestedLeaf: Sendable {
    /// Name (the dotted path), physical and logical type, `leafIndex` (the column
    /// chunk) and `maxDefinitionLevel`.
    let column: ParquetColumn
    let maxRepetitionLevel: Int
}

/// A node of the resolved tree.
final class NestedNode: Sendable {
    enum Shape: Sendable {
        /// Index into `NestedColumnSchema.leaves`.
        case leaf(Int)
        /// `names` are the fields' names as JSON string literals.
        case structure(names: [[UInt8]], fields: [NestedNode])
        case list(NestedNode)
        case map(key: NestedNode, value: NestedNode?)
    }

    let shape: Shape
    /// Definition level from which this node is present (not NULL).
    let definitionLevel: Int
    /// Lists and maps: the definition level from which they have an element, and the
    /// repetition level of an entry that starts a further element.
    let elementDefinitionLevel: Int
    let elementRepetitionLevel: Int
    /// The leaves below: `firstLeaf ..< firstLeaf + leafCount` (never empty).
    let firstLeaf: Int
    let leafCount: Int

    init(_ shape: Shape, definitionLevel: Int, elementDefinitionLevel: Int = 0, elementRepetitionLevel: Int = 0,
         firstLeaf: Int, leafCount: Int) {
        self.shape = shape
        self.definitionLevel = definitionLevel
        self.elementDefinitionLevel = elementDefinitionLevel
        self.elementRepetitionLevel = elementRepetitionLevel
        self.firstLeaf = firstLeaf
        self.leafCount = leafCount
    }
}

/// A top-level field ready for assembly.
struct NestedColumnSchema: Sendable {
    let root: NestedNode
    let leaves: [NestedLeaf]
}

/// Builds a `NestedColumnSchema` from the flattened schema elements of one top-level field.
struct NestedSchemaBuilder {
    /// The schema subtree as given (children in order).
    final class RawNode {
        let element: SchemaElement
        var children: [RawNode] = []
        init(_ e: SchemaElement) { element = e }

        var isLeaf: Bool { children.isEmpty && element.type != nil }
        var repetition: Repetition? { element.repetition.flatMap(Repetition.init(rawValue:)) }
        var name: String { element.name }
    }

    let elements: [SchemaElement]
    /// Column chunk index of the field's first leaf.
    let leafBase: Int
    /// Position of the field among the top-level fields.
    let columnIndex: Int
    private(set) var leaves: [NestedLeaf] = []

    init(elements: [SchemaElement], leafBase: Int, columnIndex: Int) {
        self.elements = elements
        self.leafBase = leafBase
        self.columnIndex = columnIndex
    }

    /// The field whose element is at `start` (the caller has checked the child counts).
    static func build(_ elements: [SchemaElement], start: Int, leafBase: Int, columnIndex: Int) throws -> NestedColumnSchema {
        var b = NestedSchemaBuilder(elements: elements, leafBase: leafBase, columnIndex: columnIndex)
        var i = start
        let raw = try b.raw(&i, depth: 0)
        let root = try b.resolve(raw, path: raw.name, def: 0, rep: 0, depth: 0)
        return NestedColumnSchema(root: root, leaves: b.leaves)
    }

    /// The subtree at `i`, advancing `i` past it.
    private func raw(_ i: inout Int, depth: Int) throws -> RawNode {
        guard depth <= maxNestingDepth else {
            throw ParquetError.unsupported("nested columns more than \(maxNestingDepth) levels deep")
        }
        guard i < elements.count else { throw ParquetError.corrupt("schema ends inside a nested field") }
        let node = RawNode(elements[i])
        i += 1
        let n = Int(node.element.numChildren ?? 0)
        guard n >= 0, n <= elements.count - i else {
            throw ParquetError.corrupt("schema element \"\(node.name)\" claims \(n) children")
        }
        for _ in 0..<n { node.children.append(try raw(&i, depth: depth + 1)) }
        return node
    }

    /// Resolve `r`, whose parent is present from definition level `def` and repeats at
    /// `rep`. `asElement`: `r` is the repeated node of a list or map, taken as its
    /// (required) element.
    private mutating func resolve(_ r: RawNode, path: String, def parentDef: Int, rep parentRep: Int, depth: Int,
                                  asElement: Bool = false) throws -> NestedNode {
        guard depth <= maxNestingDepth else {
            throw ParquetError.unsupported("nested columns more than \(maxNestingDepth) levels deep")
        }
        let first = leaves.count
        let repetition = r.repetition
        if repetition == .repeated && !asElement {
            // A repeated field outside a LIST or MAP group: a required list of required elements.
            let element = try resolve(r, path: path, def: parentDef + 1, rep: parentRep + 1, depth: depth + 1, asElement: true)
            return NestedNode(.list(element), definitionLevel: parentDef, elementDefinitionLevel: parentDef + 1,
                              elementRepetitionLevel: parentRep + 1, firstLeaf: first, leafCount: leaves.count - first)
        }
        let def = (repetition == .optional && !asElement) ? parentDef + 1 : parentDef
        if r.isLeaf {
            guard let type = r.element.type else { throw ParquetError.corrupt("leaf \"\(path)\" without a type") }
            let column = ParquetColumn(
                name: path, index: columnIndex, isNested: false, isNullable: def > 0,
                physicalType: ParquetPhysicalType(rawValue: type), physicalTypeRaw: type,
                typeLength: Int(max(0, r.element.typeLength ?? 0)), logicalType: r.element.resolvedLogicalType,
                leafIndex: leafBase + first, maxDefinitionLevel: def, nested: nil, nestedProblem: nil)
            leaves.append(NestedLeaf(column: column, maxRepetitionLevel: parentRep))
            return NestedNode(.leaf(first), definitionLevel: def, firstLeaf: first, leafCount: 1)
        }
        guard !r.children.isEmpty else {
            throw ParquetError.unsupported("the empty group \"\(path)\"")
        }
        let logical = r.element.resolvedLogicalType
        let only = r.children.count == 1 ? r.children[0] : nil
        if logical == .list, let inner = only, inner.repetition == .repeated {
            let element: NestedNode
            if inner.children.count != 1 || inner.name == "array" || inner.name == r.name + "_tuple" {
                // 2-level list: the repeated node is the element (a primitive, a group of
                // several fields, or one named `array` / `<name>_tuple`).
                element = try resolve(inner, path: path + "[]", def: def + 1, rep: parentRep + 1, depth: depth + 1,
                                      asElement: true)
            } else {
                element = try resolve(inner.children[0], path: path + "[]", def: def + 1, rep: parentRep + 1,
                                      depth: depth + 2)
            }
            return NestedNode(.list(element), definitionLevel: def, elementDefinitionLevel: def + 1,
                              elementRepetitionLevel: parentRep + 1, firstLeaf: first, leafCount: leaves.count - first)
        }
        if logical == .map, let kv = only, kv.repetition == .repeated, kv.children.count == 1 || kv.children.count == 2 {
            let key = try resolve(kv.children[0], path: path + ".key", def: def + 1, rep: parentRep + 1, depth: depth + 2)
            var value: NestedNode? = nil
            if kv.children.count == 2 {
                value = try resolve(kv.children[1], path: path + ".value", def: def + 1, rep: parentRep + 1, depth: depth + 2)
            }
            return NestedNode(.map(key: key, value: value), definitionLevel: def, elementDefinitionLevel: def + 1,
                              elementRepetitionLevel: parentRep + 1, firstLeaf: first, leafCount: leaves.count - first)
        }
        // A struct (also a LIST or MAP group of an unexpected shape: read as what it is).
        var names: [[UInt8]] = []
        var fields: [NestedNode] = []
        for c in r.children {
            var quoted: [UInt8] = []
            Array(c.name.utf8).withUnsafeBufferPointer { SuperJSON.appendQuoted($0, to: &quoted) }
            names.append(quoted)
            fields.append(try resolve(c, path: path + "." + c.name, def: def, rep: parentRep, depth: depth + 1))
        }
        return NestedNode(.structure(names: names, fields: fields), definitionLevel: def,
                          firstLeaf: first, leafCount: leaves.count - first)
    }
}

extension NestedLeaf {
    /// The Slicehouse type a leaf's values are decoded into before they are written as
    /// JSON: numbers keep their kind (integers, exact decimals, REAL/DOUBLE), dates and
    /// timestamps become their text, byte arrays strings (at most 65535 bytes, like a
    /// string in a Redshift SUPER value).
    static func jsonValueType(_ c: ParquetColumn) throws -> DataType {
        guard let physical = c.physicalType else {
            throw ParquetError.unsupported("physical type #\(c.physicalTypeRaw ?? -1)")
        }
        switch c.logicalType {
        case .null: return .varchar(DataType.maxVarcharLength)
        case .string, .enumeration, .json:
            return .varchar(DataType.maxVarcharLength)
        case .decimal(let p, let s):
            guard p >= 1, p <= DataType.maxDecimalPrecision, s >= 0, s <= p else {
                throw ParquetError.unsupported("DECIMAL(\(p),\(s)) values in a SUPER value")
            }
            return .decimal(precision: p, scale: s)
        case .date: return .date
        case .timestamp: return .timestamp
        case .integer(let bits, let signed):
            return (bits == 64 && !signed) ? .decimal(precision: 20, scale: 0) : .bigint
        case .none:
            switch physical {
            case .boolean: return .boolean
            case .int32, .int64: return .bigint
            case .int96: return .timestamp
            case .float: return .real
            case .double: return .double
            case .byteArray, .fixedLenByteArray: return .varchar(DataType.maxVarcharLength)
            }
        default:
            throw ParquetError.unsupported("Parquet \(physical) \(c.logicalType) values in a SUPER value (column \"\(c.name)\")")
        }
    }
}
