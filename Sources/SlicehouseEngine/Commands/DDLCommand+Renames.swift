// SPDX-License-Identifier: Apache-2.0
import SlicehouseTypes
import SlicehouseSQL
import SlicehouseCatalog
import SlicehousePlanner

/// What a rename does to the views that read the renamed object: in Redshift a
/// (schema-binding) view is bound to the relations and columns it read when it was
/// created, so it follows them through ALTER TABLE / VIEW ... RENAME TO, SET SCHEMA and
/// RENAME COLUMN. Slicehouse keeps a view as text bound at each use, so a rename rewrites
/// the stored text of each view (and materialized view) that names the object in its own
/// text: the name becomes the object's new one (a table keeps its old name as the FROM
/// item's alias, so `t.a` still reads it; a renamed column keeps its old name as the
/// output's), in the same transaction as the rename.
///
/// The dependents are found by binding every schema-binding view before the rename, with
/// the binder noting where each name of the view's own text stands and what it was bound
/// to (`NameUses`); nested views need nothing, since each names its neighbour only. The
/// edited text is bound again after the rename and kept only when it reads the same
/// objects and columns with the same output types; a text that cannot be rewritten so
/// (a renamed column that a USING list or a NATURAL join names) is left as it
/// was. Late-binding views hold nothing and keep following names.
extension DDLCommand {
    /// An object a rename gives a new name.
    enum Renamed {
        /// A table or materialized view: its new schema and name.
        case table(id: Int, from: QualifiedName, to: QualifiedName)
        case view(QualifiedName, to: QualifiedName)
        /// Column `column` of table `table`, named `from`, now `to`.
        case column(table: Int, column: Int, from: String, to: String)
    }

    /// A view or materialized view that reads a renamed object, as it was bound before the
    /// rename.
    struct RenameFollower {
        enum Object { case view(QualifiedName), materializedView(id: Int) }
        var object: Object
        var text: String
        var searchPath: [String]
        /// How its text is read (a view's as when it was made, a materialized view's as the
        /// session reads SQL).
        var options: ParseOptions
        /// The view's column list (empty: the query's output names).
        var columns: [String]
        var uses: NameUses
        /// What it reads (`readSignature`), with the renamed object under its new name.
        var reads: [String]
        var outputs: [PlanColumn]
    }

    /// The views and materialized views that read `renamed`, bound as the catalog is now
    /// (call it before the rename).
    func renameFollowers(of renamed: Renamed) -> [RenameFollower] {
        var found: [RenameFollower] = []
        let catalog = session.transaction.catalog
        func consider(_ object: RenameFollower.Object, _ text: String, _ path: [String], _ options: ParseOptions,
                      _ columns: [String]) {
            guard let b = bindRecording(text, path, options) else { return }
            let touched: Bool
            switch renamed {
            case .table(let id, _, _): touched = b.uses.relations.contains { $0.relation == .table(id) }
            case .view(let name, _): touched = b.uses.relations.contains { $0.relation == .view(name) }
            case .column(let table, let column, _, _):
                touched = b.accesses.contains { a, cols in
                    if case .table(let t) = a.object, t.id == table, cols.contains(column) { return true }
                    return false
                }
            }
            guard touched else { return }
            found.append(RenameFollower(object: object, text: text, searchPath: path, options: options, columns: columns, uses: b.uses,
                                        reads: readSignature(b.accesses, renamed: renamed), outputs: b.outputs))
        }
        for v in catalog.allViews where !v.lateBinding {
            if case .view(let name, _) = renamed, v.qualifiedName == name { continue }
            consider(.view(v.qualifiedName), v.queryText, v.searchPath, v.parseOptions, v.columns)
        }
        for t in catalog.allTables {
            guard let mv = t.materializedView else { continue }
            if case .table(let id, _, _) = renamed, id == t.id { continue }
            consider(.materializedView(id: t.id), mv.queryText, mv.searchPath, session.parseOptions, [])
        }
        return found
    }

    /// Rewrite each follower's text to name the renamed object as it is now named (call it
    /// after the rename, in the same transaction).
    func follow(_ renamed: Renamed, _ followers: [RenameFollower]) throws {
        for f in followers {
            // Names as written where they still find the object; schema-qualified otherwise.
            var rewritten: (text: String, columns: [String])? = nil
            for qualify in [false, true] {
                guard let text = editedText(f, renamed, qualify: qualify), let b = bindRecording(text, f.searchPath, f.options),
                      readSignature(b.accesses, renamed: nil) == f.reads,
                      b.outputs.map({ $0.type }) == f.outputs.map({ $0.type }) else { continue }
                var columns = f.columns
                if columns.isEmpty && b.outputs.map({ $0.name }) != f.outputs.map({ $0.name }) {
                    // `SELECT *` over a renamed column: the view's columns keep their names.
                    columns = f.outputs.map { $0.name }
                }
                rewritten = (text, columns)
                break
            }
            guard let rewritten, rewritten.text != f.text || rewritten.columns != f.columns else { continue }
            let catalog = session.transaction.catalog
            switch f.object {
            case .view(let name):
                guard let v = catalog.view(name) else { continue }
                var redefined = v
                redefined.queryText = rewritten.text
                redefined.columns = rewritten.columns
                try session.transaction.redefineView(v, as: redefined)
            case .materializedView(let id):
                guard var t = catalog.table(id: id), t.materializedView != nil else { continue }
                t.materializedView?.queryText = rewritten.text
                try session.transaction.redefineTable(t.qualifiedName, as: t)
            }
        }
    }

