// SPDX-License-Identifier: Apache-2.0
import SlicehouseSQL
import SlicehouseCatalog

/// Where a statement's own text names catalog relations and table columns, and what each
/// name was bound to: what a schema-binding view's text needs to be rewritten when an
/// object it names is renamed (the engine's `ViewFollowing`). Offsets are UTF-8 byte
/// offsets into the bound text; names met while views or SQL functions the text uses are
/// expanded are left out (their texts are not this one).
public struct NameUses: Sendable {
    public enum Relation: Sendable, Hashable {
        /// A table or materialized view, by id.
        case table(Int)
        /// A view, by its name (views have no ids).
        case view(QualifiedName)
    }

    /// A FROM item naming a table or view: where its name starts, and whether the item
    /// has an alias of its own (without one, the name is also the item's alias).
    public struct RelationUse: Sendable, Hashable {
        public var offset: Int
        public var relation: Relation
        public var hasAlias: Bool
    }

    /// A column reference: the table's column it reads (`column`: its number; both nil for
    /// a view's or a derived table's column), whether it is a whole select item without an
    /// alias (so its name is the output's), and the alias of the FROM item it was found in
    /// (nil when none: a full join's merged USING column).
    public struct ColumnUse: Sendable, Hashable {
        public var offset: Int
        public var table: Int?
        public var column: Int?
        public var unaliasedItem: Bool
        public var qualifier: String?
    }

    public var relations: [RelationUse]
    public var columns: [ColumnUse]
}

/// What the binder notes while `recordsNameUses` is set.
struct NameUseRecorder {
    var relations: [NameUses.RelationUse] = []
    /// Column references as offsets, the plan column each was bound to and the alias of
    /// the FROM item it came from.
    var columns: [(offset: Int, planColumn: Int, qualifier: String?)] = []
    /// Offsets of column references that are whole select items without an alias.
    var unaliasedItems: Set<Int> = []
}

extension Binder {
    /// Whether names met now are written in the statement's own text.
    var inOwnText: Bool { nameUseRecorder != nil && viewStack.isEmpty && userFunctionDepth == 0 }

    func noteRelationUse(_ ref: TableRef, _ relation: NameUses.Relation, hasAlias: Bool) {
        guard inOwnText, ref.location.line > 0 else { return }
        nameUseRecorder?.relations.append(NameUses.RelationUse(offset: ref.location.offset, relation: relation, hasAlias: hasAlias))
    }

    func noteColumnUse(_ e: Expr, planColumn: Int, in scope: Scope) {
        guard inOwnText, e.location.line > 0 else { return }
        let qualifier = scope.relations.first { r in r.columns.contains { $0.column.id == planColumn } }?.alias
        nameUseRecorder?.columns.append((e.location.offset, planColumn, qualifier))
    }

    func noteSelectItem(_ e: Expr, alias: String?) {
        guard inOwnText, alias == nil, case .column = e.kind, e.location.line > 0 else { return }
        nameUseRecorder?.unaliasedItems.insert(e.location.offset)
    }

    /// The names the bound text used (nil unless `recordsNameUses` was set before binding):
    /// each column reference mapped through the tables the text itself names to a table's
    /// column, where it reads one. A reference bound more than once (a CTE named twice)
    /// counts once.
    public func nameUses() -> NameUses? {
        guard let r = nameUseRecorder else { return nil }
        var tableColumn: [Int: (table: Int, column: Int)] = [:]
        for a in accesses where a.enclosingView == nil {
            guard case .table(let t) = a.object else { continue }
            for (k, id) in a.columnIDs.enumerated() { tableColumn[id] = (t.id, k) }
        }
        var seen = Set<Int>()
        var columns: [NameUses.ColumnUse] = []
        for (offset, id, qualifier) in r.columns where seen.insert(offset).inserted {
            let read = tableColumn[id]
            columns.append(NameUses.ColumnUse(offset: offset, table: read?.table, column: read?.column,
                                              unaliasedItem: r.unaliasedItems.contains(offset),
                                              qualifier: qualifier == "?subquery?" ? nil : qualifier))
        }
        var relations: [NameUses.RelationUse] = []
        for use in r.relations where !relations.contains(use) { relations.append(use) }
        return NameUses(relations: relations, columns: columns)
    }
}
