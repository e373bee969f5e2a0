// SPDX-License-Identifier: Apache-2.0
import XCTest
import SlicehouseTypes
import SlicehousePlan
import SlicehouseCatalog
@testable import SlicehousePlanner

/// The passes after physical planning never change a plan: they return a new one
/// (`PhysicalNode.annotated`) in which a subplan shared by several parents is still one
/// node, and a subtree no pass touched is the same node as before.
final class PlanAnnotationTests: XCTestCase {
    func leaf(_ v: Int64) -> PhysicalNode {
        PhysicalNode(.values([[.int(v)]]), children: [], types: [.bigint], names: ["k"], distribution: .single,
                     rows: 1, columnIDs: [Int(v)])
    }

    func testAnnotatingKeepsSharingAndReusesUntouchedSubtrees() {
        let shared = leaf(1)
        let untouched = leaf(2)
        let left = PhysicalNode(.filter(.constant(.bool(true), .boolean)), children: [shared], types: [.bigint], names: ["k"],
                                distribution: .single, rows: 1, columnIDs: [1])
        let right = PhysicalNode(.limit(1, offset: 0), children: [shared], types: [.bigint], names: ["k"],
                                 distribution: .single, rows: 1, columnIDs: [1])
        let root = PhysicalNode(.unionAll, children: [left, right, untouched], types: [.bigint], names: ["k"],
                                distribution: .single, rows: 3, columnIDs: [1])
        let target = RuntimeFilterTarget(id: 7, column: 0)
        let marked = root.annotated { node in
            node === shared ? PhysicalNode.Annotations(runtimeFilterTargets: [target]) : nil
        }
        XCTAssertFalse(marked === root, "a pass returns a new plan")
        XCTAssertTrue(root.children[0].children[0].runtimeFilterTargets.isEmpty, "the old plan is unchanged")
        let newShared = marked.children[0].children[0]
        XCTAssertEqual(newShared.runtimeFilterTargets, [target])
        XCTAssertTrue(newShared === marked.children[1].children[0], "the shared subplan is still one node")
        XCTAssertTrue(marked.children[2] === untouched, "an untouched subtree is reused")
        XCTAssertTrue(root.annotated { _ in nil } === root, "nothing to change: the same plan")
    }
}
