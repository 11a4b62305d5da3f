import XCTest
@testable import DynamicsCore
import DynamicsScenes
import DynamicsSIMD

/// Seeded property tests: each runs over several seeds so a failure names its seed.
final class PropertyTests: XCTestCase {
    struct Rng { var s: UInt64; mutating func unit() -> Float { s = s &* 6364136223846793005 &+ 1442695040888963407; return Float(s >> 40) / Float(1 << 24) } }

    func randomWorld(seed: UInt64, count: Int, gravity: Bool) throws -> (World, [BodyID]) {
        var rng = Rng(s: seed)
        let world = World()
        world.setCollisionMatrix(classCount: 2) { a, b in a == 1 && b == 1 }
        var ids: [BodyID] = []
        for _ in 0..<count {
            var d = BodyDefinition()
            d.position = Vec2(rng.unit() * 400, rng.unit() * 400)
            d.angle = rng.unit() * 6
            d.linearVelocity = Vec2(rng.unit() * 200 - 100, rng.unit() * 200 - 100)
            d.angularVelocity = rng.unit() * 4 - 2
            let w = 5 + rng.unit() * 20, h = 5 + rng.unit() * 20
            d.shapes = [rng.unit() < 0.3 ? ShapeDefinition(.circle(center: .zero, radius: w / 2), mass: w * w / 10_000) : .box(width: w, height: h)]
            d.collisionClass = 1
            d.restitution = 0; d.friction = 0.3
            d.linearDamping = 0; d.angularDamping = 0
            d.gravity = gravity ? Vec2(0, 1000) : .zero
            ids.append(try world.createBody(d))
        }
        for (a, b, n) in [(Vec2(-50, -50), Vec2(450, -50), Vec2(0, -1)), (Vec2(450, -50), Vec2(450, 450), Vec2(1, 0)),
                          (Vec2(450, 450), Vec2(-50, 450), Vec2(0, 1)), (Vec2(-50, 450), Vec2(-50, -50), Vec2(-1, 0))] {
            var wall = BodyDefinition(); wall.type = .static; wall.collisionClass = 1
            wall.shapes = [ShapeDefinition(try .wall(from: a, to: b, outward: n), mass: 0)]
            try world.createBody(wall)
        }
        return (world, ids)
    }

    func kineticEnergy(_ world: World, _ ids: [BodyID]) -> Double {
        ids.reduce(0) { sum, id in
            let v = world.velocity(of: id), w = world.angularVelocity(of: id)
            return sum + 0.5 * Double(world.mass(of: id)) * Double(lengthSquared(v)) + 0.5 * Double(world.inertia(of: id)) * Double(w * w)
        }
    }

    /// A resting contact sinks in proportion to its load over its stiffness squared: pyramid_20 under the default
    /// 30 Hz sinks more than it does at 60 Hz (the cap at 4 substeps), where it stands within 2 points and sleeps.
    func test_pyramid20_sinksLessWithStifferContacts_andStandsAt60Hz() throws {
        func topDrop(hertz: Float) throws -> (dy: Double, dx: Double, awake: Int) {
            var settings = WorldSettings()
            settings.contactHertz = hertz
            let world = try World(settings: settings)
            let scene = BenchmarkScene.pyramid(20)
            let (ids, links) = try world.build(scene)
            for _ in 0..<600 { try world.step(dt: 1.0 / 60, substeps: 4) }
            let stats = world.statistics(of: scene, items: ids, links: links)
            XCTAssertEqual(stats.nonfinite, 0)
            return (stats.topDY, stats.topDX, world.awakeBodyCount)
        }
        let soft = try topDrop(hertz: 30), stiff = try topDrop(hertz: 60)
        XCTAssertGreaterThan(soft.dy, 2 * stiff.dy, "sinking: \(soft.dy) at 30 Hz, \(stiff.dy) at 60 Hz")
        XCTAssertLessThanOrEqual(abs(stiff.dy), 2)
        XCTAssertLessThanOrEqual(abs(stiff.dx), 1)
        XCTAssertEqual(stiff.awake, 0)
        // Beyond the cap the contacts stay as at the cap: the soft step would ring.
        let capped = try topDrop(hertz: 1000)
        XCTAssertEqual(capped.dy, stiff.dy)
    }

