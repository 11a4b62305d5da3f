import XCTest
@testable import DynamicsCore
import DynamicsScenes
import DynamicsSIMD

final class IntegrationPathTests: XCTestCase {
    enum Path { case substepLoop, fusedUnconstrained, freeMotion }

    /// field_swarm(400) with gravity, damping, spin, torque and force varying per body, under one field of each
    /// kind the free-motion pass takes (smooth ones, so rounding differences do not grow chaotically), stepped 120
    /// times through one of the three integration paths: a joint between two other bodies forces the substep loop; a collision
    /// class on two far-away bodies keeps the free-motion pass off (something could collide) but leaves every
    /// swarm body unconstrained.
    ///
    /// `central` replaces the fields by radial gravity and vortices about one point with every falloff (0, 1, 2, −1)
    /// which the free-motion pass evaluates in its combined central form, on 402 bodies (a partial last group).
    /// `plain` leaves out gravity, damping, forces and torques (only the spin stays): the free-motion kernel for
    /// that case shares one set of integration terms among all bodies.
    ///
    /// `lateTerms` gives body 0 alone damping, a force and a torque after 30 steps (with `plain`, the first of
    /// each in the world: their columns come into being mid-run).
    func swarm(_ path: Path, central: Bool = false, plain: Bool = false, lateTerms: Bool = false) throws -> [Float] {
        // Bodies do not sleep here: the joint of the substep-loop world must stay awake.
        var settings = WorldSettings()
        settings.sleepingEnabled = false
        let world = try World(settings: settings)
        let (ids, _) = try world.build(.fieldSwarm(central ? 402 : 400))
        for (k, id) in ids.enumerated() {
            try world.setAngularVelocity(id, Float(k % 5) - 2)
            if plain { continue }
            try world.setGravity(id, Vec2(Float(k % 7) * 10, 1000))
            try world.setMaterial(id, restitution: 0, friction: 0, linearDamping: 0.3, angularDamping: 0.2, charge: 0)
            try world.setConstantForce(id, force: Vec2(1, -2), torqueA: 0.01 * Float(k % 3), torqueB: 0.02)
        }
        func field(_ kind: FieldKind, _ strength: Float, falloff: Float, at p: Vec2) -> FieldDefinition {
            var f = FieldDefinition(kind: kind)
            f.strength = strength; f.falloff = falloff; f.position = p; f.minimumRadius = 50
            f.direction = Vec2(0.3, -0.2)
            return f
        }
        let center = Vec2(1000, 1000), far = Vec2(6000, 6000)
        let all = central
            // About a point 5000 pt beyond the swarm, each pulling or turning with some hundreds of pt/s²: no
            // body comes near the center, where the direction flips and rounding differences would grow.
            ? [(field(.radialGravity, 2, falloff: 0, at: far), ids),
               (field(.vortex, -100, falloff: 1, at: far), ids),
               (field(.radialGravity, 40_000, falloff: 2, at: far), ids),
               (field(.vortex, -0.05, falloff: -1, at: far), ids),
               (field(.radialGravity, 0.02, falloff: -1, at: far), ids)]
            // (A spring with falloff 0, about a far point so that its direction is smooth: a linear spring, falloff
            // −1, is integrated exactly per substep instead, `FieldMotion`, and keeps the step off the free-motion
            // pass.)
            : [(field(.spring, 0.05, falloff: 0, at: Vec2(-6000, 3000)), ids),
               (field(.vortex, -0.1, falloff: -1, at: center), ids),
               (field(.linearGravity, 1, falloff: 1, at: Vec2(-3000, 0)), ids),
               (field(.radialGravity, 40, falloff: 2, at: Vec2(6000, 6000)), ids)]
        try world.setFields(all)
        switch path {
        case .substepLoop:
            let a = try world.createBody(.box(center: Vec2(-5000, 0), width: 5, height: 5))
            let b = try world.createBody(.box(center: Vec2(-5000, 20), width: 5, height: 5))
            var j = JointDefinition(kind: .distance, bodyA: a, bodyB: b)
            j.length = 20; j.minLength = 20; j.maxLength = 20
            try world.createJoint(j)
        case .fusedUnconstrained:
            world.setCollisionMatrix(classCount: 2) { a, b in a == 1 && b == 1 }
            for x: Float in [-9000, 9000] {
                var d = BodyDefinition.box(center: Vec2(x, 0), width: 5, height: 5)
                d.collisionClass = 1
                _ = try world.createBody(d)
            }
        case .freeMotion:
            break
        }
        for step in 0..<120 {
            if lateTerms && step == 30 {
                try world.setMaterial(ids[0], restitution: 0, friction: 0, linearDamping: 0.3, angularDamping: 0.2, charge: 0)
                try world.setConstantForce(ids[0], force: Vec2(1, -2), torqueA: 0.01, torqueB: 0.02)
            }
            try world.step(dt: 1.0 / 60, substeps: 4)
        }
        if path == .freeMotion {
            switch world.freeMotion.program {
            case .central(let mask): XCTAssertTrue(central && mask == 15, "central form with falloffs \(mask)")
            case .general: XCTAssertFalse(central, "the general loop ran instead of the central form")
            case .none: XCTFail("no fields compiled")
            }
        }
        return ids.flatMap { id -> [Float] in
            let p = world.origin(of: id), v = world.velocity(of: id), q = world.rotation(of: id)
            return [p.x, p.y, v.x, v.y, q.c, q.s]
        }
    }

