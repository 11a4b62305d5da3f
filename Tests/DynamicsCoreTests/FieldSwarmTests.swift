import XCTest
@testable import DynamicsCore
import DynamicsScenes
import DynamicsSIMD

final class FieldSwarmTests: XCTestCase {
    /// The swarm's fields give Benchmarks/SCENES.md's acceleration: radial K / max(r, 50)² inward plus 0.1·(−dy, dx).
    func test_fieldSwarmFields_matchTheScenesFormula() throws {
        let world = World()
        let (ids, _) = try world.build(.fieldSwarm(100))
        for id in ids { try world.setMaterial(id, restitution: 0, friction: 0, linearDamping: 0, angularDamping: 0, charge: 0) }
        let before = ids.map { world.origin(of: $0) }
        try world.step(dt: 1.0 / 60, substeps: 4)
        for (k, id) in ids.enumerated() {
            let d = before[k] - Vec2(1000, 1000)
            let r = length(d)
            let radial: Float = 4e7 / (max(r, 50) * max(r, 50))
            let expected = (r > 0 ? -radial * d / r : .zero) + 0.1 * Vec2(-d.y, d.x)
            let a = world.velocity(of: id) * 60
            XCTAssertEqual(a.x, expected.x, accuracy: 0.002 * max(length(expected), 1), "item \(k)")
            XCTAssertEqual(a.y, expected.y, accuracy: 0.002 * max(length(expected), 1), "item \(k)")
        }
    }
}
