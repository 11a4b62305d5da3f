import XCTest
@testable import DynamicsCore
import DynamicsScenes
import DynamicsSIMD

/// Bulk creation sizes the tables once.
final class CapacityTests: XCTestCase {
    /// Every contact is kept in the contact list (or its sleeping island), and last step's list in its twin while
    /// the narrowphase rebuilds it: its record is held to 112 bytes (the manifold's one-byte point count leaves room
    /// for the touching flag and the reach; the anchors are computed from the point when needed).
    func test_contactRecord_is112Bytes() {
        XCTAssertEqual(MemoryLayout<Contact>.stride, 112)
        var m = Manifold()
        m.pointCount = 2
        XCTAssertEqual(m.pointCount, 2)
    }

    /// A shape record is 24 bytes; a polygon's vertex run (kept in a segment's end point) reads back exactly,
    /// and segments and circles keep their points.
    func test_shapeRecord_is24Bytes_andKeepsEachKindsFields() {
        XCTAssertEqual(MemoryLayout<ShapeRecord>.stride, 24)
        for (start, count) in [(Int32(0), Int32(3)), (1, 4), (8_388_607, 8), (2_000_000_000, 5)] {
            var r = ShapeRecord(kind: .polygon, vertexStart: start, vertexCount: count, radius: 0, p0: .zero, p1: .zero)
            XCTAssertEqual(r.vertexStart, start)
            XCTAssertEqual(r.vertexCount, count)
            r.vertexStart = start / 2
            XCTAssertEqual(r.vertexStart, start / 2)
            XCTAssertEqual(r.vertexCount, count)
        }
        let segment = ShapeRecord(kind: .segment, vertexStart: 0, vertexCount: 2, radius: 0, p0: Vec2(1, 2), p1: Vec2(-3, 4))
        XCTAssertEqual(segment.p0, Vec2(1, 2))
        XCTAssertEqual(segment.p1, Vec2(-3, 4))
        let circle = ShapeRecord(kind: .circle, vertexStart: 0, vertexCount: 0, radius: 5, p0: Vec2(6, 7), p1: .zero)
        XCTAssertEqual(circle.radius, 5)
        XCTAssertEqual(circle.p0, Vec2(6, 7))
    }

    /// A column that grows keeps its elements and its spare capacity is zero bytes (the 4-wide kernels read the
    /// partial last group of four), also in a buffer the allocator had handed out before and got back dirty.
    func test_grownColumn_keepsItsElements_andItsSpareCapacityIsZero() {
        for size in [64, 4096, 300_000] {
            var dirty = Column<UInt32>()
            dirty.reserveExactly(size, count: 0)
            dirty.base.update(repeating: 0xFFFF_FFFF, count: dirty.capacity)
            dirty.release()
            var column = Column<UInt32>()
            for k in 0..<37 { column.append(UInt32(k + 1), count: k) }
            column.reserveExactly(size, count: 37)
            XCTAssertGreaterThanOrEqual(column.capacity, size)
            XCTAssertEqual((0..<37).map { column[$0] }, (0..<37).map { UInt32($0 + 1) })
            XCTAssertTrue((37..<column.capacity).allSatisfy { column[$0] == 0 }, "spare capacity of a column grown to \(size)")
            column.free(count: 37)
        }
    }

    func test_reserveCapacity_sizesTheTablesExactly_andRefusesNegativeCounts() throws {
        let world = World()
        try world.reserveCapacity(bodies: 1001, shapes: 1001, vertices: 4004)
        for k in 0..<1001 { try world.createBody(.box(center: Vec2(Float(k) * 20, 0), width: 10, height: 10)) }
        XCTAssertEqual(world.bodies.position.capacity, 1004, "rounded up to a multiple of four, not doubled")
        XCTAssertEqual(world.bodies.slot.count, 1001)
        XCTAssertLessThan(world.bodies.slot.capacity, 1100)
        XCTAssertLessThan(world.shapeStore.polygonVertices.capacity, 4100)
        XCTAssertEqual(world.shapeStore.polygonVertices.count, 4, "equal boxes made one after another share one outline")
        XCTAssertTrue(world.shapeStore.records.allSatisfy { $0.vertexStart == 0 })
        // A different outline gets its own run; compaction keeps shared runs shared and every shape's outline.
        let odd = try world.createBody(.box(center: Vec2(0, 100), width: 30, height: 10))
        XCTAssertEqual(world.shapeStore.polygonVertices.count, 8)
        world.compactShapes()
        XCTAssertEqual(world.shapeStore.polygonVertices.count, 8)
        XCTAssertEqual(world.shapeStore.records[Int(world.bodies.shapeStart[Int(odd.index)])].vertexStart, 4)
        XCTAssertThrowsError(try world.reserveCapacity(bodies: -1, shapes: 0, vertices: 0)) { error in
            XCTAssertTrue("\(error)".contains("bodies"), "\(error)")
        }
    }
}