    /// Settings that would put NaN or a negative stiffness into the solver are refused, naming the setting.
    func test_settings_refuseNaNNegativeAndZeroStiffness() {
        XCTAssertNoThrow(try WorldSettings().validate())
        var stiffest = WorldSettings()
        stiffest.contactHertz = .infinity
        XCTAssertNoThrow(try stiffest.validate())
        func refusal(_ change: (inout WorldSettings) -> Void) -> String {
            var s = WorldSettings()
            change(&s)
            do { try s.validate(); return "accepted" } catch { return "\(error)" }
        }
        XCTAssertEqual(refusal { $0.contactHertz = .nan }, "WorldSettings.contactHertz must be positive, got nan")
        XCTAssertEqual(refusal { $0.contactHertz = 0 }, "WorldSettings.contactHertz must be positive, got 0.0")
        XCTAssertEqual(refusal { $0.jointHertz = -60 }, "WorldSettings.jointHertz must be positive, got -60.0")
        XCTAssertEqual(refusal { $0.linearSlop = -0.5 }, "WorldSettings.linearSlop must be finite and not negative, got -0.5")
        XCTAssertEqual(refusal { $0.contactDampingRatio = .infinity },
                       "WorldSettings.contactDampingRatio must be finite and not negative, got inf")
        XCTAssertEqual(refusal { $0.timeToSleep = .nan }, "WorldSettings.timeToSleep must be finite and not negative, got nan")
        XCTAssertEqual(refusal { $0.gridCellSize = -1 }, "WorldSettings.gridCellSize must be finite and not negative, got -1.0")
    }

    /// Without gravity, damping or restitution, contacts can only take energy away.
    func test_energyDoesNotGrowWithoutInput() throws {
        for seed in UInt64(1)...5 {
            let (world, ids) = try randomWorld(seed: seed, count: 120, gravity: false)
            let e0 = kineticEnergy(world, ids)
            var peak = e0
            for _ in 0..<180 {
                try world.step(dt: 1.0 / 60, substeps: 4)
                peak = max(peak, kineticEnergy(world, ids))
            }
            // Overlaps in the random start are pushed apart at a bounded speed; allow that small injection.
            XCTAssertLessThanOrEqual(peak, e0 * 1.05 + 5, "seed \(seed)")
            XCTAssertLessThan(kineticEnergy(world, ids), e0, "seed \(seed)")
        }
    }

    /// Ids of destroyed bodies go stale and are detected, even when their slot is reused.
    func test_idsOfRemovedBodies_goStale() throws {
        for seed in UInt64(1)...3 {
            let (world, ids) = try randomWorld(seed: seed, count: 50, gravity: true)
            var alive = ids
            var rng = Rng(s: seed)
            for _ in 0..<20 {
                let k = Int(rng.unit() * Float(alive.count))
                let id = alive.remove(at: k)
                try world.destroyBody(id)
                XCTAssertFalse(world.isValid(id))
                XCTAssertThrowsError(try world.destroyBody(id))
                try world.step(dt: 1.0 / 60, substeps: 4)
                let fresh = try world.createBody(.box(center: Vec2(200, 200), width: 5, height: 5))
                XCTAssertTrue(world.isValid(fresh))
                XCTAssertFalse(world.isValid(id), "a reused slot must not revive \(id)")
                alive.append(fresh)
            }
            for id in alive { XCTAssertTrue(world.isValid(id)) }
        }
    }

    /// Every pair of bodies whose boxes and bounding circles both overlap is a broadphase candidate (the broadphase
    /// may report more). Two awake bodies out of reach of each other this step (bounding circles or boxes farther
    /// apart than they can close plus the speculative margin) are dropped by the broadphase, so an overlap of boxes
    /// alone (corner to corner, with the circles apart) need not be a candidate.
    func test_broadphasePairs_areASupersetOfTrueOverlaps() throws {
        for seed in UInt64(1)...5 {
            let (world, ids) = try randomWorld(seed: seed, count: 300, gravity: true)
            for step in 0..<40 {
                try world.step(dt: 1.0 / 60, substeps: 4)
                guard step % 10 == 9 else { continue }
                // The next step's candidates are computed from the state now: run the broadphase alone.
                world.updatePairs(dt: 1.0 / 60)
                let candidates = Set(world.lastCandidatePairs.map { UInt64(UInt32($0.0)) << 32 | UInt64(UInt32($0.1)) })
                let boxes = ids.map { id -> AABB in
                    let i = Int(id.index), s = Int(world.bodies.slot[i])
                    return world.bodyBox(id: i, slot: s)
                }
                let circles = ids.map { id -> (Vec2, Float) in
                    let s = Int(world.bodies.slot[Int(id.index)])
                    return (world.bodies.position[s], world.bodies.extent[s])
                }
                func circlesOverlap(_ a: Int, _ b: Int) -> Bool {
                    length(circles[a].0 - circles[b].0) < circles[a].1 + circles[b].1
                }
                var checked = 0
                for a in 0..<ids.count {
                    for b in (a + 1)..<ids.count where boxes[a].overlaps(boxes[b]) && circlesOverlap(a, b) {
                        checked += 1
                        let (i, j) = (ids[a].index, ids[b].index)
                        let key = UInt64(UInt32(min(i, j))) << 32 | UInt64(UInt32(max(i, j)))
                        let bothAsleep = !world.isAwake(ids[a]) && !world.isAwake(ids[b])
                        if !bothAsleep { XCTAssertTrue(candidates.contains(key), "seed \(seed): \(i)-\(j) overlap but are not candidates") }
                    }
                }
                XCTAssertGreaterThan(checked, 0, "seed \(seed): the test saw overlapping pairs")
            }
        }
    }

