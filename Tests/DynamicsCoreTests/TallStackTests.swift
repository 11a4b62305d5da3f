import XCTest
@testable import DynamicsCore
import DynamicsScenes

/// Stacks deeper than a pile (`WorldSettings.tallStackDepth`): their depth, the substeps and stiffness they are
/// solved with, and that they stand at the defaults.
final class TallStackTests: XCTestCase {
    /// The depth counts touching contacts from what does not move: a 20-row pyramid is 20 deep, a box in the air none.
    func test_depth_countsTouchingContactsFromTheGround() throws {
        let world = try World(settings: WorldSettings())
        _ = try world.build(BenchmarkScene.pyramid(20))
        try world.step(dt: 1.0 / 60, substeps: 4)
        let found = world.deepestStack(deeperThan: 0, restingWithin: nil)
        XCTAssertEqual(found.depth, 20)
        XCTAssertEqual(found.gravity, 1000)

        let air = try World(settings: WorldSettings())
        for y: Float in [0, 10] {
            var box = BodyDefinition.box(center: Vec2(0, y), width: 10, height: 10)
            box.gravity = Vec2(0, 1000)
            _ = try air.createBody(box)
        }
        try air.step(dt: 1.0 / 60, substeps: 4)
        XCTAssertEqual(air.deepestStack(deeperThan: 0, restingWithin: nil).depth, 0, "two boxes touching in the air")
    }

    /// A body moving faster than its acceleration gives in the resting time breaks the chain while the stack is
    /// looked for.
    func test_depth_whileLookedFor_countsRestingBodiesOnly() throws {
        let world = try World(settings: WorldSettings())
        let (ids, _) = try world.build(BenchmarkScene.pyramid(20))
        try world.step(dt: 1.0 / 60, substeps: 4)
        // The middle box of row 10 (its rows above rest on it and its neighbours) thrown sideways.
        let row10 = (0..<10).reduce(0) { $0 + (20 - $1) }
        try world.setVelocity(ids[row10 + 5], Vec2(500, 0))
        XCTAssertEqual(world.deepestStack(deeperThan: 0, restingWithin: nil).depth, 20)
        XCTAssertEqual(world.deepestStack(deeperThan: 0, restingWithin: 3.0 / 60).depth, 20, "its neighbours carry the rows above")
        for k in 0..<(20 - 10) { try world.setVelocity(ids[row10 + k], Vec2(500, 0)) }
        XCTAssertEqual(world.deepestStack(deeperThan: 0, restingWithin: 3.0 / 60).depth, 10, "row 10 moving: the rows above are cut off")
    }

    /// The rule: the caller's substeps and the settings' contacts up to the depth; beyond it, stiff enough to sink
    /// about `tallStackSink`, at an eighth of the substep rate and damping ratio 10; at most
    /// `tallStackMaximumSubsteps`, never fewer than asked.
    func test_contactStiffness_followsTheDepth() throws {
        let world = try World(settings: WorldSettings())
        let dt: Float = 1.0 / 60
        func stiffness(depth: Int, substeps: Int = 4) -> ContactStiffness {
            world.tallStack = TallStackState(depth: depth, gravity: 1000)
            return world.contactStiffness(dt: dt, substeps: substeps)
        }
        XCTAssertEqual(stiffness(depth: 64), ContactStiffness(substeps: 4, hertz: 30, dampingRatio: 5))
        XCTAssertFalse(world.tallStackTakenUp)
        // 100 deep: ω = 100·√(1000 / 8) = 1118 rad/s, 178 Hz, 8 × 178 / 60 → 24 substeps.
        let hundred = stiffness(depth: 100)
        XCTAssertTrue(world.tallStackTakenUp)
        XCTAssertEqual(hundred.substeps, 24)
        XCTAssertEqual(hundred.hertz, 1118.034 / (2 * .pi), accuracy: 0.01)
        XCTAssertEqual(hundred.dampingRatio, 10)
        XCTAssertEqual(stiffness(depth: 100, substeps: 40).substeps, 40, "never fewer than asked")
        // 300 deep: held to 32 substeps and 32 × 60 / 8 = 240 Hz.
        let deep = stiffness(depth: 300)
        XCTAssertEqual(deep.substeps, 32)
        XCTAssertEqual(deep.hertz, 240, accuracy: 0.001)
        XCTAssertEqual(deep.dampingRatio, 10)
        // A world set up for its stack keeps its own settings (the pyramid_100 profile: 24 substeps at 180 Hz).
        var profile = world.settings
        profile.contactHertz = 180
        profile.contactDampingRatio = 10
        try world.setSettings(profile)
        XCTAssertEqual(stiffness(depth: 100, substeps: 24), ContactStiffness(substeps: 24, hertz: 180, dampingRatio: 10))
        var off = world.settings
        off.tallStackDepth = 0
        try world.setSettings(off)
        XCTAssertEqual(stiffness(depth: 300, substeps: 24), ContactStiffness(substeps: 24, hertz: 180, dampingRatio: 10), "the rule off")
    }