extension CapacityTests {
    /// The landing wave of rain needs several times the contacts of the pile that follows, and a pile asleep needs
    /// none: the step gives the contact tables back once their count falls below a quarter of their capacity, and
    /// every per-step table once nothing is awake.
    func test_contactTables_areGivenBackAfterTheLandingWave_andWhenThePileSleeps() throws {
        let world = World()
        _ = try world.build(.rain(1000))
        var peak = 0, eventPeak = 0
        var steps = 0
        while steps < 600 && (steps < 200 || world.awakeBodyCount > 0) {
            try world.step(dt: 1.0 / 60, substeps: 4)
            peak = max(peak, world.contactSolver.wide.capacity)
            eventPeak = max(eventPeak, world.contactBeganEvents.capacity)
            steps += 1
        }
        // The events of the landing wave needed a large list, given back once the step's events are few.
        XCTAssertGreaterThan(eventPeak, 1024)
        XCTAssertLessThanOrEqual(world.contactBeganEvents.capacity, 1024)
        XCTAssertEqual(world.awakeBodyCount, 0, "the pile sleeps")
        XCTAssertGreaterThan(peak, 1024, "the landing wave needed a large table")
        // Tables at or below the floor of the policy (4,096 entries, 1,024 wide batches) are kept; the allocator's
        // rounding decides the exact capacities.
        XCTAssertLessThanOrEqual(world.contactStore.contacts.capacity, 4096)
        XCTAssertLessThanOrEqual(world.contactStore.history.capacity, 4096)
        XCTAssertLessThanOrEqual(world.contactSolver.scalar.capacity, 4096)
        XCTAssertLessThanOrEqual(world.contactSolver.wide.capacity, 1024)
        // One more step at rest: every per-step table is given back; the bodies, the static grid and the
        // sleeping islands (with their contacts) are all a resting world keeps.
        try world.step(dt: 1.0 / 60, substeps: 4)
        let tables: [(String, Int)] = [
            ("contacts", world.contactStore.contacts.capacity), ("contactHistory", world.contactStore.history.capacity),
            ("constraints", world.contactSolver.scalar.capacity), ("wideContacts", world.contactSolver.wide.capacity),
            ("pairs", world.broadphase.pairs.capacity), ("cellEntries", world.broadphase.cellEntries.capacity),
            ("contactBodyColors", world.contactSolver.bodyColors.capacity), ("contactBodyEntry", world.contactSolver.bodyEntry.capacity),
            ("contactVelocity", world.contactSolver.velocity.capacity), ("unionParent", world.islandStore.unionParent.capacity),
            ("bucketCounts", world.broadphase.bucketCounts.capacity), ("sortScratch", world.broadphase.sortScratch.capacity)]
        for (name, capacity) in tables { XCTAssertEqual(capacity, 0, "\(name) is given back at rest") }
        let islandContacts = world.islandStore.sleeping.reduce(0) { $0 + $1.contacts.count }
        XCTAssertGreaterThan(islandContacts, 1000, "the sleeping islands keep their contacts")
        // Waking the pile grows the tables back, and it settles again.
        world.wakeAll()
        var touched = 0
        for _ in 0..<400 where world.awakeBodyCount > 0 {
            try world.step(dt: 1.0 / 60, substeps: 4)
            touched = max(touched, world.contactStore.contacts.count)
        }
        XCTAssertGreaterThan(touched, 1000, "the woken pile's contacts are solved again")
        XCTAssertEqual(world.awakeBodyCount, 0, "and it sleeps again")
        XCTAssertGreaterThan(world.islandStore.sleeping.reduce(0) { $0 + $1.contacts.count }, 1000, "with its contacts kept")
    }
}
