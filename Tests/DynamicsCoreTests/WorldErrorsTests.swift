import XCTest
@testable import DynamicsCore

/// The engine's API throws `DynamicsError` for bad input to a change, naming the call and the rule, and changes
/// nothing.
final class WorldErrorsTests: XCTestCase {
    func test_invalidSettings_throwAndLeaveTheSettings() throws {
        let world = World()
        var bad = world.settings
        bad.linearSlop = -1
        XCTAssertThrowsError(try world.setSettings(bad)) { error in
            XCTAssertTrue("\(error)".contains("linearSlop"), "\(error)")
        }
        XCTAssertEqual(world.settings.linearSlop, 0.5)
        bad = WorldSettings()
        bad.contactHertz = -3
        XCTAssertThrowsError(try World(settings: bad))
        var good = WorldSettings()
        good.contactHertz = 60
        try world.setSettings(good)
        XCTAssertEqual(world.settings.contactHertz, 60)
    }

    func test_changesToADestroyedBody_throwNamingTheCall() throws {
        let world = World()
        let id = try world.createBody(.box(center: Vec2(0, 0), width: 10, height: 10))
        try world.destroyBody(id)
        for (name, call) in [("setVelocity", { try world.setVelocity(id, Vec2(1, 0)) }),
                             ("setType", { try world.setType(id, .static) }),
                             ("setAllowsRotation", { try world.setAllowsRotation(id, false) }),
                             ("wake", { try world.wake(id) }),
                             ("applyImpulse", { try world.applyImpulse(id, Vec2(1, 0)) })] as [(String, () throws -> Void)] {
            XCTAssertThrowsError(try call()) { error in XCTAssertTrue("\(error)".contains(name), "\(error)") }
        }
    }

    func test_stepOutsideItsRange_throwsAndChangesNothing() throws {
        let world = World()
        var def = BodyDefinition.box(center: Vec2(0, 0), width: 10, height: 10)
        def.gravity = Vec2(0, 1000)
        let id = try world.createBody(def)
        for (dt, substeps) in [(Float(0), 4), (1e-50, 4), (.nan, 4), (.infinity, 4), (2, 4), (1.0 / 60, 0), (1.0 / 60, 65)] as [(Float, Int)] {
            XCTAssertThrowsError(try world.step(dt: dt, substeps: substeps)) { error in XCTAssertTrue("\(error)".contains("World.step"), "\(error)") }
        }
        XCTAssertEqual(world.stepCount, 0)
        XCTAssertEqual(world.origin(of: id), Vec2(0, 0))
        try world.step(dt: 1.0 / 60, substeps: 4)
        XCTAssertEqual(world.stepCount, 1)
    }
}
