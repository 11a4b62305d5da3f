import XCTest
@testable import DynamicsCore
import DynamicsTestSupport
import DynamicsScenes
import DynamicsSIMD

/// Manifolds computed at reference poses and reused while neither body leaves its reference
/// (World+Narrowphase.swift).
final class ManifoldReuseTests: XCTestCase {
    /// A pair's reach in whole units, rounded up by hand, is what `rounded(.up)` gives (or `noReach` from 255 units
    /// on, and for NaN): every value a pair can have, exact integers and the floats on either side of them included.
    func test_wholeReachUnits_roundUpAsTheLibraryDoes() {
        func expected(_ units: Float) -> UInt8 {
            let up = units.rounded(.up)
            return up < Float(World.noReach) ? UInt8(up) : World.noReach
        }
        var values: [Float] = [0, -0.0, -0.5, .leastNonzeroMagnitude, 0.25, 254.0001, 254.5, 255, 255.5, 1e9, .infinity, .nan]
        for n in 0...256 {
            let v = Float(n)
            values += [v, v.nextDown, v.nextUp, v + 0.5, v + 0.999]
        }
        for v in values where !(v <= -1) {
            XCTAssertEqual(World.wholeReachUnits(v), expected(v), "\(v)")
        }
        // A dense sweep of the units a step's reaches take.
        var u: Float = 0
        while u < 300 { XCTAssertEqual(World.wholeReachUnits(u), expected(u), "\(u)"); u += 0.0137 }
    }

    /// Reusing last step's manifold gives what computing it again at the same reference poses gives: a rain
    /// settling into a pile and a pyramid, with reuse and without, agree to the bit at every step, and the pile's
    /// calm steps reuse most of their manifolds.
    func test_reusedManifolds_areTheOnesComputingAgainGives() throws {
        for scene in [BenchmarkScene.rain(300), .pyramid(20)] {
            func trace(reuse: Bool) throws -> (states: [UInt32], reused: [Int], contacts: [Int]) {
                let world = World()
                world.contactStore.manifoldReuse = reuse
                let (items, _) = try world.build(scene)
                var states: [UInt32] = [], reused: [Int] = [], contacts: [Int] = []
                for _ in 0..<240 {
                    try world.step(dt: 1.0 / 60, substeps: 4)
                    reused.append(world.contactStore.reusedManifoldCount); contacts.append(world.contactCount)
                    for id in items {
                        let p = world.origin(of: id), v = world.velocity(of: id), q = world.rotation(of: id)
                        states += [p.x.bitPattern, p.y.bitPattern, v.x.bitPattern, v.y.bitPattern, q.s.bitPattern,
                                   world.angularVelocity(of: id).bitPattern]
                    }
                }
                return (states, reused, contacts)
            }
            let with = try trace(reuse: true), without = try trace(reuse: false)
            XCTAssertTrue(with.states == without.states, "\(scene.name): reuse changed the result")
            XCTAssertEqual(without.reused.max(), 0)
            // Some step with most of its contacts' manifolds reused.
            XCTAssertTrue(zip(with.reused, with.contacts).contains { $1 > 50 && 2 * $0 > $1 },
                          "\(scene.name): calm steps reuse their manifolds")
        }
    }

    /// A 20-point box under gravity, placed resting on a static floor at y = 300.
    func boxOnFloor() throws -> (World, BodyID) {
        let world = try floorWorld(y: 300, from: -100, to: 300)
        var d = BodyDefinition.box(center: Vec2(100, 290), width: 20, height: 20)
        d.gravity = Vec2(0, 1000); d.collisionClass = 1
        return (world, try world.createBody(d))
    }

    /// A box resting on a floor keeps its manifold while it rests; moved by the caller by less than the tolerance,
    /// its manifold is computed again where it now is (the step reuses nothing), so the contact's separation is
    /// the new gap.
    func test_aMovedBody_getsItsManifoldComputedAgain() throws {
        let (world, box) = try boxOnFloor()
        for _ in 0..<20 { try world.step(dt: 1.0 / 60, substeps: 4) }
        XCTAssertEqual(world.contactCount, 1)
        XCTAssertEqual(world.contactStore.reusedManifoldCount, 1, "a resting box keeps its manifold")
        let restingY = world.origin(of: box).y
        // Lifted by 0.02 points (within the tolerance of 0.05), with its velocity cleared.
        try world.setTransform(box, origin: Vec2(world.origin(of: box).x, restingY - 0.02), angle: 0)
        try world.setVelocity(box, .zero)
        let before = world.contactStore.contacts[0].manifold.points.0.separation
        try world.step(dt: 1.0 / 60, substeps: 4)
        XCTAssertEqual(world.contactStore.reusedManifoldCount, 0, "nothing is reused after the caller moved a body")
        let after = world.contactStore.contacts[0].manifold.points.0
        XCTAssertEqual(after.separation, after.referenceSeparation, "computed at the present pose")
        XCTAssertEqual(after.separation - before, 0.02, accuracy: 0.005)
    }

    /// A body that moves carries its contact points' separations with it between reference updates: for a box
    /// settling on a floor (within the tolerance of its reference), each step's separation is its gap then.
    func test_separationsFollowTheBodies_betweenReferenceUpdates() throws {
        let (world, box) = try boxOnFloor()
        var reused = 0
        for step in 0..<25 {
            // The narrowphase runs at the start of the step, at these positions.
            let y = world.origin(of: box).y
            try world.step(dt: 1.0 / 60, substeps: 4)
            XCTAssertEqual(world.contactCount, 1)
            guard world.contactCount == 1 else { continue }
            let c = world.contactStore.contacts[0]
            // The box's bottom face is 10 below its center; the wall is at 300. Both points share the gap.
            let gap = 300 - (y + 10)
            for k in 0..<c.manifold.pointCount {
                XCTAssertEqual(c.manifold[k].separation, gap, accuracy: 1e-4, "step \(step), point \(k)")
            }
            reused += world.contactStore.reusedManifoldCount
        }
        XCTAssertGreaterThan(reused, 10, "the resting box's steps reused its manifold")
    }
}