    /// `text` bound as a view's query in the transaction's catalog, noting its names; nil
    /// when it does not bind.
    private func bindRecording(_ text: String, _ path: [String], _ options: ParseOptions)
        -> (uses: NameUses, accesses: [(access: RelationAccess, columns: [Int])], outputs: [PlanColumn])? {
        guard let q = try? MaterializedViews.parseStoredQuery(text, options: options) else { return nil }
        let ctx = StatementContext(database: session.database, session: session)
        let binder = Binder(catalog: ctx, evaluateConstant: evaluateConstant)
        binder.viewSearchPath = path
        binder.recordsNameUses = true
        guard let plan = try? binder.bind(query: q), let uses = binder.nameUses() else { return nil }
        return (uses, binder.relationAccesses().filter { $0.access.enclosingView == nil }, plan.outputs)
    }

    /// What a text's own FROM items read, as sorted strings: tables by id with the column
    /// numbers read, views by name (a renamed view by its new name).
    private func readSignature(_ accesses: [(access: RelationAccess, columns: [Int])], renamed: Renamed?) -> [String] {
        accesses.map { a, cols -> String in
            switch a.object {
            case .table(let t): return "table \(t.id) \(cols.sorted())"
            case .view(let v):
                if case .view(let old, let new)? = renamed, v.qualifiedName == old { return "view \(new)" }
                return "view \(v.qualifiedName)"
            }
        }.sorted()
    }

    /// The follower's text with the renamed object's names replaced (nil when a name is not
    /// where the binder saw it).
    private func editedText(_ f: RenameFollower, _ renamed: Renamed, qualify: Bool) -> String? {
        guard let tokens = try? Lexer.tokenize(f.text) else { return nil }
        var tokenAt: [Int: Int] = [:]
        for (i, t) in tokens.enumerated() { tokenAt[t.location.offset] = i }
        func identifier(_ i: Int) -> String? {
            switch tokens[i].kind {
            case .word(let w): return w
            case .quotedIdentifier(let q): return f.options.caseSensitiveIdentifiers ? q : q.lowercased()
            default: return nil
            }
        }
        /// The dotted name starting at `offset`: its parts' token indices.
        func dottedName(at offset: Int) -> [Int]? {
            guard var i = tokenAt[offset], identifier(i) != nil else { return nil }
            var parts = [i]
            while i + 2 < tokens.count, tokens[i + 1].kind == .symbol("."), identifier(i + 2) != nil {
                i += 2
                parts.append(i)
            }
            return parts
        }
        var edits: [(start: Int, end: Int, text: String)] = []
        switch renamed {
        case .table, .view:
            let old: QualifiedName, new: QualifiedName, relation: NameUses.Relation
            switch renamed {
            case .table(let id, let from, let to): old = from; new = to; relation = .table(id)
            case .view(let from, let to): old = from; new = to; relation = .view(from)
            case .column: return nil
            }
            for use in f.uses.relations where use.relation == relation {
                guard let parts = dottedName(at: use.offset), let first = parts.first, let last = parts.last else { return nil }
                // The name as the view wrote it: its own last part is the alias it implies.
                guard let written = identifier(last) else { return nil }
                var text = qualify || parts.count > 1 || old.schema != new.schema
                    ? quoteIdentifierIfNeeded(new.schema) + "." + quoteIdentifierIfNeeded(new.name)
                    : quoteIdentifierIfNeeded(new.name)
                if !use.hasAlias && written != new.name { text += " AS " + quoteIdentifierIfNeeded(written) }
                edits.append((tokens[first].location.offset, tokens[last].endOffset, text))
            }
        case .column: break
        }
        // The renamed column's references; when qualifying, every bare column reference
        // takes its FROM item's alias too (a new column name may make another ambiguous).
        for use in f.uses.columns {
            var renamedHere: (from: String, to: String)? = nil
            if case .column(let table, let column, let from, let to) = renamed, use.table == table, use.column == column {
                renamedHere = (from, to)
            }
            let qualifyHere = qualify && use.qualifier != nil
            guard renamedHere != nil || qualifyHere else { continue }
            guard let parts = dottedName(at: use.offset), let last = parts.last else { return nil }
            let prefix = qualifyHere && parts.count == 1 ? quoteIdentifierIfNeeded(use.qualifier ?? "") + "." : ""
            if let (from, to) = renamedHere {
                guard identifier(last) == from else { return nil }
                var text = prefix + quoteIdentifierIfNeeded(to)
                if use.unaliasedItem { text += " AS " + quoteIdentifierIfNeeded(from) }
                edits.append((tokens[last].location.offset, tokens[last].endOffset, text))
            } else if !prefix.isEmpty {
                edits.append((tokens[last].location.offset, tokens[last].location.offset, prefix))
            }
        }
        var bytes = Array(f.text.utf8)
        for e in edits.sorted(by: { $0.start > $1.start }) {
            guard e.start <= e.end, e.end <= bytes.count else { return nil }
            bytes.replaceSubrange(e.start..<e.end, with: Array(e.text.utf8))
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