    /// Damping, force and torque columns exist only once some body has one (`LazyColumn`). When the first body
    /// gets them mid-run, every other body moves exactly as in a world where none ever did, on each of the three
    /// integration paths; the body itself moves differently.
    func test_termColumnsAppearingMidRun_leaveTheOtherBodiesBitForBit() throws {
        for path in [Path.substepLoop, .fusedUnconstrained, .freeMotion] {
            let never = try swarm(path, plain: true), late = try swarm(path, plain: true, lateTerms: true)
            XCTAssertEqual(never.count, late.count)
            XCTAssertTrue(never.dropFirst(6).map(\.bitPattern) == late.dropFirst(6).map(\.bitPattern), "\(path)")
            XCTAssertNotEqual(Array(never.prefix(6)), Array(late.prefix(6)), "\(path): body 0 was pushed and damped")
        }
        let world = World()
        let a = try world.createBody(.box(center: .zero, width: 10, height: 10))
        var plain = BodyDefinition.box(center: Vec2(100, 0), width: 10, height: 10)
        plain.linearDamping = 0; plain.angularDamping = 0
        let b = try world.createBody(plain)
        XCTAssertTrue(world.bodies.linearDampingFactor.isPresent, "the default damping of 0.1 is in use")
        XCTAssertFalse(world.bodies.force.isPresent || world.bodies.torqueA.isPresent)
        try world.setConstantForce(b, force: .zero, torqueA: 0, torqueB: 0)
        XCTAssertFalse(world.bodies.force.isPresent || world.bodies.torqueA.isPresent, "zero needs no column")
        try world.setConstantForce(a, force: Vec2(0, 5), torqueA: 0, torqueB: 0)
        XCTAssertTrue(world.bodies.force.isPresent)
        XCTAssertFalse(world.bodies.torqueA.isPresent)
        let bare = World()
        _ = try bare.createBody(plain)
        XCTAssertFalse(bare.bodies.linearDampingFactor.isPresent || bare.bodies.angularDampingFactor.isPresent)
    }

    /// Centers of mass and charges are stored only once some body's is not zero; until then, and for the other
    /// bodies after, they read as zero, and a body with an offset center keeps its origin where it was put.
    func test_centerAndChargeColumns_appearWhenFirstNeeded() throws {
        let world = World()
        let plain = try (0..<3).map { k in try world.createBody(.box(center: Vec2(Float(40 * k), 0), width: 10, height: 10)) }
        XCTAssertTrue(world.bodies.localCenter.isEmpty && world.bodies.charge.isEmpty)
        var offset = BodyDefinition()
        offset.position = Vec2(200, 50)
        offset.shapes = [ShapeDefinition.box(width: 10, height: 10, center: Vec2(6, 0))]
        offset.charge = 2
        let lopsided = try world.createBody(offset)
        XCTAssertFalse(world.bodies.localCenter.isEmpty || world.bodies.charge.isEmpty)
        XCTAssertEqual(world.localCenter(of: lopsided), Vec2(6, 0))
        XCTAssertEqual(world.origin(of: lopsided), Vec2(200, 50))
        XCTAssertEqual(world.charge(of: lopsided), 2)
        for id in plain {
            XCTAssertEqual(world.localCenter(of: id), .zero)
            XCTAssertEqual(world.charge(of: id), 0)
        }
        try world.setMaterial(plain[1], restitution: 0, friction: 0, linearDamping: 0, angularDamping: 0, charge: -1)
        XCTAssertEqual(world.charge(of: plain[1]), -1)
        XCTAssertEqual(world.charge(of: plain[2]), 0)
        let later = try world.createBody(.box(center: Vec2(0, 100), width: 10, height: 10))
        XCTAssertEqual(world.localCenter(of: later), .zero)
        XCTAssertEqual(world.charge(of: later), 0)
        world.withBodyStates { states in
            for k in 0..<states.count where states.id(at: k) == lopsided { XCTAssertEqual(states.origin(at: k), Vec2(200, 50)) }
        }
    }

