import XCTest
@testable import DynamicsCore
import DynamicsScenes
import DynamicsSIMD

/// Rigid distance joints solved four at a time from a coloring of the joint graph (WideJoints.swift).
final class WideJointTests: XCTestCase {
    func grid(wide: Bool, steps: Int) throws -> (World, SceneStatistics) {
        let world = World()
        if !wide { world.rodSolver.minimum = .max }
        let scene = BenchmarkScene.jointGrid(12)
        let (items, links) = try world.build(scene)
        for _ in 0..<steps { try world.step(dt: 1.0 / 60, substeps: 4) }
        return (world, world.statistics(of: scene, items: items, links: links))
    }

    /// Every rod is in exactly one lane, and no two lanes of a batch touch the same awake body (the condition for
    /// solving them side by side).
    func test_coloring_putsEveryRodOnceAndNoSharedBodyInABatch() throws {
        let (world, _) = try grid(wide: true, steps: 1)
        let rods = 12 + 2 * 12 * 11
        XCTAssertTrue(world.rodSolver.scalarJoints.isEmpty, "every link of the grid is a rigid rod")
        XCTAssertTrue(world.rodSolver.batches.isEmpty, "the grid's links join item centers: every batch is a center batch")
        var seen = Set<Int32>()
        let lanes = world.rodSolver.centerBatches.map { ($0.joint, $0.entryA, $0.entryB) } + world.rodSolver.batches.map { ($0.joint, $0.entryA, $0.entryB) }
        for (joint, entryA, entryB) in lanes {
            var bodies = Set<Int32>()
            for l in 0..<4 where joint[l] >= 0 {
                XCTAssertTrue(seen.insert(joint[l]).inserted, "joint \(joint[l]) in two lanes")
                for e in [entryA[l], entryB[l]] where Int(e) < world.rodSolver.bodies.count {
                    XCTAssertTrue(bodies.insert(e).inserted, "two lanes of one batch share body entry \(e)")
                }
            }
        }
        XCTAssertEqual(seen.count, rods)
    }

    /// A hanging net whose links join points off the item centers (so the rods turn their items): the general
    /// wide batches, against the scalar path.
    func offCenterNet(wide: Bool, steps: Int) throws -> (maxError: Float, bottomY: Float, centerBatches: Int, batches: Int) {
        let world = World()
        if !wide { world.rodSolver.minimum = .max }
        let side = 8
        var ids: [[BodyID]] = []
        for r in 0..<side {
            var row: [BodyID] = []
            for c in 0..<side {
                var d = BodyDefinition.box(center: Vec2(Float(100 + 20 * c), Float(100 + 20 * r)), width: 8, height: 8)
                d.gravity = Vec2(0, 1000)
                row.append(try world.createBody(d))
            }
            ids.append(row)
        }
        var links: [(BodyID, BodyID?, Vec2, Vec2)] = []
        for c in 0..<side { links.append((ids[0][c], nil, Vec2(0, -4), Vec2(Float(100 + 20 * c), 86))) }
        for r in 0..<side {
            for c in 0..<side {
                if c + 1 < side { links.append((ids[r][c], ids[r][c + 1], Vec2(4, 0), Vec2(-4, 0))) }
                if r + 1 < side { links.append((ids[r][c], ids[r + 1][c], Vec2(0, 4), Vec2(0, -4))) }
            }
        }
        var joints: [JointID] = []
        for (a, b, la, lb) in links {
            var j = JointDefinition(kind: .distance, bodyA: a, bodyB: b)
            j.localAnchorA = la; j.localAnchorB = lb
            j.length = 12; j.minLength = 12; j.maxLength = 12
            joints.append(try world.createJoint(j))
        }
        for _ in 0..<steps { try world.step(dt: 1.0 / 60, substeps: 4) }
        var maxError: Float = 0
        for j in joints {
            let (a, b) = world.jointAnchors(j)
            maxError = max(maxError, abs(length(b - a) - 12))
        }
        return (maxError, world.origin(of: ids[side - 1][0]).y, world.rodSolver.centerBatches.count, world.rodSolver.batches.count)
    }

    func test_offCenterRods_useTheGeneralBatches_andHoldLikeTheScalarPath() throws {
        let scalar = try offCenterNet(wide: false, steps: 120)
        let wide = try offCenterNet(wide: true, steps: 120)
        XCTAssertEqual(wide.centerBatches, 0)
        XCTAssertGreaterThan(wide.batches, 0, "the general wide path ran")
        XCTAssertLessThan(wide.maxError, 0.5)
        XCTAssertEqual(wide.maxError, scalar.maxError, accuracy: 0.05)
        XCTAssertEqual(wide.bottomY, scalar.bottomY, accuracy: 0.5)
    }

