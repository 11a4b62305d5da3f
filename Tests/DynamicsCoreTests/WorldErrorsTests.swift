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
}
