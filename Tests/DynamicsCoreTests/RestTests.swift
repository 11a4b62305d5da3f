import XCTest
@testable import DynamicsCore
import DynamicsTestSupport
import DynamicsScenes

/// What keeps a settled pile at rest: the warm start carried across a change of feature ids and scaled across a
/// change of substep, and a rest test that judges motion by both the velocity a body ends the step with and the
/// step's move.
final class RestTests: XCTestCase {
    func point(_ x: Float, _ y: Float, id: UInt32, normalImpulse: Float, tangentImpulse: Float = 0) -> ManifoldPoint {
        var p = ManifoldPoint()
        p.point = Vec2(x, y); p.id = id; p.normalImpulse = normalImpulse; p.tangentImpulse = tangentImpulse
        return p
    }

    func manifold(_ normal: Vec2, _ points: [ManifoldPoint]) -> Manifold {
        var m = Manifold()
        m.normal = normal
        for (k, p) in points.enumerated() { m[k] = p }
        m.pointCount = points.count
        return m
    }

    /// The narrowphase's carry of last step's impulses to a new manifold: by id, then by place.
    func carry(from old: Manifold, to m: inout Manifold, within tolerance: Float) {
        let ids = World.carryImpulsesByID(from: old.points, count: old.pointCount, to: &m)
        if !ids.all { World.carryImpulsesByPlace(from: old, to: &m, after: ids, within: tolerance) }
    }

    /// A point keeps its impulses by id; a point whose id is new takes those of the old point where it is (the
    /// reference face changed sides, the points did not move), each old point once; nothing crosses a turned normal
    /// or a gap wider than the tolerance.
    func test_impulses_followTheFeatureId_elseThePointWhereItWas() {
        let up = Vec2(0, -1)
        let old = manifold(up, [point(0, 0, id: 0x0102, normalImpulse: 0.8, tangentImpulse: 0.1),
                                point(10, 0, id: 0x0103, normalImpulse: 0.3, tangentImpulse: -0.05)])
        // The same feature ids, listed the other way round.
        var same = manifold(up, [point(10, 0, id: 0x0103, normalImpulse: 0), point(0, 0, id: 0x0102, normalImpulse: 0)])
        carry(from: old, to: &same, within: 0.5)
        XCTAssertEqual([same.points.0.normalImpulse, same.points.1.normalImpulse], [0.3, 0.8])
        XCTAssertEqual([same.points.0.tangentImpulse, same.points.1.tangentImpulse], [-0.05, 0.1])
        // The other body's face is now the reference: new ids at the same places (within a tenth of a point).
        var flipped = manifold(up, [point(0.1, 0.02, id: 0x10200, normalImpulse: 0), point(9.95, 0, id: 0x10201, normalImpulse: 0)])
        carry(from: old, to: &flipped, within: 0.5)
        XCTAssertEqual([flipped.points.0.normalImpulse, flipped.points.1.normalImpulse], [0.8, 0.3])
        XCTAssertEqual(flipped.points.0.tangentImpulse, 0.1)
        // One point kept by id, the other new and near the other old point.
        var mixed = manifold(up, [point(0, 0, id: 0x0102, normalImpulse: 0), point(10.2, 0, id: 0x0999, normalImpulse: 0)])
        carry(from: old, to: &mixed, within: 0.5)
        XCTAssertEqual([mixed.points.0.normalImpulse, mixed.points.1.normalImpulse], [0.8, 0.3])
        // Two new points near the same old one: it goes to the nearer only.
        let single = manifold(up, [point(5, 0, id: 0x0102, normalImpulse: 0.6)])
        var two = manifold(up, [point(5.3, 0, id: 0x0201, normalImpulse: 0), point(5.1, 0, id: 0x0202, normalImpulse: 0)])
        carry(from: single, to: &two, within: 0.5)
        XCTAssertEqual([two.points.0.normalImpulse, two.points.1.normalImpulse], [0, 0.6])
        // Too far, or the normal turned by 10 degrees: a new contact, from no impulse.
        var far = manifold(up, [point(1, 0, id: 0x0999, normalImpulse: 0)])
        carry(from: old, to: &far, within: 0.5)
        XCTAssertEqual(far.points.0.normalImpulse, 0)
        let a: Float = 10 * .pi / 180
        var turned = manifold(Vec2(sin(a), -cos(a)), [point(0, 0, id: 0x0999, normalImpulse: 0)])
        carry(from: old, to: &turned, within: 0.5)
        XCTAssertEqual(turned.points.0.normalImpulse, 0)
    }