    /// The narrowphase keeps the first body's world polygon (or quad) between consecutive pairs that share it,
    /// meets two boxes in registers (`collideQuads`) and reuses last step's manifolds; every manifold equals the one
    /// computed from scratch by the general polygon path at the bodies' reference poses with the contact's reach
    /// (boxes, circles and walls, to the bit), and its separations are those carried to the present poses.
    func test_narrowphase_reusingTheFirstPolygon_givesTheManifoldsComputedAfresh() throws {
        for seed in UInt64(1)...3 {
            let (world, _) = try randomWorld(seed: seed, count: 300, gravity: true)
            for _ in 0..<30 { try world.step(dt: 1.0 / 60, substeps: 4) }
            world.updatePairs(dt: 1.0 / 60)
            world.narrowphase(dt: 1.0 / 60)
            let scratch = UnsafeMutablePointer<Vec2>.allocate(capacity: 4 * maxPolygonVertices)
            defer { scratch.deallocate() }
            var compared = 0, shared = 0
            var previousA: Int32 = -1
            world.shapeStore.polygonVertices.withUnsafeBufferPointer { pv in
            world.shapeStore.polygonNormals.withUnsafeBufferPointer { pn in
                for c in world.contactStore.contacts {
                    let ia = Int(c.bodyA), ib = Int(c.bodyB)
                    if c.bodyA == previousA { shared += 1 }
                    previousA = c.bodyA
                    let sa = Int(world.bodies.slot[ia]), sb = Int(world.bodies.slot[ib])
                    let a = world.shapeStore.records[Int(world.bodies.shapeStart[ia]) + Int(c.shapePair >> 16)]
                    let b = world.shapeStore.records[Int(world.bodies.shapeStart[ib]) + Int(c.shapePair & 0xFFFF)]
                    let reach = World.reach(sa, sb, dt: 1.0 / 60, margin: world.settings.speculativeDistance,
                                            pos: world.bodies.position.base, vel: world.bodies.velocity.base,
                                            angVel: world.bodies.angularVelocity.base, ext: world.bodies.extent.base,
                                            grav: world.bodies.gravity.base, tight: nil)
                    // The contact's reach: at least the pair's, in whole units, or the pair's own beyond them.
                    let unit = World.reachUnit(linearSlop: world.settings.linearSlop)
                    let margin = world.settings.speculativeDistance
                    let speculativeReach = c.reach == World.noReach ? reach.speculativeReach : margin + Float(c.reach) * unit
                    XCTAssertGreaterThanOrEqual(speculativeReach, reach.speculativeReach, "seed \(seed): \(ia)-\(ib)")
                    /// The reference pose of a slot (a static or sleeping body's present one).
                    func reference(_ s: Int) -> (Vec2, Rotation) {
                        guard world.contactStore.referenceState.valid && s < world.bodies.awakeCount else {
                            return (world.bodies.position[s], world.bodies.rotation[s])
                        }
                        let r = world.contactStore.referencePose.base[s]
                        return (Vec2(r[0], r[1]), Rotation(c: r[2], s: r[3]))
                    }
                    let (pA, qA) = reference(sa), (pB, qB) = reference(sb)
                    let m = World.collide(a, pA, qA, b, pB, qB, speculativeReach: speculativeReach, linearSlop: world.settings.linearSlop,
                                          scratch: scratch, aLoaded: false, vertices: pv, normals: pn)
                    XCTAssertEqual(m.pointCount, c.manifold.pointCount, "seed \(seed): \(ia)-\(ib)")
                    XCTAssertEqual(m.normal, c.manifold.normal, "seed \(seed): \(ia)-\(ib)")
                    // Each body's motion since its reference.
                    let dA = world.bodies.position[sa] - pA, dB = world.bodies.position[sb] - pB
                    let tA = qA.c * world.bodies.rotation[sa].s - qA.s * world.bodies.rotation[sa].c
                    let tB = qB.c * world.bodies.rotation[sb].s - qB.s * world.bodies.rotation[sb].c
                    for k in 0..<min(m.pointCount, c.manifold.pointCount) {
                        XCTAssertEqual(m[k].point, c.manifold[k].point, "seed \(seed): \(ia)-\(ib) point \(k)")
                        XCTAssertEqual(m[k].separation, c.manifold[k].referenceSeparation, "seed \(seed): \(ia)-\(ib)")
                        XCTAssertEqual(m[k].id, c.manifold[k].id, "seed \(seed): \(ia)-\(ib)")
                        let moveA = dA + tA * leftPerp(m[k].point - pA), moveB = dB + tB * leftPerp(m[k].point - pB)
                        XCTAssertEqual(c.manifold[k].separation, m[k].separation + dot(m.normal, moveB - moveA),
                                       "seed \(seed): \(ia)-\(ib)")
                    }
                    compared += 1
                }
            }
            }
            XCTAssertGreaterThan(compared, 100, "seed \(seed)")
            XCTAssertGreaterThan(shared, 20, "seed \(seed): consecutive contacts share their first body")
        }
    }