    /// Bodies with the same restitution and friction share one material entry; an entry no body holds any more
    /// is reused, and each body reads back its own values throughout.
    func test_surfaceMaterials_areSharedCountedAndReused() throws {
        let world = World()
        func body(_ r: Float, _ f: Float, at x: Float) throws -> BodyID {
            var d = BodyDefinition.box(center: Vec2(x, 0), width: 10, height: 10)
            d.restitution = r; d.friction = f
            return try world.createBody(d)
        }
        let a = try body(0.2, 0.5, at: 0), b = try body(0.2, 0.5, at: 20), c = try body(0.7, 0.1, at: 40)
        XCTAssertEqual(world.bodies.materials.count, 2)
        XCTAssertEqual(world.bodies.material[Int(a.index)], world.bodies.material[Int(b.index)])
        try world.setMaterial(b, restitution: 0.7, friction: 0.1, linearDamping: 0, angularDamping: 0, charge: 0)
        XCTAssertEqual(world.bodies.material[Int(b.index)], world.bodies.material[Int(c.index)])
        try world.destroyBody(a)
        XCTAssertEqual(world.bodies.freeMaterials.count, 1, "(0.2, 0.5) is held by no body")
        let d = try body(0.9, 0.9, at: 60)
        XCTAssertEqual(world.bodies.materials.count, 2, "the freed entry is reused")
        XCTAssertTrue(world.bodies.freeMaterials.isEmpty)
        for (id, r, f) in [(b, Float(0.7), Float(0.1)), (c, 0.7, 0.1), (d, 0.9, 0.9)] {
            XCTAssertEqual(world.bodies.restitution(Int(id.index)), r)
            XCTAssertEqual(world.bodies.friction(Int(id.index)), f)
        }
        try world.destroyBody(b); try world.destroyBody(c); try world.destroyBody(d)
        XCTAssertEqual(world.bodies.freeMaterials.count, 2)
        XCTAssertTrue(world.bodies.materialIndex.isEmpty)
    }

    /// Steps with no contacts or joints integrate all substeps in one fused pass; it must give exactly what the
    /// substep loop gives.
    func test_fusedIntegration_isBitIdenticalToTheSubstepLoop() throws {
        let loop = try swarm(.substepLoop), fused = try swarm(.fusedUnconstrained)
        XCTAssertTrue(loop.map(\.bitPattern) == fused.map(\.bitPattern))
    }

    /// The free-motion pass integrates the substeps in closed form: the same algebra, so it agrees with the loop
    /// to rounding (1e-5 of each quantity's range after 2 s under fields, gravity, forces, damping and spin).
    func test_freeMotionPass_agreesWithTheSubstepLoop() throws {
        try assertAgreement(try swarm(.substepLoop), try swarm(.freeMotion))
    }

    /// The same for the combined central form (radial gravity and vortices about one point, every falloff).
    func test_freeMotionPass_centralForm_agreesWithTheSubstepLoop() throws {
        try assertAgreement(try swarm(.substepLoop, central: true), try swarm(.freeMotion, central: true))
    }

    /// And for the central form without gravity, damping, forces or torques (the field swarm's own kernel).
    func test_freeMotionPass_centralFormWithoutGravityOrDamping_agreesWithTheSubstepLoop() throws {
        try assertAgreement(try swarm(.substepLoop, central: true, plain: true),
                            try swarm(.freeMotion, central: true, plain: true))
    }

