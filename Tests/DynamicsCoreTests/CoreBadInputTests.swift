import XCTest
@testable import DynamicsCore
import DynamicsSIMD

final class CoreBadInputTests: XCTestCase {
    func test_createBody_refusesEveryInvalidDefinition() {
        let world = World()
        func refused(_ fragment: String, _ change: (inout BodyDefinition) -> Void, file: StaticString = #filePath, line: UInt = #line) {
            var d = BodyDefinition.box(center: .zero, width: 10, height: 10)
            change(&d)
            XCTAssertThrowsError(try world.createBody(d), file: file, line: line) { error in
                XCTAssertTrue("\(error)".contains(fragment), "'\(error)' should mention '\(fragment)'", file: file, line: line)
            }
        }
        refused("position") { $0.position = Vec2(.nan, 0) }
        refused("angle") { $0.angle = .infinity }
        refused("velocity") { $0.linearVelocity = Vec2(0, .nan) }
        refused("angular velocity") { $0.angularVelocity = .nan }
        refused("gravity") { $0.gravity = Vec2(.infinity, 0) }
        refused("damping") { $0.linearDamping = -1 }
        refused("friction") { $0.friction = .nan }
        refused("at least one shape") { $0.shapes = [] }
        refused("radius") { $0.shapes = [ShapeDefinition(.circle(center: .zero, radius: 0), mass: 1)] }
        refused("mass") { $0.shapes = [ShapeDefinition(.circle(center: .zero, radius: 1), mass: -1)] }
        refused("positive mass") { $0.shapes = [ShapeDefinition(.circle(center: .zero, radius: 1), mass: 0)] }
        refused("segment") { $0.shapes = [ShapeDefinition(.segment(.zero, .zero), mass: 1)] }
        refused("collision class") { $0.collisionClass = 5 }
        XCTAssertEqual(world.bodyCount, 0)
    }

    func test_convexPolygon_refusesConcaveSelfCrossingAndDegenerateOutlines() {
        XCTAssertThrowsError(try ConvexPolygon(vertices: [Vec2(0, 0), Vec2(1, 0)]))
        XCTAssertThrowsError(try ConvexPolygon(vertices: [Vec2(0, 0), Vec2(1, 0), Vec2(2, 0)]))
        XCTAssertThrowsError(try ConvexPolygon(vertices: [Vec2(-1, -1), Vec2(0, 0), Vec2(1, -1), Vec2(1, 1), Vec2(-1, 1)]))
        XCTAssertThrowsError(try ConvexPolygon(vertices: [Vec2(-1, -1), Vec2(1, 1), Vec2(1, -1), Vec2(-1, 1)]))
        XCTAssertThrowsError(try ConvexPolygon(vertices: [Vec2(0, 0), Vec2(.nan, 0), Vec2(1, 1)]))
        // Both windings are accepted and give the same polygon.
        let a = try? ConvexPolygon(vertices: [Vec2(-1, -1), Vec2(1, -1), Vec2(1, 1), Vec2(-1, 1)])
        let b = try? ConvexPolygon(vertices: [Vec2(-1, 1), Vec2(1, 1), Vec2(1, -1), Vec2(-1, -1)])
        XCTAssertNotNil(a); XCTAssertNotNil(b)
        XCTAssertEqual(a?.massProperties.area ?? 0, 4, accuracy: 1e-5)
        XCTAssertEqual(b?.massProperties.area ?? 0, 4, accuracy: 1e-5)
    }

    func test_boxMassProperties_matchTheClosedForm() {
        let p: ConvexPolygon
        if case let .polygon(poly) = ShapeGeometry.box(width: 10, height: 20) { p = poly } else { return XCTFail() }
        let m = p.massProperties
        XCTAssertEqual(m.area, 200, accuracy: 1e-3)
        XCTAssertEqual(m.inertiaPerMass, (100 + 400) / 12, accuracy: 1e-3)
        XCTAssertEqual(length(m.centroid), 0, accuracy: 1e-5)
    }

    func test_joints_refuseBadDefinitions() throws {
        let world = World()
        let a = try world.createBody(.box(center: .zero, width: 10, height: 10))
        var j = JointDefinition(kind: .distance, bodyA: a, bodyB: a)
        XCTAssertThrowsError(try world.createJoint(j))
        j = JointDefinition(kind: .distance, bodyA: a, bodyB: nil)
        j.length = -1
        XCTAssertThrowsError(try world.createJoint(j))
        j = JointDefinition(kind: .revolute, bodyA: a, bodyB: nil)
        j.enableLimit = true; j.lowerLimit = 0.2; j.upperLimit = 1
        XCTAssertThrowsError(try world.createJoint(j)) { XCTAssertTrue("\($0)".contains("contain 0")) }
        try world.destroyBody(a)
        XCTAssertThrowsError(try world.createJoint(JointDefinition(kind: .weld, bodyA: a, bodyB: nil)))
    }

    /// Each body lists its joints in the order they were attached, through destruction and reuse of joint
    /// indices; destroying a body destroys exactly its joints.
    func test_jointLists_followAttachDestroyAndReuse() throws {
        let world = World()
        let hub = try world.createBody(.box(center: .zero, width: 10, height: 10))
        let others = try (0..<4).map { k in try world.createBody(.box(center: Vec2(Float(20 * k + 20), 0), width: 10, height: 10)) }
        func rod(_ a: BodyID, _ b: BodyID?) throws -> JointID {
            var j = JointDefinition(kind: .distance, bodyA: a, bodyB: b)
            j.length = 20; j.minLength = 20; j.maxLength = 20
            return try world.createJoint(j)
        }
        let j0 = try rod(hub, others[0]), j1 = try rod(others[1], hub), j2 = try rod(hub, nil), j3 = try rod(others[2], others[3])
        func list(_ b: BodyID) -> [Int32] { world.jointsAttached(to: Int(b.index)) }
        XCTAssertEqual(list(hub), [j0.index, j1.index, j2.index])
        XCTAssertEqual(list(others[1]), [j1.index])
        try world.destroyJoint(j1)
        XCTAssertEqual(list(hub), [j0.index, j2.index])
        XCTAssertEqual(list(others[1]), [])
        let j4 = try rod(others[1], hub)
        XCTAssertEqual(j4.index, j1.index, "the freed index is reused")
        XCTAssertEqual(list(hub), [j0.index, j2.index, j4.index])
        try world.destroyJoint(j0)
        XCTAssertEqual(list(hub), [j2.index, j4.index])
        XCTAssertEqual(list(others[0]), [])
        try world.destroyBody(hub)
        for j in [j2, j4] { XCTAssertFalse(world.isValid(j)) }
        XCTAssertTrue(world.isValid(j3))
        XCTAssertEqual(list(others[1]), [])
        XCTAssertEqual(list(others[2]), [j3.index])
        XCTAssertEqual(list(others[3]), [j3.index])
        try world.step(dt: 1.0 / 60, substeps: 4)
        XCTAssertEqual(world.jointCount, 1)
    }
}
