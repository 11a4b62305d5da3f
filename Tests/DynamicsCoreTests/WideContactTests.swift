import XCTest
@testable import DynamicsCore
import DynamicsTestSupport
import DynamicsScenes
import DynamicsSIMD

/// Contact constraints solved four at a time from a coloring of the contact graph (WideContacts.swift).
final class WideContactTests: XCTestCase {
    func run(_ scene: BenchmarkScene, wide: Bool, hertz: Float = 30, steps: Int) throws -> (World, SceneStatistics) {
        var settings = WorldSettings()
        settings.contactHertz = hertz
        let world = try World(settings: settings)
        if !wide { world.contactSolver.wideMinimum = .max }
        let (items, links) = try world.build(scene)
        for _ in 0..<steps { try world.step(dt: 1.0 / 60, substeps: 4) }
        return (world, world.statistics(of: scene, items: items, links: links))
    }

    /// Restitution on the wide path reads each bouncing contact out of its lane: boxes landing flat and on a corner
    /// (two-point and one-point manifolds) on a static floor bounce as they do on the scalar path. Each contact has
    /// one awake body, so the two paths differ only in the rounding of the wide kernel.
    func test_restitutionOnTheWidePath_bouncesAsTheScalarPath() throws {
        func drop(wide: Bool) throws -> (world: World, ids: [BodyID], trace: [Vec2]) {
            let world = try floorWorld(y: 300, from: -100, to: 2100)
            if !wide { world.contactSolver.wideMinimum = .max }
            var ids: [BodyID] = []
            for k in 0..<24 {
                var d = BodyDefinition.box(center: Vec2(Float(k) * 80, 100 + Float(k % 3) * 10), width: 20, height: 20)
                d.angle = k % 4 == 0 ? 0.4 : 0
                d.restitution = 0.6; d.friction = 0.3; d.collisionClass = 1
                d.gravity = Vec2(0, 1000)
                ids.append(try world.createBody(d))
            }
            var trace: [Vec2] = []
            for _ in 0..<90 {
                try world.step(dt: 1.0 / 60, substeps: 4)
                XCTAssertEqual(world.contactSolver.wide.isEmpty, !wide || world.contactStore.contacts.count < 16)
                for id in ids { trace.append(world.origin(of: id)) }
            }
            return (world, ids, trace)
        }
        let (wideWorld, ids, wide) = try drop(wide: true)
        let (_, _, scalar) = try drop(wide: false)
        for (w, s) in zip(wide, scalar) {
            XCTAssertEqual(w.x, s.x, accuracy: 0.05)
            XCTAssertEqual(w.y, s.y, accuracy: 0.05)
        }
        // Every box bounced: after its first landing it rose again clear of the floor (resting, its center is at 290).
        for (k, id) in ids.enumerated() {
            let ys = stride(from: k, to: wide.count, by: ids.count).map { wide[$0].y }
            guard let landing = ys.firstIndex(where: { $0 > 285 }) else { return XCTFail("box \(k) never landed") }
            XCTAssertLessThan(ys[landing...].min()!, 280, "box \(k) bounced")
            XCTAssertTrue(wideWorld.origin(of: id).y.isFinite)
        }
    }

    /// Every constraint is in exactly one lane, and no two lanes of a batch touch the same awake body (static
    /// bodies may be shared: nothing is written to them).
    func test_coloring_putsEveryContactOnceAndNoSharedAwakeBodyInABatch() throws {
        let (world, _) = try run(.pyramid(20), wide: true, steps: 2)
        XCTAssertFalse(world.contactSolver.wide.isEmpty, "the wide path ran")
        let awake = Int32(world.bodies.awakeCount)
        var seen = Set<Int32>()
        for b in world.contactSolver.wide {
            var bodies = Set<Int32>()
            for l in 0..<4 where b.constraint[l] >= 0 {
                XCTAssertTrue(seen.insert(b.constraint[l]).inserted, "constraint \(b.constraint[l]) in two lanes")
                let c = world.contactStore.contacts[Int(b.constraint[l])]
                let slotA = world.bodies.slot[Int(c.bodyA)], slotB = world.bodies.slot[Int(c.bodyB)]
                for slot in [slotA, slotB] where slot < awake {
                    XCTAssertTrue(bodies.insert(slot).inserted, "two lanes of one batch share awake body slot \(slot)")
                }
                XCTAssertEqual(world.contactSolver.bodies[Int(b.entryA[l])], slotA)
                XCTAssertEqual(world.contactSolver.bodies[Int(b.entryB[l])], slotB)
            }
        }
        XCTAssertEqual(seen.count, world.contactStore.contacts.count)
        XCTAssertTrue(world.contactSolver.scalar.isEmpty, "the wide path builds no scalar constraints")
    }