    func assertAgreement(_ loop: [Float], _ free: [Float], file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(loop.count, free.count, file: file, line: line)
        // Per quantity (x, y, vx, vy, cos, sin): the largest magnitude anywhere sets the scale of the error.
        var range = [Float](repeating: 1, count: 6), worst = [Float](repeating: 0, count: 6)
        for (k, a) in loop.enumerated() { range[k % 6] = Swift.max(range[k % 6], abs(a)) }
        for (k, (a, b)) in zip(loop, free).enumerated() {
            XCTAssertTrue(b.isFinite, file: file, line: line)
            worst[k % 6] = Swift.max(worst[k % 6], abs(a - b) / range[k % 6])
        }
        XCTAssertLessThan(worst.max()!, 1e-5, "relative errors per quantity: \(worst)", file: file, line: line)
        XCTAssertNotEqual(loop.map(\.bitPattern), free.map(\.bitPattern), "the free-motion pass did not run",
                          file: file, line: line)
    }

    /// A swarm whose size is not a multiple of four: the last partial group of the free-motion pass must not touch
    /// the sleeping or static bodies stored after the awake range.
    func test_freeMotionPass_leavesBodiesAfterTheAwakeRangeAlone() throws {
        let world = World()
        let (ids, _) = try world.build(.fieldSwarm(10))
        var still: [BodyID] = []
        for k in 0..<3 {
            var d = BodyDefinition.box(center: Vec2(Float(k) * 50, -500), width: 4, height: 4)
            d.type = .static
            still.append(try world.createBody(d))
        }
        let before = still.map { world.origin(of: $0) }
        for _ in 0..<60 { try world.step(dt: 1.0 / 60, substeps: 4) }
        XCTAssertEqual(still.map { world.origin(of: $0) }, before)
        XCTAssertTrue(ids.allSatisfy { world.origin(of: $0).x.isFinite && world.isAwake($0) })
        XCTAssertNotEqual(world.origin(of: ids[9]), Vec2(190, 190))
    }
}

/// The free-motion kernel runs at 16 lanes on processors with AVX-512, 8 with AVX2 and 4 elsewhere
/// (DynamicsFreeMotion.h). All must give the same bits, or a replay would depend on the processor it runs on.
extension IntegrationPathTests {
    func atWidth<T>(_ lanes: Int, _ run: () throws -> T) rethrows -> T {
        dk_limit_vector_width(Int32(lanes))
        defer { dk_limit_vector_width(0) }
        XCTAssertEqual(World.vectorLanes, lanes)
        return try run()
    }

    /// The wider kernels this processor runs.
    func wideWidths() throws -> [Int] {
        let widths = [8, 16].filter { $0 <= World.vectorLanes }
        try XCTSkipIf(widths.isEmpty, "this processor has no AVX2: only the 4-lane kernel runs here")
        return widths
    }

    func test_vectorLaneLimit_refusesAWidthThatDoesNotExist() {
        XCTAssertThrowsError(try World.limitVectorLanes(to: 5)) { error in
            XCTAssertEqual("\(error)", "vector lanes must be 4, 8 or 16, got 5")
        }
        XCTAssertNoThrow(try World.limitVectorLanes(to: 4))
        XCTAssertEqual(World.vectorLanes, 4)
        XCTAssertNoThrow(try World.limitVectorLanes(to: nil))
        XCTAssertGreaterThanOrEqual(World.vectorLanes, 4)
    }

    /// Every program (general fields, the central form, with and without per-body terms), on 400 and 402 bodies.
    func test_freeMotionPass_widerKernelsMatchFourLanesBitForBit() throws {
        let widths = try wideWidths()
        for (central, plain) in [(false, false), (true, false), (true, true)] {
            let four = try atWidth(4) { try swarm(.freeMotion, central: central, plain: plain) }
            for lanes in widths {
                let wide = try atWidth(lanes) { try swarm(.freeMotion, central: central, plain: plain) }
                XCTAssertEqual(four.count, wide.count)
                XCTAssertTrue(four.map(\.bitPattern) == wide.map(\.bitPattern),
                              "central \(central), plain \(plain): \(lanes) lanes disagree with 4")
            }
        }
    }

