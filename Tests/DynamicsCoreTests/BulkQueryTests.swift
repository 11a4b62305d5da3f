import XCTest
import DynamicsCore
import DynamicsTestSupport

/// What the bulk API reports of a world for analysis: the touching contacts, awake or asleep.
final class BulkQueryTests: XCTestCase {
    /// Three boxes stacked on a floor, run until they sleep.
    func restingStack() throws -> (World, [BodyID]) {
        let world = try floorWorld(y: 0, from: -100, to: 100)
        var ids: [BodyID] = []
        for k in 0..<3 {
            var box = BodyDefinition.box(center: Vec2(0, -5 - 10 * Float(k)), width: 10, height: 10)
            box.collisionClass = 1
            box.gravity = Vec2(0, 1000)
            ids.append(try world.createBody(box))
        }
        return (world, ids)
    }

    func test_touchingContacts_reportBothPointsImpulsesAndNormals_whileAwakeAndAsleep() throws {
        let (world, ids) = try restingStack()
        for _ in 0..<30 { try world.step(dt: 1.0 / 60, substeps: 4) }
        XCTAssertGreaterThan(world.awakeBodyCount, 0)
        let awake = world.touchingContacts()
        XCTAssertEqual(awake.count, 3, "floor–box 0, box 0–box 1, box 1–box 2")
        for c in awake {
            XCTAssertFalse(c.isSleeping)
            XCTAssertEqual(c.pointCount, 2, "a face resting on a face touches at two points")
            XCTAssertEqual(abs(c.normal.y), 1, accuracy: 1e-4)
            XCTAssertEqual(c.normal.x, 0, accuracy: 1e-4)
            XCTAssertNotEqual(c.points.0.point.x, c.points.1.point.x)
            XCTAssertGreaterThan(c.points.0.normalImpulse + c.points.1.normalImpulse, 0)
        }
        // The floor carries all three boxes, the top contact one: its impulse is about a third.
        let floorContact = try XCTUnwrap(awake.first { c in c.bodyA != ids[0] && c.bodyB == ids[0] || c.bodyA == ids[0] && !ids.contains(c.bodyB) })
        let topContact = try XCTUnwrap(awake.first { Set([$0.bodyA, $0.bodyB]) == Set([ids[1], ids[2]]) })
        let ratio = (topContact.points.0.normalImpulse + topContact.points.1.normalImpulse)
            / (floorContact.points.0.normalImpulse + floorContact.points.1.normalImpulse)
        XCTAssertEqual(ratio, 1.0 / 3, accuracy: 0.05)

        var steps = 0
        while world.awakeBodyCount > 0 && steps < 600 { try world.step(dt: 1.0 / 60, substeps: 4); steps += 1 }
        XCTAssertEqual(world.awakeBodyCount, 0, "the stack did not fall asleep")
        let asleep = world.touchingContacts()
        XCTAssertEqual(asleep.count, 3, "a sleeping stack still touches")
        XCTAssertEqual(asleep.count, world.allTouchingContactCount)
        XCTAssertTrue(asleep.allSatisfy(\.isSleeping))
        XCTAssertTrue(asleep.allSatisfy { $0.pointCount == 2 && $0.points.0.normalImpulse > 0 })
    }
}