    /// A box resting on a floor: one step's rest test with its pose at the step's start and its velocity set by hand.
    func restedTime(velocity: Vec2, angularVelocity: Float, movedBy move: Vec2, turnedBy turn: Float,
                    slotsChanged: Bool = false) throws -> Float {
        let world = try floorWorld(y: 300, from: -100, to: 300)
        var d = BodyDefinition.box(center: Vec2(100, 295), width: 10, height: 10)
        d.gravity = Vec2(0, 1000); d.collisionClass = 1
        let id = try world.createBody(d)
        for _ in 0..<20 { try world.step(dt: 1.0 / 60, substeps: 4) }
        XCTAssertTrue(world.isAwake(id))
        let s = Int(world.bodies.slot[Int(id.index)])
        let rested = world.bodies.sleepTime[s]
        XCTAssertGreaterThan(rested, 0, "the box rests on the floor")
        world.integratePositions(h: 0, recordStart: true)   // keeps the poses, moves nothing
        world.bodies.position[s] += move
        world.bodies.rotation[s] = world.bodies.rotation[s].integrated(by: turn)
        world.bodies.velocity[s] = velocity
        world.bodies.angularVelocity[s] = angularVelocity
        if slotsChanged { world.bodies.slotVersion &+= 1 }   // as a body woken or put to sleep since would
        _ = world.restTest(dt: 1.0 / 60)
        return world.bodies.sleepTime[s] - rested
    }

    /// A body rests unless both the velocity it ends the step with and the step's move say it moves faster than 4x
    /// the thresholds (4 pt/s, 8 degrees/s).
    func test_restTest_needsTheVelocityAndTheMoveToAgree() throws {
        let dt: Float = 1.0 / 60
        // Jammed: a velocity it did not move by.
        XCTAssertEqual(try restedTime(velocity: Vec2(0, 30), angularVelocity: 0.7, movedBy: .zero, turnedBy: 0), dt, accuracy: 1e-6)
        // Rattling: a move back and forth within the step, ending at almost no velocity.
        XCTAssertEqual(try restedTime(velocity: Vec2(0.1, 0), angularVelocity: 0.01, movedBy: Vec2(0.2, 0), turnedBy: 0.012),
                       dt, accuracy: 1e-6)
        // Moving: both say so, by the linear speed or by the turn.
        XCTAssertLessThan(try restedTime(velocity: Vec2(0, 30), angularVelocity: 0, movedBy: Vec2(0, 0.5), turnedBy: 0), 0)
        XCTAssertLessThan(try restedTime(velocity: .zero, angularVelocity: 2, movedBy: .zero, turnedBy: 2 * dt), 0)
        // Slots swapped since the start poses were kept: they no longer match the bodies, and the velocity alone tells.
        XCTAssertLessThan(try restedTime(velocity: Vec2(0, 30), angularVelocity: 0.7, movedBy: .zero, turnedBy: 0, slotsChanged: true), 0)
        // Spinning a quarter turn a step or more, where the turn's sine no longer tells: the velocity does.
        XCTAssertLessThan(try restedTime(velocity: .zero, angularVelocity: 2 * .pi / dt, movedBy: .zero, turnedBy: 0), 0)
    }

    /// The fastest vertical speed of `ids` over `steps` steps of `dt` in `substeps`.
    func peakVerticalSpeed(_ world: World, _ ids: [BodyID], steps: Int, dt: Float, substeps: Int) throws -> Float {
        var peak: Float = 0
        for _ in 0..<steps {
            try world.step(dt: dt, substeps: substeps)
            for id in ids { peak = Swift.max(peak, abs(world.velocity(of: id).y)) }
        }
        return peak
    }

    /// A pile at rest and a hanging grid of rods stay at rest when the substep changes: the stored impulses are scaled
    /// to the new substep before they warm start it. (Unscaled, the longer substep's impulses throw a pyramid of 20
    /// rows to 4.6 pt/s at twice the substeps, and a 20 × 20 grid to 3.7 pt/s.)
    func test_aChangeOfSubstep_keepsAPileAndAGridAtRest() throws {
        var settings = WorldSettings()
        settings.sleepingEnabled = false
        for scene in [BenchmarkScene.pyramid(20), BenchmarkScene.jointGrid(20)] {
            for (dt, substeps) in [(Float(1) / 60, 8), (Float(1) / 120, 4)] {
                let world = try World(settings: settings)
                let (ids, _) = try world.build(scene)
                for _ in 0..<120 { try world.step(dt: 1.0 / 60, substeps: 4) }
                let steady = try peakVerticalSpeed(world, ids, steps: 3, dt: 1.0 / 60, substeps: 4)
                let changed = try peakVerticalSpeed(world, ids, steps: 3, dt: dt, substeps: substeps)
                XCTAssertLessThan(steady, 0.2, "\(ids.count) items")
                XCTAssertLessThan(changed, 0.2, "\(ids.count) items, \(substeps) substeps of \(dt) s")
            }
        }
    }

    /// A sleeping pile's impulses are scaled too: woken after the substep changed, it stays where it slept.
    func test_aPileWokenAfterTheSubstepChanged_staysAtRest() throws {
        let world = try World(settings: WorldSettings())
        let (ids, _) = try world.build(BenchmarkScene.pyramid(20))
        var steps = 0
        while world.awakeBodyCount > 0 && steps < 300 { try world.step(dt: 1.0 / 60, substeps: 4); steps += 1 }
        XCTAssertEqual(world.awakeBodyCount, 0, "the pyramid sleeps")
        try world.step(dt: 1.0 / 60, substeps: 8)
        try world.wake(ids[0])
        XCTAssertLessThan(try peakVerticalSpeed(world, ids, steps: 3, dt: 1.0 / 60, substeps: 8), 0.2)
    }