    /// Two quads meet in registers with `collidePolygons`'s arithmetic: on boxes of random sizes and angles, apart,
    /// touching and overlapping, every manifold (normal, points, separations, feature ids) equals the general
    /// path's, to the bit.
    func test_collideQuads_givesTheGeneralPolygonManifold() throws {
        var rng = Rng(s: 7)
        let world = World()
        var compared = 0, withPoints = 0
        let scratch = UnsafeMutablePointer<Vec2>.allocate(capacity: 4 * maxPolygonVertices)
        defer { scratch.deallocate() }
        let boxes = try (0..<40).map { _ in
            try world.createBody(.box(center: .zero, width: 4 + rng.unit() * 20, height: 4 + rng.unit() * 20))
        }
        world.shapeStore.polygonVertices.withUnsafeBufferPointer { pv in
        world.shapeStore.polygonNormals.withUnsafeBufferPointer { pn in
            for k in 0..<2000 {
                let a = world.shapeStore.records[Int(world.bodies.shapeStart[Int(boxes[k % 40].index)])]
                let b = world.shapeStore.records[Int(world.bodies.shapeStart[Int(boxes[(k * 7 + 3) % 40].index)])]
                var pA = Vec2(rng.unit() * 10, rng.unit() * 10), qA = Rotation(angle: rng.unit() * 7)
                var qB = Rotation(angle: rng.unit() * 7)
                var pB = pA + Vec2(rng.unit() * 40 - 20, rng.unit() * 40 - 20)
                if k % 4 == 0 {
                    // Unrotated and on the diagonal, on whole points: faces exactly parallel, and two edges of a box
                    // equally far (ties between edges, first one wins).
                    let d = Float(Int(rng.unit() * 30) - 15)
                    pA = Vec2(Float(k % 7), Float(k % 5)); qA = .identity; qB = .identity
                    pB = pA + Vec2(d, k % 8 == 0 ? d : -d)
                }
                let general = World.collide(a, pA, qA, b, pB, qB, speculativeReach: 2, linearSlop: 0.5, scratch: scratch,
                                            aLoaded: false, vertices: pv, normals: pn)
                let va = Int(a.vertexStart), vb = Int(b.vertexStart)
                let quads = collideQuads(WorldQuad(vertices: pv.baseAddress! + va, normals: pn.baseAddress! + va, p: pA, q: qA),
                                         WorldQuad(vertices: pv.baseAddress! + vb, normals: pn.baseAddress! + vb, p: pB, q: qB),
                                         speculativeReach: 2, linearSlop: 0.5)
                XCTAssertEqual(quads.pointCount, general.pointCount, "pair \(k)")
                XCTAssertEqual(quads.normal, general.normal, "pair \(k)")
                for i in 0..<min(quads.pointCount, general.pointCount) {
                    XCTAssertEqual(quads[i].point, general[i].point, "pair \(k) point \(i)")
                    XCTAssertEqual(quads[i].separation, general[i].separation, "pair \(k) point \(i)")
                    XCTAssertEqual(quads[i].id, general[i].id, "pair \(k) point \(i)")
                }
                compared += 1
                if general.pointCount > 0 { withPoints += 1 }
            }
        }
        }
        XCTAssertEqual(compared, 2000)
        XCTAssertGreaterThan(withPoints, 300, "many of the pairs touch or nearly do")
    }