    /// A 66-row pyramid at the defaults stands within 5 points and sleeps; with the rule off it sinks by several
    /// boxes.
    func test_tallPyramid_standsAtTheDefaults() throws {
        func run(_ settings: WorldSettings, steps: Int) throws -> (topDrop: Float, awake: Int, outside: Int, hash: UInt64) {
            let world = try World(settings: settings)
            let scene = BenchmarkScene.pyramid(66)
            let (ids, links) = try world.build(scene)
            for _ in 0..<steps { try world.step(dt: 1.0 / 60, substeps: 4) }
            let stats = world.statistics(of: scene, items: ids, links: links)
            return (Float(stats.topDY), world.awakeBodyCount, stats.outside, world.stateHash())
        }
        let standing = try run(WorldSettings(), steps: 90)
        XCTAssertLessThan(abs(standing.topDrop), 5)
        XCTAssertEqual(standing.outside, 0)
        XCTAssertEqual(standing.awake, 0, "asleep by step 90")
        var off = WorldSettings()
        off.tallStackDepth = 0
        let sinking = try run(off, steps: 60)
        XCTAssertGreaterThan(abs(sinking.topDrop), 20, "at the pile's settings the pyramid sinks by boxes")
    }

    /// Solved as a tall stack, the step is still the same to the bit on one to four workers.
    func test_tallPyramid_isBitIdenticalOnOneToFourWorkers() throws {
        func hash(workers: Int) throws -> UInt64 {
            let world = try World(settings: WorldSettings())
            try world.setWorkerCount(workers)
            world.workers.handOutEveryPass(from: 64)
            _ = try world.build(BenchmarkScene.pyramid(66))
            for _ in 0..<12 { try world.step(dt: 1.0 / 60, substeps: 4) }
            XCTAssertTrue(world.tallStackTakenUp, "\(workers) workers")
            return world.stateHash()
        }
        let one = try hash(workers: 1)
        for workers in 2...4 { XCTAssertEqual(try hash(workers: workers), one, "\(workers) workers") }
    }

    func test_settings_areChecked() {
        func message(_ change: (inout WorldSettings) -> Void) -> String {
            var s = WorldSettings()
            change(&s)
            do { try s.validate(); return "" } catch { return "\(error)" }
        }
        XCTAssertTrue(message { $0.tallStackDepth = -1 }.contains("tallStackDepth must not be negative"))
        XCTAssertTrue(message { $0.tallStackSink = 0 }.contains("tallStackSink must be finite and positive"))
        XCTAssertTrue(message { $0.tallStackSink = .nan }.contains("tallStackSink"))
        XCTAssertTrue(message { $0.tallStackMaximumSubsteps = 65 }.contains("tallStackMaximumSubsteps must be between 1 and 64"))
        XCTAssertTrue(message { $0.tallStackMaximumSubsteps = 0 }.contains("tallStackMaximumSubsteps"))
        XCTAssertEqual(message { $0.tallStackDepth = 0 }, "")
    }