    /// The contact pass solves one, two or four batches of a color side by side (4, 8 or 16 lanes, by processor):
    /// every width must give the same bits. Rain landing in a pile and a pyramid, every body's state every 30 steps.
    func test_widerContactPasses_matchFourLanesBitForBit() throws {
        let widths = [8, 16].filter { $0 <= World.vectorLanes }
        try XCTSkipIf(widths.isEmpty, "this processor has no AVX2: only the 4-lane pass runs here")
        func trace(_ scene: BenchmarkScene, lanes: Int) throws -> [[UInt32]] {
            dk_limit_vector_width(Int32(lanes))
            defer { dk_limit_vector_width(0) }
            let world = World()
            let (items, _) = try world.build(scene)
            var out: [[UInt32]] = []
            var wideRan = false
            for step in 0..<240 {
                try world.step(dt: 1.0 / 60, substeps: 4)
                if !world.contactSolver.wide.isEmpty { wideRan = true }
                if step % 30 == 29 {
                    out.append(items.flatMap { id -> [UInt32] in
                        let p = world.origin(of: id), v = world.velocity(of: id), q = world.rotation(of: id)
                        return [p.x.bitPattern, p.y.bitPattern, v.x.bitPattern, v.y.bitPattern, q.s.bitPattern]
                    })
                }
            }
            XCTAssertTrue(wideRan, "the wide path ran")
            return out
        }
        for scene in [BenchmarkScene.rain(300), .pyramid(20)] {
            let four = try trace(scene, lanes: 4)
            for lanes in widths {
                let wide = try trace(scene, lanes: lanes)
                for (k, (a, b)) in zip(four, wide).enumerated() {
                    XCTAssertTrue(a == b, "\(scene.name): \(lanes) lanes disagree with 4 by step \(30 * k + 29)")
                }
            }
        }
    }