    /// The awake bodies are swept against each other in a frame moving with their mean displacement: a column
    /// falling together lists no pairs among itself, however fast, while its lowest box still meets the floor it
    /// reaches this step (static bodies are met in the world), and two boxes closing on each other while both race
    /// sideways are listed. (The column's pairs would be dropped by the reach test in any frame; what the frame
    /// changes is the work, not that list. The floor is the assertion a wrong frame fails: swept in the moving
    /// frame against a static body, the lowest box misses the floor and falls through it.)
    func test_broadphase_sweepsAwakeBodiesInTheirCommonFrame() throws {
        let world = World()
        world.setCollisionMatrix(classCount: 2) { a, b in a == 1 && b == 1 }
        func body(_ p: Vec2, _ v: Vec2) throws -> BodyID {
            var d = BodyDefinition.box(center: p, width: 10, height: 10)
            d.linearVelocity = v; d.collisionClass = 1; d.gravity = .zero
            return try world.createBody(d)
        }
        // A column 15 apart (gaps of 5) falling at 3000 points/s: 50 points this step. Its lowest box is 20 above
        // the floor.
        let column = try (0..<20).map { try body(Vec2(100, 700 - 15 * Float($0)), Vec2(0, 3000)) }
        var floor = BodyDefinition(); floor.type = .static; floor.collisionClass = 1
        floor.position = Vec2(100, 730); floor.shapes = [.box(width: 200, height: 20)]
        let floorID = try world.createBody(floor)
        // Racing right at 6000 points/s, the one behind 600 points/s faster: it closes their gap of 8 this step.
        let front = try body(Vec2(400, 300), Vec2(6000, 0)), back = try body(Vec2(382, 300), Vec2(6600, 0))
        world.updatePairs(dt: 1.0 / 60)
        let pairs = Set(world.lastCandidatePairs.map { UInt64(UInt32($0.0)) << 32 | UInt64(UInt32($0.1)) })
        func key(_ a: BodyID, _ b: BodyID) -> UInt64 {
            UInt64(UInt32(min(a.index, b.index))) << 32 | UInt64(UInt32(max(a.index, b.index)))
        }
        XCTAssertTrue(pairs.contains(key(column[0], floorID)), "the lowest box reaches the floor this step")
        XCTAssertTrue(pairs.contains(key(front, back)), "the boxes close their gap this step")
        for (k, a) in column.enumerated() {
            for b in column[(k + 1)...] { XCTAssertFalse(pairs.contains(key(a, b)), "\(a)-\(b) fall together") }
        }
        // And the steps stop the column on the floor (its top at 720), without tunnelling: the lowest box reaches
        // it and sinks at most 1.5 points into it. (Without gravity the column then rebounds.)
        var lowest: Float = -.infinity
        for _ in 0..<120 {
            try world.step(dt: 1.0 / 60, substeps: 4)
            lowest = max(lowest, world.centerOfMass(of: column[0]).y)
        }
        XCTAssertTrue(lowest > 705 && lowest < 716.5, "the lowest box reaches the floor and stops there, at most at \(lowest)")
    }