    /// A pendulum hung from a static body (asleep by then) wakes and follows that body when it is moved by hand (the
    /// joint records cache the static side's pose, and are brought up to date only when something changed), on the
    /// wide and scalar paths.
    func test_rodToAStaticBody_followsItWhenMovedByHand() throws {
        for wide in [true, false] {
            let world = World()
            world.rodSolver.minimum = wide ? 1 : .max
            var post = BodyDefinition.box(center: Vec2(100, 100), width: 10, height: 10)
            post.type = .static
            let anchor = try world.createBody(post)
            var bob = BodyDefinition.box(center: Vec2(100, 150), width: 10, height: 10)
            bob.gravity = Vec2(0, 1000)
            let b = try world.createBody(bob)
            var j = JointDefinition(kind: .distance, bodyA: b, bodyB: anchor)
            j.length = 50; j.minLength = 50; j.maxLength = 50
            try world.createJoint(j)
            for _ in 0..<30 { try world.step(dt: 1.0 / 60, substeps: 4) }
            XCTAssertEqual(length(world.origin(of: b) - Vec2(100, 100)), 50, accuracy: 0.5)
            try world.setTransform(anchor, origin: Vec2(300, 100), angle: 0)
            XCTAssertTrue(world.isAwake(b), "moving a static body wakes what hangs from it")
            for _ in 0..<120 { try world.step(dt: 1.0 / 60, substeps: 4) }
            XCTAssertEqual(length(world.origin(of: b) - Vec2(300, 100)), 50, accuracy: 0.5, wide ? "wide" : "scalar")
            XCTAssertEqual(wide, !world.rodSolver.centerBatches.isEmpty)
        }
    }

    /// The batches are kept from step to step while nothing they were built from changes; keeping them gives the
    /// same bits as rebuilding them every step. Editing a joint rebuilds them.
    func test_keptRodBatches_matchRebuildingThemEveryStep() throws {
        func run(rebuild: Bool) throws -> (World, [BodyID], [JointID]) {
            let world = World()
            let (items, links) = try world.build(BenchmarkScene.jointGrid(12))
            for _ in 0..<60 {
                if rebuild { world.rodSolver.layoutDirty = true }
                try world.step(dt: 1.0 / 60, substeps: 4)
            }
            return (world, items, links)
        }
        let (kept, items, links) = try run(rebuild: false)
        let (rebuilt, _, _) = try run(rebuild: true)
        for id in items {
            XCTAssertEqual(kept.origin(of: id).x.bitPattern, rebuilt.origin(of: id).x.bitPattern)
            XCTAssertEqual(kept.origin(of: id).y.bitPattern, rebuilt.origin(of: id).y.bitPattern)
        }
        // An edit reaches the batches: a longer link is longer after a few steps.
        let j = links[links.count / 2]
        try kept.setJointParameters(j, length: 30, minLength: 30, maxLength: 30, hertz: 0, dampingRatio: 0, maxFrictionTorque: 0)
        for _ in 0..<30 { try kept.step(dt: 1.0 / 60, substeps: 4) }
        let (a, b) = kept.jointAnchors(j)
        XCTAssertEqual(length(b - a), 30, accuracy: 1)
    }