    /// Bodies slowing down under damping until they sleep: the rest test's slow path (anchors, rest times, the
    /// window crossings), spin through the callback, and a partial last group of 4, step by step.
    func test_freeMotionPass_widerKernelsMatchFourLanesThroughTheRestTest() throws {
        let widths = try wideWidths()
        func settle() throws -> [[UInt32]] {
            let world = World()
            let (ids, _) = try world.build(.fieldSwarm(203))
            try world.setFields([])
            for (k, id) in ids.enumerated() {
                try world.setVelocity(id, Vec2(Float(k % 7) - 3, Float(k % 5) - 2) * Float(k % 9))
                try world.setAngularVelocity(id, k % 4 == 0 ? 0.4 : 0)
                try world.setMaterial(id, restitution: 0, friction: 0, linearDamping: 2, angularDamping: 3, charge: 0)
            }
            var trace: [[UInt32]] = []
            for step in 0..<240 {
                try world.step(dt: 1.0 / 60, substeps: 4)
                if step % 20 == 19 {
                    trace.append(ids.flatMap { id -> [UInt32] in
                        let p = world.origin(of: id), q = world.rotation(of: id)
                        return [p.x.bitPattern, p.y.bitPattern, q.s.bitPattern, world.isAwake(id) ? 1 : 0]
                    })
                }
            }
            XCTAssertTrue(ids.allSatisfy { !world.isAwake($0) }, "the swarm did not come to rest")
            XCTAssertTrue(world.prepareFreeMotion(), "the free-motion pass did not run")
            return trace
        }
        let four = try atWidth(4, settle)
        for lanes in widths {
            let wide = try atWidth(lanes, settle)
            XCTAssertEqual(four.count, wide.count)
            for (k, (a, b)) in zip(four, wide).enumerated() {
                XCTAssertTrue(a == b, "\(lanes) lanes disagree with 4 by step \(20 * k + 19)")
            }
        }
    }

    /// The speed limits test four bodies at a time and bound each one over a limit body by body: seventeen free
    /// bodies (four groups of four and one left over) at speeds over, at and under the limits, each one over a
    /// limit alone in its group, end the step at the speeds the scalar rule gives, and the others keep theirs to
    /// the bit. A joint between two more bodies keeps the step on the substep loop, where the limits apply.
    func test_speedLimits_boundEachBodyOverALimitInAnyPlaceOfItsGroup() throws {
        var settings = WorldSettings()
        settings.sleepingEnabled = false
        settings.maximumLinearSpeed = 500
        settings.maximumAngularSpeed = 20
        let world = try World(settings: settings)
        // Linear and angular velocity per body. Over a limit: the linear at 1, the angular turning one way at 6 and
        // the other at 15, both at 16 (the one left over). At a limit, not over it: 5 (angular), 8 and 10 (linear).
        let velocities: [(Vec2, Float)] = [
            (Vec2(10, 20), 1), (Vec2(400, 400), 2), (Vec2(-3, 4), -5), (Vec2(0, 0), 0),
            (Vec2(7, 7), 1), (Vec2(499, 0), 20), (Vec2(1, 1), -30), (Vec2(2, -2), -2),
            (Vec2(300, -400), 19), (Vec2(-100, 100), 3), (Vec2(0, -500), -20), (Vec2(0, 450), -19.5),
            (Vec2(5, 5), 0.5), (Vec2(-8, 1), 4), (Vec2(30, 40), -1), (Vec2(6, 0), 25),
            (Vec2(0, -2000), 1e4),
        ]
        var ids: [BodyID] = []
        for (k, (v, w)) in velocities.enumerated() {
            let id = try world.createBody(.box(center: Vec2(Float(k) * 1000, 0), width: 5, height: 5))
            try world.setGravity(id, .zero)
            try world.setMaterial(id, restitution: 0, friction: 0, linearDamping: 0, angularDamping: 0, charge: 0)
            try world.setVelocity(id, v)
            try world.setAngularVelocity(id, w)
            ids.append(id)
        }
        let a = try world.createBody(.box(center: Vec2(-5000, 0), width: 5, height: 5))
        let b = try world.createBody(.box(center: Vec2(-5000, 20), width: 5, height: 5))
        var j = JointDefinition(kind: .distance, bodyA: a, bodyB: b)
        j.length = 20; j.minLength = 20; j.maxLength = 20
        try world.createJoint(j)
        try world.step(dt: 1.0 / 60, substeps: 4)
        let m: Float = 500, wMax: Float = 20
        for (k, (v, w)) in velocities.enumerated() {
            let l2 = v.x * v.x + v.y * v.y
            let expected = l2 > m * m ? (m / l2.squareRoot()) * v : v
            let expectedSpin = Swift.abs(w) > wMax ? (w > 0 ? wMax : -wMax) : w
            XCTAssertEqual(world.velocity(of: ids[k]), expected, "body \(k)'s velocity")
            XCTAssertEqual(world.angularVelocity(of: ids[k]), expectedSpin, "body \(k)'s angular velocity")
        }
    }
}