    /// The broadphase keeps its candidate pairs between steps and searches only for the bodies that left their fat
    /// boxes. A world that does so and one that searches the grid in full every step list the same pairs every step
    /// and stay identical to the bit, through a pile settling and falling asleep and everything that changes the
    /// pairs otherwise: a body placed by hand, an impulse, collision classes changed and restored (one to a class
    /// that meets more bodies, one to none), a body destroyed
    /// and another created, a body made static and dynamic again, a static body moved, everything woken. The world
    /// keeping candidates runs on three workers, the one searching in full on one.
    func test_broadphase_keptCandidates_listThePairsOfAFullSearch() throws {
        for seed in UInt64(1)...1 {
            func make() throws -> (World, [BodyID], BodyID) {
                let (world, ids) = try randomWorld(seed: seed, count: 300, gravity: true)
                // Class 2 meets class 1 but not itself: every fifth body.
                world.setCollisionMatrix(classCount: 3) { a, b in !(a == 2 && b == 2) }
                for id in ids.enumerated() where id.offset % 5 == 0 { try world.setCollisionClass(id.element, 2) }
                var post = BodyDefinition(); post.type = .static; post.collisionClass = 1
                post.position = Vec2(200, 380); post.shapes = [.box(width: 30, height: 30)]
                return (world, ids, try world.createBody(post))
            }
            let (kept, ids, postA) = try make()
            let (searched, _, postB) = try make()
            searched.broadphase.incremental = false
            try searched.setWorkerCount(1)
            // The kept candidates on three workers, every pass parallel from a few items.
            try kept.setWorkerCount(3)
            kept.workers.handOutEveryPass(from: 16)
            func both(_ body: (World, BodyID) throws -> Void) rethrows {
                try body(kept, postA); try body(searched, postB)
            }
            var fresh: [BodyID] = []
            var promoted: BodyID?
            for step in 0..<300 {
                switch step {
                case 150: try both { w, _ in try w.setTransform(ids[0], origin: Vec2(200, 300), angle: 0.3) }
                case 170: try both { w, _ in try w.applyImpulse(ids[5], Vec2(40, -60)) }
                case 190:
                    // A class-2 body touching another becomes class 1: the two now meet.
                    let boxes = ids.map { id in kept.bodyBox(id: Int(id.index), slot: Int(kept.bodies.slot[Int(id.index)])) }
                    let classTwo = ids.indices.filter { $0 % 5 == 0 }
                    let touching = classTwo.first { a in classTwo.contains { b in b != a && boxes[a].overlaps(boxes[b]) } }
                    promoted = ids[try XCTUnwrap(touching, "seed \(seed): two class-2 bodies touch")]
                    try both { w, _ in try w.setCollisionClass(promoted!, 1); try w.setCollisionClass(ids[7], 0) }
                case 191:
                    // (Ids are the creation order: the class-2 bodies' are multiples of 5.)
                    let key = promoted!.index
                    XCTAssertTrue(kept.lastCandidatePairs.contains { p in
                        (p.0 == key && p.1 % 5 == 0) || (p.1 == key && p.0 % 5 == 0)
                    }, "seed \(seed): the promoted body meets its class-2 neighbor")
                case 200: try both { w, _ in try w.setCollisionClass(promoted!, 2); try w.setCollisionClass(ids[7], 1) }
                case 210:
                    try both { w, _ in
                        try w.destroyBody(ids[10])
                        fresh.append(try w.createBody(.box(center: Vec2(100, 100), width: 8, height: 8)))
                    }
                case 230: try both { w, _ in try w.setType(ids[12], .static) }
                case 250: try both { w, _ in try w.setType(ids[12], .dynamic) }
                case 270: try both { w, post in try w.setTransform(post, origin: Vec2(260, 380), angle: 0) }
                case 280: both { w, _ in w.wakeAll() }
                default: break
                }
                try kept.step(dt: 1.0 / 60, substeps: 4)
                try searched.step(dt: 1.0 / 60, substeps: 4)
                let a = kept.lastCandidatePairs, b = searched.lastCandidatePairs
                XCTAssertTrue(a.elementsEqual(b, by: ==), "seed \(seed) step \(step): \(a.count) pairs against \(b.count)")
                if !a.elementsEqual(b, by: ==) { return }
            }
            for id in ids where id != ids[10] {
                XCTAssertEqual(kept.origin(of: id), searched.origin(of: id), "seed \(seed): \(id)")
                XCTAssertEqual(kept.angle(of: id), searched.angle(of: id), "seed \(seed): \(id)")
            }
            XCTAssertEqual(fresh.count, 2)
            XCTAssertEqual(searched.broadphase.fullSearchCount, 300, "seed \(seed)")
            XCTAssertLessThan(kept.broadphase.fullSearchCount, 150, "seed \(seed): the candidates are kept between steps")
            XCTAssertGreaterThan(kept.workers.parallelPasses, 0, "seed \(seed): passes ran on the workers")
        }
    }