    /// A plank lying on 72 boxes has more contacts than there are colors: the contacts that find none (the
    /// overflow) become scalar constraints, solved before the batches in every pass, while the rest stay wide.
    /// Every contact is solved once, the overflow's impulses are kept for the next step's warm start, and the
    /// plank rests as on the all-scalar path, the same on every run.
    func test_coloringOverflow_solvesTheRestAsScalarConstraints() throws {
        func rest(wide: Bool, steps: Int) throws -> (world: World, plank: BodyID, trace: [Vec2]) {
            let world = try floorWorld(y: 500, from: -100, to: 1200)
            if !wide { world.contactSolver.wideMinimum = .max }
            var ids: [BodyID] = []
            for k in 0..<72 {
                var d = BodyDefinition.box(center: Vec2(20 + Float(k) * 14, 495), width: 10, height: 10)
                d.gravity = Vec2(0, 1000); d.friction = 0.5; d.collisionClass = 1
                ids.append(try world.createBody(d))
            }
            var plankDefinition = BodyDefinition.box(center: Vec2(517, 485), width: 1010, height: 10)
            plankDefinition.gravity = Vec2(0, 1000); plankDefinition.friction = 0.5; plankDefinition.collisionClass = 1
            let plank = try world.createBody(plankDefinition)
            var trace: [Vec2] = []
            for step in 0..<steps {
                try world.step(dt: 1.0 / 60, substeps: 4)
                if wide && step < 20 {
                    XCTAssertFalse(world.contactSolver.wide.isEmpty, "step \(step): the batches ran")
                    XCTAssertFalse(world.contactSolver.scalar.isEmpty, "step \(step): 72 contacts at the plank overflow 64 colors")
                }
                trace.append(world.origin(of: plank))
                trace.append(Vec2(world.angle(of: plank), 0))
                for id in ids { trace.append(world.origin(of: id)) }
            }
            return (world, plank, trace)
        }
        // Awake still after 20 steps (a resting island sleeps after half a second).
        let (world, plank, _) = try rest(wide: true, steps: 20)
        XCTAssertGreaterThan(world.awakeBodyCount, 0)
        // Every contact in exactly one place: a lane of a batch or a scalar constraint.
        var seen = Array(repeating: 0, count: world.contactStore.contacts.count)
        for b in world.contactSolver.wide { for l in 0..<4 where b.constraint[l] >= 0 { seen[Int(b.constraint[l])] += 1 } }
        for c in world.contactSolver.scalar { seen[Int(c.contact)] += 1 }
        XCTAssertEqual(seen, Array(repeating: 1, count: world.contactStore.contacts.count))
        // The overflow's impulses were stored for the warm start: every contact at the plank pushes.
        let plankIndex = Int32(plank.index)
        let atPlank = world.contactStore.contacts.filter { $0.bodyA == plankIndex || $0.bodyB == plankIndex }
        XCTAssertEqual(atPlank.count, 72)
        for c in atPlank { XCTAssertGreaterThan(c.manifold.points.0.normalImpulse, 0) }
        for c in world.contactSolver.scalar { XCTAssertGreaterThan(world.contactStore.contacts[Int(c.contact)].manifold.points.0.normalImpulse, 0) }
        // The plank rests on the boxes (its center 10 points above their tops' 490), level, as on the scalar path.
        XCTAssertEqual(world.origin(of: plank).y, 485, accuracy: 0.5)
        XCTAssertEqual(world.angle(of: plank), 0, accuracy: 0.001)
        let (_, _, wide) = try rest(wide: true, steps: 90)
        let (_, _, scalar) = try rest(wide: false, steps: 90)
        for (w, s) in zip(wide, scalar) {
            XCTAssertEqual(w.x, s.x, accuracy: 0.05)
            XCTAssertEqual(w.y, s.y, accuracy: 0.05)
        }
        let (_, _, again) = try rest(wide: true, steps: 90)
        XCTAssertTrue(zip(wide, again).allSatisfy { $0.x.bitPattern == $1.x.bitPattern && $0.y.bitPattern == $1.y.bitPattern })
    }

    /// The wide path stacks and piles as the scalar path does (only the order of the contacts within a pass
    /// differs), and gives the same result on every run.
    func test_wideContacts_stackAndPileLikeTheScalarPath_deterministically() throws {
        let (_, scalarPyramid) = try run(.pyramid(20), wide: false, hertz: 60, steps: 300)
        let (widePyramidWorld, widePyramid) = try run(.pyramid(20), wide: true, hertz: 60, steps: 300)
        XCTAssertEqual(widePyramidWorld.awakeBodyCount, 0, "the pyramid settles and sleeps")
        XCTAssertLessThanOrEqual(abs(widePyramid.topDY), 2)
        XCTAssertLessThanOrEqual(abs(widePyramid.topDX), 2)
        XCTAssertEqual(widePyramid.topDY, scalarPyramid.topDY, accuracy: 0.5)

        let (_, scalarRain) = try run(.rain(300), wide: false, steps: 240)
        let (wideRainWorld, wideRain) = try run(.rain(300), wide: true, steps: 240)
        XCTAssertFalse(wideRainWorld.contactSolver.wide.isEmpty, "the wide path ran")
        XCTAssertEqual(wideRain.outside, 0)
        XCTAssertEqual(wideRain.nonfinite, 0)
        XCTAssertEqual(wideRain.meanY, scalarRain.meanY, accuracy: 0.005 * scalarRain.meanY)
        let (_, again) = try run(.rain(300), wide: true, steps: 240)
        XCTAssertEqual(wideRain.meanY.bitPattern, again.meanY.bitPattern)
    }
}
