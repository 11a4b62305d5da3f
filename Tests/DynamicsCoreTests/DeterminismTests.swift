import XCTest
@testable import DynamicsCore
import DynamicsScenes

/// The physics, pinned: a hash of every item's state after rain_1000's 600 steps. Any change to what the engine
/// computes changes it, so such a change is seen and the pin updated on purpose (with the reason in the commit).
/// The same hash holds for every lane width (4, 8, 16) and in debug and release builds.
final class DeterminismTests: XCTestCase {
    /// FNV-1a over the bit patterns of each item's position, angle and velocities, in item order.
    static func stateHash(_ world: World, _ ids: [BodyID]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ v: Float) {
            var bits = v.bitPattern
            for _ in 0..<4 {
                hash = (hash ^ UInt64(bits & 0xFF)) &* 0x0000_0100_0000_01B3
                bits >>= 8
            }
        }
        for id in ids {
            let p = world.origin(of: id), v = world.velocity(of: id)
            mix(p.x); mix(p.y); mix(world.angle(of: id)); mix(v.x); mix(v.y); mix(world.angularVelocity(of: id))
        }
        return hash
    }

    static let rain1000After600Steps: UInt64 = 0x56df_1410_584c_37f1

    func test_rain1000After600Steps_matchesThePinnedHash_atEveryLaneWidth() throws {
        defer { try? World.limitVectorLanes(to: nil) }
        for lanes in [4, 8, 16] {
            try World.limitVectorLanes(to: lanes)
            let world = World()
            let (ids, _) = try world.build(.rain(1000))
            for _ in 0..<600 { try world.step(dt: 1.0 / 60, substeps: 4) }
            let hash = Self.stateHash(world, ids)
            XCTAssertEqual(hash, Self.rain1000After600Steps,
                           String(format: "%d lanes (of %d here): state hash 0x%016llx", lanes, World.vectorLanes, hash))
        }
    }
}