    /// The scaling holds at the extremes of the step's range: substeps of 1e-5 / 64 s and of 1 s, alternating, over a
    /// pile and a grid of rods (a ratio of 6.4 million either way), leave every body finite.
    func test_substepsAtTheExtremesOfTheRange_leaveEveryBodyFinite() throws {
        for scene in [BenchmarkScene.pyramid(20), BenchmarkScene.jointGrid(20)] {
            let world = try World(settings: WorldSettings())
            let (ids, _) = try world.build(scene)
            for _ in 0..<30 { try world.step(dt: 1.0 / 60, substeps: 4) }
            for k in 0..<6 {
                if k % 2 == 0 { try world.step(dt: 1e-5, substeps: 64) } else { try world.step(dt: 1, substeps: 1) }
                for id in ids {
                    let p = world.centerOfMass(of: id), v = world.velocity(of: id)
                    XCTAssertTrue(p.x.isFinite && p.y.isFinite && v.x.isFinite && v.y.isFinite, "\(id) after step \(k)")
                }
            }
        }
    }

    /// Islands that the joints alone make sleep each on its own, as soon as every member has rested for the window.
    /// In one world: a pair gliding along (made first, so its slots and its root come first), which stays awake; a
    /// pair one of whose bodies spins in place, its partner resting (so some body is ready every step from the
    /// window on, and the rest test asks the standing islands about their members island by island); a pair moved
    /// for the first 9 steps; and a chain of three kicked in the middle at the start and stopped at step 60. Each
    /// sleeps as many steps after it stops as a pair at rest alone does from the start, and so do the spinning and
    /// gliding pairs once stopped.
    func test_jointIslands_sleepEachWhenEveryMemberRests() throws {
        func bodies(_ world: World, at x: Float, count: Int = 2) throws -> [BodyID] {
            var ids: [BodyID] = []
            for k in 0..<count {
                let id = try world.createBody(.box(center: Vec2(x + 30 * Float(k), 0), width: 10, height: 10))
                try world.setGravity(id, .zero)
                try world.setMaterial(id, restitution: 0, friction: 0, linearDamping: 0, angularDamping: 0, charge: 0)
                ids.append(id)
            }
            for k in 1..<count {
                var j = JointDefinition(kind: .distance, bodyA: ids[k - 1], bodyB: ids[k])
                j.length = 30; j.minLength = 30; j.maxLength = 30
                try world.createJoint(j)
            }
            return ids
        }
        func asleep(_ world: World, _ ids: [BodyID]) -> Bool { ids.allSatisfy { !world.isAwake($0) } }
        let alone = try World()
        let restingAlone = try bodies(alone, at: 0)
        var window: Int?
        for step in 1...60 where window == nil {
            try alone.step(dt: 1.0 / 60, substeps: 4)
            if asleep(alone, restingAlone) { window = step }
        }
        let expected = try XCTUnwrap(window)

        let world = try World()
        let gliding = try bodies(world, at: -5000)
        let spinning = try bodies(world, at: -2500)
        let moved = try bodies(world, at: 0)
        let chain = try bodies(world, at: 5000, count: 3)
        for id in gliding { try world.setVelocity(id, Vec2(50, 0)) }
        try world.setAngularVelocity(spinning[1], 3)
        var asleepAt: [String: Int] = [:]
        func note(_ name: String, _ ids: [BodyID], _ step: Int) {
            if asleepAt[name] == nil, asleep(world, ids) { asleepAt[name] = step }
        }
        for step in 1...200 {
            if step == 1 { for id in moved { try world.setVelocity(id, Vec2(0, 40)) } }
            if step == 10 { for id in moved { try world.setVelocity(id, .zero) } }
            if step == 1 { try world.setVelocity(chain[1], Vec2(0, 40)) }
            if step == 60 { for id in chain { try world.setVelocity(id, .zero); try world.setAngularVelocity(id, 0) } }
            if step == 120 { try world.setAngularVelocity(spinning[1], 0) }
            if step == 140 { for id in gliding { try world.setVelocity(id, .zero) } }
            try world.step(dt: 1.0 / 60, substeps: 4)
            note("moved", moved, step); note("chain", chain, step)
            note("spinning", spinning, step); note("gliding", gliding, step)
            if step < 120 { XCTAssertFalse(asleep(world, spinning), "the spinning pair slept at step \(step)") }
            if step < 140 { XCTAssertFalse(asleep(world, gliding), "the gliding pair slept at step \(step)") }
        }
        XCTAssertEqual(asleepAt["moved"], 9 + expected)
        XCTAssertEqual(asleepAt["chain"], 59 + expected)
        XCTAssertEqual(asleepAt["spinning"], 119 + expected)
        XCTAssertEqual(asleepAt["gliding"], 139 + expected)
    }
}