    /// Items falling together are calm in their common frame though fast in the world: the broadphase keeps their
    /// candidates in that frame and searches the static and sleeping bodies every step. A formation falls along a
    /// wall (its first column within reach of it), past a box asleep on a shelf at its side, onto a post and the
    /// floor. A world
    /// that keeps candidates (on three workers, every pass parallel from a few items) and one that searches in full
    /// list the same pairs with the same reaches every step and end identical to the bit, and while the formation
    /// falls the first keeps its grid in the moving frame and seldom searches in full.
    func test_broadphase_fallingFormation_keepsItsCandidatesInTheMovingFrame() throws {
        func make() throws -> (World, [BodyID], [BodyID]) {
            let world = World()
            world.setCollisionMatrix(classCount: 2) { a, b in a == 1 && b == 1 }
            var rng = Rng(s: 5)
            var ids: [BodyID] = []
            for row in 0..<8 {
                for col in 0..<12 {
                    var d = BodyDefinition.box(center: Vec2(6 + 14 * Float(col) + (col == 0 ? 0 : rng.unit() * 3 - 1.5),
                                                            20 + 14 * Float(row) + rng.unit() * 3 - 1.5), width: 10, height: 10)
                    d.friction = 0.2; d.restitution = 0; d.collisionClass = 1
                    d.gravity = Vec2(0, 1000)
                    ids.append(try world.createBody(d))
                }
            }
            // A box on a shelf just right of the formation's path, asleep before the formation passes it, and a post
            // the formation's right side lands on.
            var resting = BodyDefinition.box(center: Vec2(178, 590), width: 10, height: 10)
            resting.gravity = Vec2(0, 1000); resting.friction = 0.2; resting.collisionClass = 1
            ids.append(try world.createBody(resting))
            var shelf = BodyDefinition(); shelf.type = .static; shelf.collisionClass = 1
            shelf.position = Vec2(203, 600); shelf.shapes = [.box(width: 60, height: 10)]
            var post = BodyDefinition(); post.type = .static; post.collisionClass = 1
            post.position = Vec2(150, 1400); post.shapes = [.box(width: 30, height: 30)]
            var statics = [try world.createBody(shelf), try world.createBody(post)]
            for (a, b, n) in [(Vec2(0, 1500), Vec2(0, 0), Vec2(-1, 0)), (Vec2(400, 1500), Vec2(0, 1500), Vec2(0, 1))] {
                var wall = BodyDefinition(); wall.type = .static; wall.collisionClass = 1
                wall.shapes = [ShapeDefinition(try .wall(from: a, to: b, outward: n), mass: 0)]
                statics.append(try world.createBody(wall))
            }
            return (world, ids, statics)
        }
        let (kept, ids, statics) = try make()
        let (searched, _, _) = try make()
        searched.broadphase.incremental = false
        try searched.setWorkerCount(1)
        try kept.setWorkerCount(3)
        kept.workers.handOutEveryPass(from: 16)
        var movingSteps = 0, wallPairs = 0, sleepingPairs = 0
        var fullSearchesWhileFalling = 0
        for step in 0..<200 {
            let before = kept.broadphase.fullSearchCount
            try kept.step(dt: 1.0 / 60, substeps: 4)
            try searched.step(dt: 1.0 / 60, substeps: 4)
            let a = kept.lastCandidatePairs, b = searched.lastCandidatePairs
            XCTAssertTrue(a.elementsEqual(b, by: ==), "step \(step): \(a.count) pairs against \(b.count)")
            let ra = kept.broadphase.pairReach.map { [$0.spin.bitPattern, $0.speculativeReach.bitPattern] }
            let rb = searched.broadphase.pairReach.map { [$0.spin.bitPattern, $0.speculativeReach.bitPattern] }
            XCTAssertEqual(ra, rb, "step \(step): the pairs' reaches")
            if !a.elementsEqual(b, by: ==) || ra != rb { return }
            // The formation falls untouched until about step 58, when its lowest row passes the shelf.
            if step >= 10 && step < 55 {
                if kept.broadphase.fatGrid.valid && kept.broadphase.fatGrid.moving { movingSteps += 1 }
                fullSearchesWhileFalling += kept.broadphase.fullSearchCount - before
                wallPairs += a.filter { p in statics.contains { Int32($0.index) == p.0 || Int32($0.index) == p.1 } }.count
            }
            let sleeper = ids.last!
            if !kept.isAwake(sleeper) {
                sleepingPairs += a.filter { $0.0 == Int32(sleeper.index) || $0.1 == Int32(sleeper.index) }.count
            }
        }
        for id in ids {
            XCTAssertEqual(kept.origin(of: id), searched.origin(of: id), "\(id)")
            XCTAssertEqual(kept.angle(of: id), searched.angle(of: id), "\(id)")
        }
        XCTAssertEqual(movingSteps, 45, "the grid is kept in the moving frame while the formation falls")
        XCTAssertLessThan(fullSearchesWhileFalling, 5, "the candidates are kept while the formation falls")
        XCTAssertGreaterThan(wallPairs, 0, "the formation's first column meets the wall while it falls")
        XCTAssertGreaterThan(sleepingPairs, 0, "the formation meets the sleeping box while it sleeps")
        XCTAssertGreaterThan(kept.workers.parallelPasses, 0, "passes ran on the workers")
    }

    /// The kept candidates take a step's new pairs by a merge in place: the result is the sorted union, without
    /// repeats, whatever the repeats among the new pairs and the overlap with the kept ones.
    func test_mergeCandidates_isTheSortedUnion() {
        let world = World()
        var rng = Rng(s: 11)
        for trial in 0..<200 {
            let kept = Array(Set((0..<Int(rng.unit() * 60)).map { _ in UInt64(rng.unit() * 100) })).sorted()
            let fresh = (0..<Int(rng.unit() * 20)).map { _ in UInt64(rng.unit() * 100) }.sorted()
            var merged = kept
            world.mergeCandidates(&merged, fresh)
            XCTAssertEqual(merged, Array(Set(kept).union(fresh)).sorted(), "trial \(trial)")
        }
    }

