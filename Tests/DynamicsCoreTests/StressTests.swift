import XCTest
@testable import DynamicsCore

/// Heavy scenes. Debug builds are too slow for them; they run in release:
/// `swift test -c release --filter StressTests` (as .ci/run does).
final class StressTests: XCTestCase {
    override func setUpWithError() throws {
        #if DEBUG
        throw XCTSkip("run in release: swift test -c release --filter StressTests")
        #endif
    }

    /// SCENES.md rain_10000 at 60 Hz: no item leaves the bounds, nothing becomes NaN, and the pile goes to sleep
    /// within 30 simulated seconds.
    func test_rain10000_staysInside_staysFinite_andSleepsWithin30Seconds() throws {
        let scene = BenchmarkScene.rain(10000)
        let world = World()
        let (ids, _) = try world.build(scene)
        var sleptAt: Int?
        for step in 1...1800 {
            world.step(dt: 1.0 / 60, substeps: 4)
            if world.awakeBodyCount == 0 { sleptAt = step; break }
        }
        var outside = 0, nonfinite = 0
        for id in ids {
            let p = world.origin(of: id)
            if !(p.x.isFinite && p.y.isFinite) { nonfinite += 1; continue }
            if !(p.x >= 0 && p.x <= Float(scene.width) && p.y >= 0 && p.y <= Float(scene.height)) { outside += 1 }
        }
        XCTAssertEqual(nonfinite, 0)
        XCTAssertEqual(outside, 0)
        XCTAssertNotNil(sleptAt, "the pile did not sleep within 30 s (\(world.awakeBodyCount) awake)")
    }

    /// The same inputs give bit-identical results.
    func test_rain1000_rerunIsBitIdentical() throws {
        func run() throws -> [UInt32] {
            let world = World()
            let (ids, _) = try world.build(.rain(1000))
            for _ in 0..<300 { world.step(dt: 1.0 / 60, substeps: 4) }
            return ids.flatMap { id -> [UInt32] in
                let p = world.origin(of: id); let q = world.rotation(of: id)
                return [p.x.bitPattern, p.y.bitPattern, q.c.bitPattern, q.s.bitPattern]
            }
        }
        XCTAssertEqual(try run(), try run())
    }
}
