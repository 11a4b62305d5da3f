import XCTest
@testable import DynamicsCore
import DynamicsScenes
import DynamicsSIMD

/// The scene generators reproduce Benchmarks/SCENES.md's check sums, so every engine builds the same initial state.
final class SceneTests: XCTestCase {
    func test_lcg_matchesTheFirstFourStates() {
        var rng = BenchmarkScene.LCG()
        XCTAssertEqual([rng.next(), rng.next(), rng.next(), rng.next()], [87_628_868, 71_072_467, 2_332_836_374, 2_726_892_157])
    }

    func test_generators_matchTheCheckSums() {
        let table: [(BenchmarkScene, Int, Int, Double, Double)] = [
            (.rain(1000), 1000, 0, 590806.103529, 108708.134505),
            (.rain(4000), 4000, 0, 4749468.487756, 809728.720092),
            (.rain(10000), 10000, 0, 17967849.815883, 3276248.701754),
            (.pyramid(20), 210, 0, 210000, 195650),
            (.pyramid(100), 5050, 0, 5050000, 3358250),
            (.jointGrid(100), 10000, 19900, 10000000, 5950000),
            (.fieldSwarm(10000), 10000, 0, 10000000, 10000000),
        ]
        for (scene, items, links, sumX, sumY) in table {
            XCTAssertEqual(scene.items.count, items, scene.name)
            XCTAssertEqual(scene.links.count, links, scene.name)
            XCTAssertEqual(scene.items.reduce(0) { $0 + $1.center.x }, sumX, accuracy: 1e-5, scene.name)
            XCTAssertEqual(scene.items.reduce(0) { $0 + $1.center.y }, sumY, accuracy: 1e-5, scene.name)
        }
        let rain = BenchmarkScene.rain(1000)
        XCTAssertEqual(rain.items[0].center.x, 18.081611, accuracy: 1e-6)
        XCTAssertEqual(rain.items[1].center.y, 20.539616, accuracy: 1e-6)
        XCTAssertEqual(rain.items[999].center.x, 966.088798, accuracy: 1e-6)
        XCTAssertEqual(BenchmarkScene.rain(10000).items[9999].center.y, 651.933021, accuracy: 1e-6)
        XCTAssertEqual(BenchmarkScene.pyramid(100).items[5049].center.y, 5)
        XCTAssertEqual(BenchmarkScene.jointGrid(100).items[9999].center.x, 1495)
    }

    func test_build_createsBodiesWallsAndLinks() throws {
        let world = World()
        let (items, links) = try world.build(.jointGrid(10))
        XCTAssertEqual(items.count, 100)
        XCTAssertEqual(links.count, 10 + 2 * 10 * 9)
        XCTAssertEqual(world.jointCount, links.count)
        let rainWorld = World()
        let (rainItems, _) = try rainWorld.build(.rain(1000))
        XCTAssertEqual(rainWorld.bodyCount, 1004)
        XCTAssertEqual(rainWorld.origin(of: rainItems[0]).x, 18.081611, accuracy: 1e-4)
    }

    /// An ensemble member moves every center by at most the amplitude in each axis, the same way for the same seed
    /// and another way for another; the scene's walls, links and order stay.
    func test_perturbed_movesEachCenterWithinTheAmplitude_repeatablyBySeed() {
        let scene = BenchmarkScene.jointGrid(10)
        let a = scene.perturbed(seed: 1, amplitude: 0.001), again = scene.perturbed(seed: 1, amplitude: 0.001)
        let b = scene.perturbed(seed: 2, amplitude: 0.001)
        XCTAssertEqual(a.items.count, scene.items.count)
        XCTAssertEqual(a.links.count, scene.links.count)
        var moved = 0
        for k in scene.items.indices {
            let d = a.items[k].center - scene.items[k].center
            XCTAssertLessThanOrEqual(max(abs(d.x), abs(d.y)), 0.001, "item \(k)")
            if d.x != 0 || d.y != 0 { moved += 1 }
            XCTAssertEqual(a.items[k].center, again.items[k].center, "item \(k)")
        }
        XCTAssertEqual(moved, scene.items.count, "every item moves")
        XCTAssertNotEqual(a.items.map(\.center.x), b.items.map(\.center.x), "another seed, other moves")
        XCTAssertEqual(scene.perturbed(seed: 3, amplitude: 0).items.map(\.center), scene.items.map(\.center))
    }
}