    /// Two clusters far apart leave most of the rectangle of cells in use empty, so the broadphase lists its cell
    /// entries and radix sorts them instead of placing them by cell. One cluster straddles cell 32,767 | 32,768,
    /// where the 16-bit cell coordinates wrap. Every overlapping pair is still a candidate, and the pairs are the
    /// ones the clusters give alone (placed by cell).
    /// The grid cells of a box are ⌊v·inv⌋ of each coordinate, clamped to ±10⁹: at exact multiples of the cell,
    /// just either side, negative, and beyond the clamp.
    func test_cellCoords_areTheFloorOfEachCoordinate() {
        let inv: Float = 1 / 64
        let values: [Float] = [0, -0.0, 63.99, 64, 64.01, -0.01, -64, -64.01, -127.5, 1e5, -1e5, 3e12, -3e12,
                               Float.leastNonzeroMagnitude, -Float.leastNonzeroMagnitude, 12345.678]
        for (k, v) in values.enumerated() {
            let w = values[(k * 7 + 3) % values.count]
            let c = dk_cell_coords(SIMD4(v, w, -w, v * 0.5), inv)
            for (lane, x) in [v, w, -w, v * 0.5].enumerated() {
                let expected = Int32(Swift.max(Swift.min(x * inv, 1e9), -1e9).rounded(.down))
                XCTAssertEqual(c[lane], expected, "\(x)")
            }
        }
    }

    func test_broadphase_sparseClustersAndTheCellCoordinateWrap() throws {
        func cluster(_ world: World, at origin: Vec2, seed: UInt64) throws -> [BodyID] {
            var rng = Rng(s: seed)
            return try (0..<150).map { _ in
                var d = BodyDefinition.box(center: origin + Vec2(rng.unit() * 120, rng.unit() * 120), width: 6 + rng.unit() * 6,
                                           height: 6 + rng.unit() * 6)
                d.angle = rng.unit() * 6
                d.collisionClass = 1
                return try world.createBody(d)
            }
        }
        func candidates(_ world: World) -> Set<UInt64> {
            world.updatePairs(dt: 1.0 / 60)
            return Set(world.lastCandidatePairs.map { UInt64(UInt32($0.0)) << 32 | UInt64(UInt32($0.1)) })
        }
        var settings = WorldSettings(); settings.gridCellSize = 10
        let far = Vec2(327_620, -400_000)   // cells 32,762 … 32,774 across, -40,000 down
        let both = try World(settings: settings), near = try World(settings: settings), wrap = try World(settings: settings)
        for w in [both, near, wrap] { w.setCollisionMatrix(classCount: 2) { a, b in a == 1 && b == 1 } }
        let a = try cluster(both, at: .zero, seed: 1), b = try cluster(both, at: far, seed: 2)
        _ = try cluster(near, at: .zero, seed: 1)
        _ = try cluster(wrap, at: far, seed: 2)
        let pairs = candidates(both)
        // Ids of the far cluster are 150 higher in the joint world.
        let shifted = candidates(wrap).map { $0 + (150 << 32 | 150) }
        XCTAssertEqual(pairs, candidates(near).union(shifted))
        // And a superset of the true overlaps (boxes and bounding circles), in both clusters.
        var checked = 0
        for ids in [a, b] {
            for (k, i) in ids.enumerated() {
                for j in ids[(k + 1)...] {
                    let si = Int(both.bodies.slot[Int(i.index)]), sj = Int(both.bodies.slot[Int(j.index)])
                    let bi = both.bodyBox(id: Int(i.index), slot: si), bj = both.bodyBox(id: Int(j.index), slot: sj)
                    let reach = both.bodies.extent[si] + both.bodies.extent[sj]
                    guard bi.overlaps(bj), length(both.bodies.position[si] - both.bodies.position[sj]) < reach else { continue }
                    checked += 1
                    XCTAssertTrue(pairs.contains(UInt64(UInt32(i.index)) << 32 | UInt64(UInt32(j.index))), "\(i)-\(j) overlap")
                }
            }
        }
        XCTAssertGreaterThan(checked, 20)
    }

    func test_contactsPersistAndWarmStart_sortedByKey() throws {
        let (world, _) = try randomWorld(seed: 9, count: 200, gravity: true)
        for _ in 0..<120 { try world.step(dt: 1.0 / 60, substeps: 4) }
        let keys = world.contactStore.contacts.map { ($0.bodyPair, $0.shapePair) }
        XCTAssertEqual(keys.count, Set(keys.map { "\($0.0)-\($0.1)" }).count, "contacts are unique")
        XCTAssertTrue(zip(keys, keys.dropFirst()).allSatisfy { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }, "contacts are sorted")
    }
}