    /// A column of 70 boxes of 10 points standing at x = 1000 on a static floor 4,000 points wide (its top face at
    /// y = 1000), gravity 1000 pt/s², friction 0.2, in a world with `tallStackDepth`: the world and the boxes from
    /// the bottom up.
    private func column(tallStackDepth: Int) throws -> (World, [BodyID]) {
        var settings = WorldSettings()
        settings.tallStackDepth = tallStackDepth
        let world = try World(settings: settings)
        world.setCollisionMatrix(classCount: 2) { a, b in a == 1 && b == 1 }
        var ground = BodyDefinition.box(center: Vec2(1000, 1010), width: 4000, height: 20)
        ground.type = .static; ground.collisionClass = 1
        try world.createBody(ground)
        var ids: [BodyID] = []
        for k in 0..<70 {
            var d = BodyDefinition.box(center: Vec2(1000, 995 - 10 * Float(k)), width: 10, height: 10)
            d.gravity = Vec2(0, 1000); d.friction = 0.2; d.collisionClass = 1
            ids.append(try world.createBody(d))
        }
        return (world, ids)
    }

    /// A single column of 70 boxes, the stack that sinks most for its depth (each contact carries every box above it):
    /// solved as a tall stack it sinks about twice `tallStackSink` (D²·g/ω²) and rests; at the pile's settings it sinks
    /// 140 points and does not come to rest in five seconds.
    func test_tallColumn_standsAndRests() throws {
        func run(tallStackDepth: Int) throws -> (drop: Float, asleepAt: Int?) {
            let (world, ids) = try column(tallStackDepth: tallStackDepth)
            var asleepAt: Int?
            for s in 0..<300 {
                try world.step(dt: 1.0 / 60, substeps: 4)
                if asleepAt == nil && world.awakeBodyCount == 0 { asleepAt = s + 1 }
            }
            let top = world.origin(of: ids[69])
            XCTAssertEqual(top.x, 1000, accuracy: 0.5, "the column stays upright")
            return (top.y - 305, asleepAt)
        }
        let standing = try run(tallStackDepth: 64)
        XCTAssertLessThan(standing.drop, 2 * WorldSettings().tallStackSink + 1)
        XCTAssertLessThanOrEqual(standing.asleepAt ?? .max, 120)
        let sinking = try run(tallStackDepth: 0)
        XCTAssertGreaterThan(sinking.drop, 100)
        XCTAssertNil(sinking.asleepAt)
    }

    /// A standing column knocked at a third of its height while it is solved as a tall stack falls as a column of
    /// boxes does: its energy never grows past what the knock gave and its height released, the world drops the tall
    /// stack's substeps once the column is down, and the boxes come to rest.
    func test_tallColumn_knockedOver_fallsWithoutGainingEnergy() throws {
        let (world, ids) = try column(tallStackDepth: WorldSettings().tallStackDepth)
        for _ in 0..<40 { try world.step(dt: 1.0 / 60, substeps: 4) }
        XCTAssertTrue(world.tallStackTakenUp, "the column is solved as a tall stack")
        try world.setVelocity(ids[23], Vec2(400, 0))
        /// Kinetic energy plus the potential energy of the height (y grows downward, gravity 1000 pt/s²).
        func energy() -> Float {
            var e: Float = 0
            for id in ids {
                let m = world.mass(of: id), v = world.velocity(of: id), w = world.angularVelocity(of: id)
                e += 0.5 * m * (v.x * v.x + v.y * v.y) + 0.5 * world.inertia(of: id) * w * w - m * 1000 * world.origin(of: id).y
            }
            return e
        }
        let start = energy()
        var most = start, mostStep = 0, takenUpAt: Int?
        var asleepAt: Int?
        for s in 0..<900 {
            try world.step(dt: 1.0 / 60, substeps: 4)
            let e = energy()
            if e > most { most = e; mostStep = s + 1 }
            if world.tallStackTakenUp { takenUpAt = s + 1 }
            if asleepAt == nil && world.awakeBodyCount == 0 { asleepAt = s + 1 }
        }
        let scale = 70 * world.mass(of: ids[0]) * 1000 * 10
        XCTAssertLessThanOrEqual(most - start, 0.01 * scale, "the energy grew by \(most - start) at step \(mostStep)")
        XCTAssertFalse(world.tallStackTakenUp)
        XCTAssertLessThan(takenUpAt ?? 0, 120, "let go once the column is down")
        for id in ids {
            let p = world.origin(of: id)
            XCTAssertTrue(p.x.isFinite && p.y.isFinite && p.y < 1000, "\(p)")
        }
        XCTAssertNotNil(asleepAt)
    }
}