    /// Where rods are all there is to solve and gravity all that changes the velocities, the warm start's copy of
    /// the velocities into the packed state integrates them on the way on the workers (no pass of its own), the
    /// relax pass's copy-out does so for the next substep, and the solve pass's copy-out moves the bodies (on one
    /// thread too): the same bits as the velocity and position passes; with a damped item the velocity pass runs as
    /// before.
    func test_velocityIntegrationInTheRodsCopy_matchesTheVelocityPass() throws {
        /// The world after 60 steps, its items, and the steps that found items awake.
        func run(fused: Bool, workers: Int = 1, damped: Bool = false) throws -> (World, [BodyID], awake: Int) {
            let world = World()
            try world.setWorkerCount(workers)
            world.workers.handOutEveryPass(from: 64)
            world.rodSolver.kickInCopy = fused
            world.rodSolver.moveInCopy = fused
            let (items, _) = try world.build(BenchmarkScene.jointGrid(12))
            if damped { try world.setMaterial(items[5], restitution: 0, friction: 0, linearDamping: 0.5, angularDamping: 0, charge: 0) }
            var awake = 0
            for _ in 0..<60 {
                if world.awakeBodyCount > 0 { awake += 1 }
                try world.step(dt: 1.0 / 60, substeps: 4)
            }
            return (world, items, awake)
        }
        let (pass, items, _) = try run(fused: false)
        XCTAssertEqual(pass.rodSolver.kickedSteps, 0)
        XCTAssertEqual(pass.rodSolver.movedSteps, 0)
        let (one, _, oneAwake) = try run(fused: true)
        XCTAssertEqual(one.rodSolver.kickedSteps, 0, "one thread keeps the velocity pass")
        XCTAssertEqual(one.rodSolver.movedSteps, oneAwake, "one thread moves the bodies in the copy-out")
        XCTAssertEqual(one.stateHash(), pass.stateHash(), "one thread")
        for workers in [2, 3] {
            let (fused, _, awake) = try run(fused: true, workers: workers)
            // Every step on the workers takes it (the first 8 at least: the trials of one thread come later).
            XCTAssertGreaterThan(awake, 30)
            XCTAssertGreaterThanOrEqual(fused.rodSolver.kickedSteps, 8, "\(workers) workers: the steps on the workers take the integration into the copy")
            XCTAssertEqual(fused.rodSolver.movedSteps, awake)
            XCTAssertEqual(fused.stateHash(), pass.stateHash(), "\(workers) workers")
            for id in items.prefix(20) {
                XCTAssertEqual(fused.velocity(of: id).x.bitPattern, pass.velocity(of: id).x.bitPattern)
                XCTAssertEqual(fused.velocity(of: id).y.bitPattern, pass.velocity(of: id).y.bitPattern)
            }
        }
        let (damped, _, _) = try run(fused: true, workers: 2, damped: true)
        XCTAssertEqual(damped.rodSolver.kickedSteps, 0, "a damped item keeps the velocity pass")
    }

    /// The rods' impulses stay in their batches between steps; a joint record gets its impulse when the batches are
    /// rebuilt, or when the joint is destroyed, so a new joint taking its record starts from no impulse.
    func test_rodImpulses_reachTheRecordsBeforeARecordIsReused() throws {
        let world = World()
        let (items, links) = try world.build(BenchmarkScene.jointGrid(12))
        for _ in 0..<30 { try world.step(dt: 1.0 / 60, substeps: 4) }
        XCTAssertTrue(world.rodSolver.impulsesPending, "the batches hold the newest impulses")
        let j = links[links.count / 2]
        var batchImpulse: Float?
        for b in world.rodSolver.centerBatches { for l in 0..<4 where b.joint[l] == j.index { batchImpulse = b.impulse[l] } }
        for b in world.rodSolver.batches { for l in 0..<4 where b.joint[l] == j.index { batchImpulse = b.impulse[l] } }
        let impulse = try XCTUnwrap(batchImpulse, "the link is a wide rod")
        XCTAssertNotEqual(impulse, 0, "the hanging grid pulls on it")
        try world.destroyJoint(j)
        XCTAssertFalse(world.rodSolver.impulsesPending)
        XCTAssertEqual(world.jointStore.records[Int(j.index)].axialImpulse.bitPattern, impulse.bitPattern)
        // A new joint takes the freed record and starts from rest; stepping again does not hand it the old impulse.
        var def = JointDefinition(kind: .distance, bodyA: items[0], bodyB: items[items.count - 1])
        def.length = 5; def.minLength = 5; def.maxLength = 5
        let fresh = try world.createJoint(def)
        XCTAssertEqual(fresh.index, j.index, "the record is reused")
        XCTAssertEqual(world.jointStore.records[Int(fresh.index)].axialImpulse, 0)
    }

    /// The wide path holds the grid as the scalar path does (only the order of the joints within a pass differs),
    /// and gives the same result on every run.
    func test_wideRods_holdTheGridLikeTheScalarPath_deterministically() throws {
        let (_, scalar) = try grid(wide: false, steps: 120)
        let (wideWorld, wide) = try grid(wide: true, steps: 120)
        XCTAssertFalse(wideWorld.rodSolver.centerBatches.isEmpty, "the wide path ran")
        XCTAssertLessThan(wide.maxLinkError, 0.5)
        XCTAssertEqual(wide.maxLinkError, scalar.maxLinkError, accuracy: 0.02)
        XCTAssertEqual(wide.sag, scalar.sag, accuracy: 0.02 * abs(scalar.sag) + 0.02)
        let (_, again) = try grid(wide: true, steps: 120)
        XCTAssertEqual(wide.sag.bitPattern, again.sag.bitPattern)
        XCTAssertEqual(wide.maxLinkError.bitPattern, again.maxLinkError.bitPattern)
    }
}
