import XCTest
@testable import DynamicsCore
import DynamicsSIMD

/// The scene generators reproduce SCENES.md's check sums, so every engine builds the same initial state.
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
}

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
            world.polygonVertices.withUnsafeBufferPointer { pv in
            world.polygonNormals.withUnsafeBufferPointer { pn in
                for c in world.contacts {
                    let ia = Int(c.bodyA), ib = Int(c.bodyB)
                    if c.bodyA == previousA { shared += 1 }
                    previousA = c.bodyA
                    let sa = Int(world.bodies.slot[ia]), sb = Int(world.bodies.slot[ib])
                    let a = world.shapes[Int(world.bodies.shapeStart[ia]) + Int(c.keyLo >> 16)]
                    let b = world.shapes[Int(world.bodies.shapeStart[ib]) + Int(c.keyLo & 0xFFFF)]
                    let reach = World.reach(sa, sb, dt: 1.0 / 60, margin: world.settings.speculativeDistance,
                                            pos: world.bodies.position.base, vel: world.bodies.velocity.base,
                                            angVel: world.bodies.angularVelocity.base, ext: world.bodies.extent.base,
                                            grav: world.bodies.gravity.base, tight: nil)
                    // The contact's reach: at least the pair's, in whole units, or the pair's own beyond them.
                    let unit = World.reachUnit(linearSlop: world.settings.linearSlop)
                    let margin = world.settings.speculativeDistance
                    let specDist = c.reach == World.noReach ? reach.specDist : margin + Float(c.reach) * unit
                    XCTAssertGreaterThanOrEqual(specDist, reach.specDist, "seed \(seed): \(ia)-\(ib)")
                    /// The reference pose of a slot (a static or sleeping body's present one).
                    func reference(_ s: Int) -> (Vec2, Rot) {
                        guard world.referenceState.valid && s < world.bodies.awakeCount else {
                            return (world.bodies.position[s], world.bodies.rotation[s])
                        }
                        let r = world.referencePose.base[s]
                        return (Vec2(r[0], r[1]), Rot(c: r[2], s: r[3]))
                    }
                    let (pA, qA) = reference(sa), (pB, qB) = reference(sb)
                    let m = World.collide(a, pA, qA, b, pB, qB, specDist: specDist, linearSlop: world.settings.linearSlop,
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
        world.polygonVertices.withUnsafeBufferPointer { pv in
        world.polygonNormals.withUnsafeBufferPointer { pn in
            for k in 0..<2000 {
                let a = world.shapes[Int(world.bodies.shapeStart[Int(boxes[k % 40].index)])]
                let b = world.shapes[Int(world.bodies.shapeStart[Int(boxes[(k * 7 + 3) % 40].index)])]
                var pA = Vec2(rng.unit() * 10, rng.unit() * 10), qA = Rot(angle: rng.unit() * 7)
                var qB = Rot(angle: rng.unit() * 7)
                var pB = pA + Vec2(rng.unit() * 40 - 20, rng.unit() * 40 - 20)
                if k % 4 == 0 {
                    // Unrotated and on the diagonal, on whole points: faces exactly parallel, and two edges of a box
                    // equally far (ties between edges, first one wins).
                    let d = Float(Int(rng.unit() * 30) - 15)
                    pA = Vec2(Float(k % 7), Float(k % 5)); qA = .identity; qB = .identity
                    pB = pA + Vec2(d, k % 8 == 0 ? d : -d)
                }
                let general = World.collide(a, pA, qA, b, pB, qB, specDist: 2, linearSlop: 0.5, scratch: scratch,
                                            aLoaded: false, vertices: pv, normals: pn)
                let va = Int(a.vertexStart), vb = Int(b.vertexStart)
                let quads = collideQuads(WorldQuad(vertices: pv.baseAddress! + va, normals: pn.baseAddress! + va, p: pA, q: qA),
                                         WorldQuad(vertices: pv.baseAddress! + vb, normals: pn.baseAddress! + vb, p: pB, q: qB),
                                         specDist: 2, linearSlop: 0.5)
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
        // And the steps stop the column on the floor (its top at 720), without tunnelling.
        for _ in 0..<120 { try world.step(dt: 1.0 / 60, substeps: 4) }
        let y = world.centerOfMass(of: column[0]).y
        XCTAssertTrue(y > 705 && y < 716, "the lowest box rests on the floor, at \(y)")
    }

    /// The broadphase keeps its candidate pairs between steps and searches only for the bodies that left their fat
    /// boxes. A world that does so and one that searches the grid in full every step list the same pairs every step
    /// and stay identical to the bit, through a pile settling and falling asleep and everything that changes the
    /// pairs otherwise: a body placed by hand, an impulse, collision classes changed and restored (one to a class
    /// that meets more bodies, one to none), a body destroyed
    /// and another created, a body made static and dynamic again, a static body moved, everything woken.
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
            searched.incrementalBroadphase = false
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
                    }, "seed \(seed): the promoted body meets its class-2 neighbour")
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
            XCTAssertEqual(searched.fullSearchCount, 300, "seed \(seed)")
            XCTAssertLessThan(kept.fullSearchCount, 150, "seed \(seed): the candidates are kept between steps")
        }
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
        let keys = world.contacts.map { ($0.keyHi, $0.keyLo) }
        XCTAssertEqual(keys.count, Set(keys.map { "\($0.0)-\($0.1)" }).count, "contacts are unique")
        XCTAssertTrue(zip(keys, keys.dropFirst()).allSatisfy { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }, "contacts are sorted")
    }
}

final class CoreBadInputTests: XCTestCase {
    func test_createBody_refusesEveryInvalidDefinition() {
        let world = World()
        func refused(_ fragment: String, _ change: (inout BodyDefinition) -> Void, file: StaticString = #filePath, line: UInt = #line) {
            var d = BodyDefinition.box(center: .zero, width: 10, height: 10)
            change(&d)
            XCTAssertThrowsError(try world.createBody(d), file: file, line: line) { error in
                XCTAssertTrue("\(error)".contains(fragment), "'\(error)' should mention '\(fragment)'", file: file, line: line)
            }
        }
        refused("position") { $0.position = Vec2(.nan, 0) }
        refused("angle") { $0.angle = .infinity }
        refused("velocity") { $0.linearVelocity = Vec2(0, .nan) }
        refused("angular velocity") { $0.angularVelocity = .nan }
        refused("gravity") { $0.gravity = Vec2(.infinity, 0) }
        refused("damping") { $0.linearDamping = -1 }
        refused("friction") { $0.friction = .nan }
        refused("at least one shape") { $0.shapes = [] }
        refused("radius") { $0.shapes = [ShapeDefinition(.circle(center: .zero, radius: 0), mass: 1)] }
        refused("mass") { $0.shapes = [ShapeDefinition(.circle(center: .zero, radius: 1), mass: -1)] }
        refused("positive mass") { $0.shapes = [ShapeDefinition(.circle(center: .zero, radius: 1), mass: 0)] }
        refused("segment") { $0.shapes = [ShapeDefinition(.segment(.zero, .zero), mass: 1)] }
        refused("collision class") { $0.collisionClass = 5 }
        XCTAssertEqual(world.bodyCount, 0)
    }

    func test_convexPolygon_refusesConcaveSelfCrossingAndDegenerateOutlines() {
        XCTAssertThrowsError(try ConvexPolygon(vertices: [Vec2(0, 0), Vec2(1, 0)]))
        XCTAssertThrowsError(try ConvexPolygon(vertices: [Vec2(0, 0), Vec2(1, 0), Vec2(2, 0)]))
        XCTAssertThrowsError(try ConvexPolygon(vertices: [Vec2(-1, -1), Vec2(0, 0), Vec2(1, -1), Vec2(1, 1), Vec2(-1, 1)]))
        XCTAssertThrowsError(try ConvexPolygon(vertices: [Vec2(-1, -1), Vec2(1, 1), Vec2(1, -1), Vec2(-1, 1)]))
        XCTAssertThrowsError(try ConvexPolygon(vertices: [Vec2(0, 0), Vec2(.nan, 0), Vec2(1, 1)]))
        // Both windings are accepted and give the same polygon.
        let a = try? ConvexPolygon(vertices: [Vec2(-1, -1), Vec2(1, -1), Vec2(1, 1), Vec2(-1, 1)])
        let b = try? ConvexPolygon(vertices: [Vec2(-1, 1), Vec2(1, 1), Vec2(1, -1), Vec2(-1, -1)])
        XCTAssertNotNil(a); XCTAssertNotNil(b)
        XCTAssertEqual(a?.massProperties.area ?? 0, 4, accuracy: 1e-5)
        XCTAssertEqual(b?.massProperties.area ?? 0, 4, accuracy: 1e-5)
    }

    func test_boxMassProperties_matchTheClosedForm() {
        let p: ConvexPolygon
        if case let .polygon(poly) = ShapeGeometry.box(width: 10, height: 20) { p = poly } else { return XCTFail() }
        let m = p.massProperties
        XCTAssertEqual(m.area, 200, accuracy: 1e-3)
        XCTAssertEqual(m.inertiaPerMass, (100 + 400) / 12, accuracy: 1e-3)
        XCTAssertEqual(length(m.centroid), 0, accuracy: 1e-5)
    }

    func test_joints_refuseBadDefinitions() throws {
        let world = World()
        let a = try world.createBody(.box(center: .zero, width: 10, height: 10))
        var j = JointDefinition(kind: .distance, bodyA: a, bodyB: a)
        XCTAssertThrowsError(try world.createJoint(j))
        j = JointDefinition(kind: .distance, bodyA: a, bodyB: nil)
        j.length = -1
        XCTAssertThrowsError(try world.createJoint(j))
        j = JointDefinition(kind: .revolute, bodyA: a, bodyB: nil)
        j.enableLimit = true; j.lowerLimit = 0.2; j.upperLimit = 1
        XCTAssertThrowsError(try world.createJoint(j)) { XCTAssertTrue("\($0)".contains("contain 0")) }
        try world.destroyBody(a)
        XCTAssertThrowsError(try world.createJoint(JointDefinition(kind: .weld, bodyA: a, bodyB: nil)))
    }

    /// Each body lists its joints in the order they were attached, through destruction and reuse of joint
    /// indices; destroying a body destroys exactly its joints.
    func test_jointLists_followAttachDestroyAndReuse() throws {
        let world = World()
        let hub = try world.createBody(.box(center: .zero, width: 10, height: 10))
        let others = try (0..<4).map { k in try world.createBody(.box(center: Vec2(Float(20 * k + 20), 0), width: 10, height: 10)) }
        func rod(_ a: BodyID, _ b: BodyID?) throws -> JointID {
            var j = JointDefinition(kind: .distance, bodyA: a, bodyB: b)
            j.length = 20; j.minLength = 20; j.maxLength = 20
            return try world.createJoint(j)
        }
        let j0 = try rod(hub, others[0]), j1 = try rod(others[1], hub), j2 = try rod(hub, nil), j3 = try rod(others[2], others[3])
        func list(_ b: BodyID) -> [Int32] { world.jointsAttached(to: Int(b.index)) }
        XCTAssertEqual(list(hub), [j0.index, j1.index, j2.index])
        XCTAssertEqual(list(others[1]), [j1.index])
        try world.destroyJoint(j1)
        XCTAssertEqual(list(hub), [j0.index, j2.index])
        XCTAssertEqual(list(others[1]), [])
        let j4 = try rod(others[1], hub)
        XCTAssertEqual(j4.index, j1.index, "the freed index is reused")
        XCTAssertEqual(list(hub), [j0.index, j2.index, j4.index])
        try world.destroyJoint(j0)
        XCTAssertEqual(list(hub), [j2.index, j4.index])
        XCTAssertEqual(list(others[0]), [])
        try world.destroyBody(hub)
        for j in [j2, j4] { XCTAssertFalse(world.isValid(j)) }
        XCTAssertTrue(world.isValid(j3))
        XCTAssertEqual(list(others[1]), [])
        XCTAssertEqual(list(others[2]), [j3.index])
        XCTAssertEqual(list(others[3]), [j3.index])
        try world.step(dt: 1.0 / 60, substeps: 4)
        XCTAssertEqual(world.jointCount, 1)
    }
}

final class FieldSwarmTests: XCTestCase {
    /// The swarm's fields give SCENES.md's acceleration: radial K / max(r, 50)² inward plus 0.1·(−dy, dx).
    func test_fieldSwarmFields_matchTheScenesFormula() throws {
        let world = World()
        let (ids, _) = try world.build(.fieldSwarm(100))
        for id in ids { try world.setMaterial(id, restitution: 0, friction: 0, linearDamping: 0, angularDamping: 0, charge: 0) }
        let before = ids.map { world.origin(of: $0) }
        try world.step(dt: 1.0 / 60, substeps: 4)
        for (k, id) in ids.enumerated() {
            let d = before[k] - Vec2(1000, 1000)
            let r = length(d)
            let radial: Float = 4e7 / (max(r, 50) * max(r, 50))
            let expected = (r > 0 ? -radial * d / r : .zero) + 0.1 * Vec2(-d.y, d.x)
            let a = world.velocity(of: id) * 60
            XCTAssertEqual(a.x, expected.x, accuracy: 0.002 * max(length(expected), 1), "item \(k)")
            XCTAssertEqual(a.y, expected.y, accuracy: 0.002 * max(length(expected), 1), "item \(k)")
        }
    }
}

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
            // body comes near the centre, where the direction flips and rounding differences would grow.
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
            switch world.freeProgram {
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
}

/// Rigid distance joints solved four at a time from a colouring of the joint graph (WideJoints.swift).
final class WideJointTests: XCTestCase {
    func grid(wide: Bool, steps: Int) throws -> (World, SceneStatistics) {
        let world = World()
        if !wide { world.wideRodMinimum = .max }
        let scene = BenchmarkScene.jointGrid(12)
        let (items, links) = try world.build(scene)
        for _ in 0..<steps { try world.step(dt: 1.0 / 60, substeps: 4) }
        return (world, world.statistics(of: scene, items: items, links: links))
    }

    /// Every rod is in exactly one lane, and no two lanes of a batch touch the same awake body (the condition for
    /// solving them side by side).
    func test_colouring_putsEveryRodOnceAndNoSharedBodyInABatch() throws {
        let (world, _) = try grid(wide: true, steps: 1)
        let rods = 12 + 2 * 12 * 11
        XCTAssertTrue(world.scalarJoints.isEmpty, "every link of the grid is a rigid rod")
        XCTAssertTrue(world.wideRods.isEmpty, "the grid's links join item centres: every batch is a centre batch")
        var seen = Set<Int32>()
        let lanes = world.centreRods.map { ($0.joint, $0.entryA, $0.entryB) } + world.wideRods.map { ($0.joint, $0.entryA, $0.entryB) }
        for (joint, entryA, entryB) in lanes {
            var bodies = Set<Int32>()
            for l in 0..<4 where joint[l] >= 0 {
                XCTAssertTrue(seen.insert(joint[l]).inserted, "joint \(joint[l]) in two lanes")
                for e in [entryA[l], entryB[l]] where Int(e) < world.rodBodies.count {
                    XCTAssertTrue(bodies.insert(e).inserted, "two lanes of one batch share body entry \(e)")
                }
            }
        }
        XCTAssertEqual(seen.count, rods)
    }

    /// A hanging net whose links join points off the item centres (so the rods turn their items): the general
    /// wide batches, against the scalar path.
    func offCentreNet(wide: Bool, steps: Int) throws -> (maxError: Float, bottomY: Float, centreBatches: Int, batches: Int) {
        let world = World()
        if !wide { world.wideRodMinimum = .max }
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
        return (maxError, world.origin(of: ids[side - 1][0]).y, world.centreRods.count, world.wideRods.count)
    }

    func test_offCentreRods_useTheGeneralBatches_andHoldLikeTheScalarPath() throws {
        let scalar = try offCentreNet(wide: false, steps: 120)
        let wide = try offCentreNet(wide: true, steps: 120)
        XCTAssertEqual(wide.centreBatches, 0)
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
            world.wideRodMinimum = wide ? 1 : .max
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
            XCTAssertEqual(wide, !world.centreRods.isEmpty)
        }
    }

    /// The batches are kept from step to step while nothing they were built from changes; keeping them gives the
    /// same bits as rebuilding them every step. Editing a joint rebuilds them.
    func test_keptRodBatches_matchRebuildingThemEveryStep() throws {
        func run(rebuild: Bool) throws -> (World, [BodyID], [JointID]) {
            let world = World()
            let (items, links) = try world.build(BenchmarkScene.jointGrid(12))
            for _ in 0..<60 {
                if rebuild { world.rodLayoutDirty = true }
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

    /// The rods' impulses stay in their batches between steps; a joint record gets its impulse when the batches are
    /// rebuilt, or when the joint is destroyed, so a new joint taking its record starts from no impulse.
    func test_rodImpulses_reachTheRecordsBeforeARecordIsReused() throws {
        let world = World()
        let (items, links) = try world.build(BenchmarkScene.jointGrid(12))
        for _ in 0..<30 { try world.step(dt: 1.0 / 60, substeps: 4) }
        XCTAssertTrue(world.rodImpulsesPending, "the batches hold the newest impulses")
        let j = links[links.count / 2]
        var batchImpulse: Float?
        for b in world.centreRods { for l in 0..<4 where b.joint[l] == j.index { batchImpulse = b.impulse[l] } }
        for b in world.wideRods { for l in 0..<4 where b.joint[l] == j.index { batchImpulse = b.impulse[l] } }
        let impulse = try XCTUnwrap(batchImpulse, "the link is a wide rod")
        XCTAssertNotEqual(impulse, 0, "the hanging grid pulls on it")
        try world.destroyJoint(j)
        XCTAssertFalse(world.rodImpulsesPending)
        XCTAssertEqual(world.joints[Int(j.index)].axialImpulse.bitPattern, impulse.bitPattern)
        // A new joint takes the freed record and starts from rest; stepping again does not hand it the old impulse.
        var def = JointDefinition(kind: .distance, bodyA: items[0], bodyB: items[items.count - 1])
        def.length = 5; def.minLength = 5; def.maxLength = 5
        let fresh = try world.createJoint(def)
        XCTAssertEqual(fresh.index, j.index, "the record is reused")
        XCTAssertEqual(world.joints[Int(fresh.index)].axialImpulse, 0)
    }

    /// The wide path holds the grid as the scalar path does (only the order of the joints within a pass differs),
    /// and gives the same result on every run.
    func test_wideRods_holdTheGridLikeTheScalarPath_deterministically() throws {
        let (_, scalar) = try grid(wide: false, steps: 120)
        let (wideWorld, wide) = try grid(wide: true, steps: 120)
        XCTAssertFalse(wideWorld.centreRods.isEmpty, "the wide path ran")
        XCTAssertLessThan(wide.maxLinkError, 0.5)
        XCTAssertEqual(wide.maxLinkError, scalar.maxLinkError, accuracy: 0.02)
        XCTAssertEqual(wide.sag, scalar.sag, accuracy: 0.02 * abs(scalar.sag) + 0.02)
        let (_, again) = try grid(wide: true, steps: 120)
        XCTAssertEqual(wide.sag.bitPattern, again.sag.bitPattern)
        XCTAssertEqual(wide.maxLinkError.bitPattern, again.maxLinkError.bitPattern)
    }
}

/// A world whose class-1 bodies collide with each other, with a static floor of class 1 along y from x0 to x1
/// (solid below).
func floorWorld(y: Float, from x0: Float, to x1: Float) throws -> World {
    let world = World()
    world.setCollisionMatrix(classCount: 2) { a, b in a == 1 && b == 1 }
    var floor = BodyDefinition(); floor.type = .static; floor.collisionClass = 1
    floor.shapes = [ShapeDefinition(try .wall(from: Vec2(x0, y), to: Vec2(x1, y), outward: Vec2(0, 1)), mass: 0)]
    try world.createBody(floor)
    return world
}

/// Contact constraints solved four at a time from a colouring of the contact graph (WideContacts.swift).
final class WideContactTests: XCTestCase {
    func run(_ scene: BenchmarkScene, wide: Bool, hertz: Float = 30, steps: Int) throws -> (World, SceneStatistics) {
        var settings = WorldSettings()
        settings.contactHertz = hertz
        let world = try World(settings: settings)
        if !wide { world.wideContactMinimum = .max }
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
            if !wide { world.wideContactMinimum = .max }
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
                XCTAssertEqual(world.wideContacts.isEmpty, !wide || world.contacts.count < 16)
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
        // Every box bounced: after its first landing it rose again clear of the floor (resting, its centre is at 290).
        for (k, id) in ids.enumerated() {
            let ys = stride(from: k, to: wide.count, by: ids.count).map { wide[$0].y }
            guard let landing = ys.firstIndex(where: { $0 > 285 }) else { return XCTFail("box \(k) never landed") }
            XCTAssertLessThan(ys[landing...].min()!, 280, "box \(k) bounced")
            XCTAssertTrue(wideWorld.origin(of: id).y.isFinite)
        }
    }

    /// Every constraint is in exactly one lane, and no two lanes of a batch touch the same awake body (static
    /// bodies may be shared: nothing is written to them).
    func test_colouring_putsEveryContactOnceAndNoSharedAwakeBodyInABatch() throws {
        let (world, _) = try run(.pyramid(20), wide: true, steps: 2)
        XCTAssertFalse(world.wideContacts.isEmpty, "the wide path ran")
        let awake = Int32(world.bodies.awakeCount)
        var seen = Set<Int32>()
        for b in world.wideContacts {
            var bodies = Set<Int32>()
            for l in 0..<4 where b.constraint[l] >= 0 {
                XCTAssertTrue(seen.insert(b.constraint[l]).inserted, "constraint \(b.constraint[l]) in two lanes")
                let c = world.contacts[Int(b.constraint[l])]
                let slotA = world.bodies.slot[Int(c.bodyA)], slotB = world.bodies.slot[Int(c.bodyB)]
                for slot in [slotA, slotB] where slot < awake {
                    XCTAssertTrue(bodies.insert(slot).inserted, "two lanes of one batch share awake body slot \(slot)")
                }
                XCTAssertEqual(world.contactBodies[Int(b.entryA[l])], slotA)
                XCTAssertEqual(world.contactBodies[Int(b.entryB[l])], slotB)
            }
        }
        XCTAssertEqual(seen.count, world.contacts.count)
        XCTAssertTrue(world.constraints.isEmpty, "the wide path builds no scalar constraints")
    }

    /// The contact pass solves one, two or four batches of a colour side by side (4, 8 or 16 lanes, by processor):
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
                if !world.wideContacts.isEmpty { wideRan = true }
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

    /// A plank lying on 72 boxes has more contacts than there are colours: the contacts that find none (the
    /// overflow) become scalar constraints, solved before the batches in every pass, while the rest stay wide.
    /// Every contact is solved once, the overflow's impulses are kept for the next step's warm start, and the
    /// plank rests as on the all-scalar path, the same on every run.
    func test_colouringOverflow_solvesTheRestAsScalarConstraints() throws {
        func rest(wide: Bool, steps: Int) throws -> (world: World, plank: BodyID, trace: [Vec2]) {
            let world = try floorWorld(y: 500, from: -100, to: 1200)
            if !wide { world.wideContactMinimum = .max }
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
                    XCTAssertFalse(world.wideContacts.isEmpty, "step \(step): the batches ran")
                    XCTAssertFalse(world.constraints.isEmpty, "step \(step): 72 contacts at the plank overflow 64 colours")
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
        var seen = Array(repeating: 0, count: world.contacts.count)
        for b in world.wideContacts { for l in 0..<4 where b.constraint[l] >= 0 { seen[Int(b.constraint[l])] += 1 } }
        for c in world.constraints { seen[Int(c.contact)] += 1 }
        XCTAssertEqual(seen, Array(repeating: 1, count: world.contacts.count))
        // The overflow's impulses were stored for the warm start: every contact at the plank pushes.
        let plankIndex = Int32(plank.index)
        let atPlank = world.contacts.filter { $0.bodyA == plankIndex || $0.bodyB == plankIndex }
        XCTAssertEqual(atPlank.count, 72)
        for c in atPlank { XCTAssertGreaterThan(c.manifold.points.0.normalImpulse, 0) }
        for c in world.constraints { XCTAssertGreaterThan(world.contacts[Int(c.contact)].manifold.points.0.normalImpulse, 0) }
        // The plank rests on the boxes (its centre 10 points above their tops' 490), level, as on the scalar path.
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
        XCTAssertFalse(wideRainWorld.wideContacts.isEmpty, "the wide path ran")
        XCTAssertEqual(wideRain.outside, 0)
        XCTAssertEqual(wideRain.nonfinite, 0)
        XCTAssertEqual(wideRain.meanY, scalarRain.meanY, accuracy: 0.005 * scalarRain.meanY)
        let (_, again) = try run(.rain(300), wide: true, steps: 240)
        XCTAssertEqual(wideRain.meanY.bitPattern, again.meanY.bitPattern)
    }
}

/// Manifolds computed at reference poses and reused while neither body leaves its reference
/// (World+Narrowphase.swift).
final class ManifoldReuseTests: XCTestCase {
    /// Reusing last step's manifold gives what computing it again at the same reference poses gives: a rain
    /// settling into a pile and a pyramid, with reuse and without, agree to the bit at every step, and the pile's
    /// calm steps reuse most of their manifolds.
    func test_reusedManifolds_areTheOnesComputingAgainGives() throws {
        for scene in [BenchmarkScene.rain(300), .pyramid(20)] {
            func trace(reuse: Bool) throws -> (states: [UInt32], reused: [Int], contacts: [Int]) {
                let world = World()
                world.manifoldReuse = reuse
                let (items, _) = try world.build(scene)
                var states: [UInt32] = [], reused: [Int] = [], contacts: [Int] = []
                for _ in 0..<240 {
                    try world.step(dt: 1.0 / 60, substeps: 4)
                    reused.append(world.reusedManifoldCount); contacts.append(world.contactCount)
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
        XCTAssertEqual(world.reusedManifoldCount, 1, "a resting box keeps its manifold")
        let restingY = world.origin(of: box).y
        // Lifted by 0.02 points (within the tolerance of 0.05), with its velocity cleared.
        try world.setTransform(box, origin: Vec2(world.origin(of: box).x, restingY - 0.02), angle: 0)
        try world.setVelocity(box, .zero)
        let before = world.contacts[0].manifold.points.0.separation
        try world.step(dt: 1.0 / 60, substeps: 4)
        XCTAssertEqual(world.reusedManifoldCount, 0, "nothing is reused after the caller moved a body")
        let after = world.contacts[0].manifold.points.0
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
            let c = world.contacts[0]
            // The box's bottom face is 10 below its centre; the wall is at 300. Both points share the gap.
            let gap = 300 - (y + 10)
            for k in 0..<c.manifold.pointCount {
                XCTAssertEqual(c.manifold[k].separation, gap, accuracy: 1e-4, "step \(step), point \(k)")
            }
            reused += world.reusedManifoldCount
        }
        XCTAssertGreaterThan(reused, 10, "the resting box's steps reused its manifold")
    }
}

/// Bulk creation sizes the tables once.
final class CapacityTests: XCTestCase {
    /// Every contact is kept in the contact list (or its sleeping island), and last step's list in its twin while
    /// the narrowphase rebuilds it: its record is held to 112 bytes (the manifold's one-byte point count leaves room
    /// for the touching flag and the reach; the anchors are computed from the point when needed).
    func test_contactRecord_is112Bytes() {
        XCTAssertEqual(MemoryLayout<Contact>.stride, 112)
        var m = Manifold()
        m.pointCount = 2
        XCTAssertEqual(m.pointCount, 2)
    }

    /// A shape record is 24 bytes; a polygon's vertex run (kept in a segment's end point) reads back exactly,
    /// and segments and circles keep their points.
    func test_shapeRecord_is24Bytes_andKeepsEachKindsFields() {
        XCTAssertEqual(MemoryLayout<ShapeRecord>.stride, 24)
        for (start, count) in [(Int32(0), Int32(3)), (1, 4), (8_388_607, 8), (2_000_000_000, 5)] {
            var r = ShapeRecord(kind: .polygon, vertexStart: start, vertexCount: count, radius: 0, p0: .zero, p1: .zero)
            XCTAssertEqual(r.vertexStart, start)
            XCTAssertEqual(r.vertexCount, count)
            r.vertexStart = start / 2
            XCTAssertEqual(r.vertexStart, start / 2)
            XCTAssertEqual(r.vertexCount, count)
        }
        let segment = ShapeRecord(kind: .segment, vertexStart: 0, vertexCount: 2, radius: 0, p0: Vec2(1, 2), p1: Vec2(-3, 4))
        XCTAssertEqual(segment.p0, Vec2(1, 2))
        XCTAssertEqual(segment.p1, Vec2(-3, 4))
        let circle = ShapeRecord(kind: .circle, vertexStart: 0, vertexCount: 0, radius: 5, p0: Vec2(6, 7), p1: .zero)
        XCTAssertEqual(circle.radius, 5)
        XCTAssertEqual(circle.p0, Vec2(6, 7))
    }

    func test_reserveCapacity_sizesTheTablesExactly_andRefusesNegativeCounts() throws {
        let world = World()
        try world.reserveCapacity(bodies: 1001, shapes: 1001, vertices: 4004)
        for k in 0..<1001 { try world.createBody(.box(center: Vec2(Float(k) * 20, 0), width: 10, height: 10)) }
        XCTAssertEqual(world.bodies.position.capacity, 1004, "rounded up to a multiple of four, not doubled")
        XCTAssertEqual(world.bodies.slot.count, 1001)
        XCTAssertLessThan(world.bodies.slot.capacity, 1100)
        XCTAssertLessThan(world.polygonVertices.capacity, 4100)
        XCTAssertEqual(world.polygonVertices.count, 4, "equal boxes made one after another share one outline")
        XCTAssertTrue(world.shapes.allSatisfy { $0.vertexStart == 0 })
        // A different outline gets its own run; compaction keeps shared runs shared and every shape's outline.
        let odd = try world.createBody(.box(center: Vec2(0, 100), width: 30, height: 10))
        XCTAssertEqual(world.polygonVertices.count, 8)
        world.compactShapes()
        XCTAssertEqual(world.polygonVertices.count, 8)
        XCTAssertEqual(world.shapes[Int(world.bodies.shapeStart[Int(odd.index)])].vertexStart, 4)
        XCTAssertThrowsError(try world.reserveCapacity(bodies: -1, shapes: 0, vertices: 0)) { error in
            XCTAssertTrue("\(error)".contains("bodies"), "\(error)")
        }
    }
}

extension CapacityTests {
    /// The landing wave of rain needs several times the contacts of the pile that follows, and a pile asleep needs
    /// none: the step gives the contact tables back once their count falls below a quarter of their capacity, and
    /// every per-step table once nothing is awake.
    func test_contactTables_areGivenBackAfterTheLandingWave_andWhenThePileSleeps() throws {
        let world = World()
        _ = try world.build(.rain(1000))
        var peak = 0, eventPeak = 0
        var steps = 0
        while steps < 600 && (steps < 200 || world.awakeBodyCount > 0) {
            try world.step(dt: 1.0 / 60, substeps: 4)
            peak = max(peak, world.wideContacts.capacity)
            eventPeak = max(eventPeak, world.contactBeganEvents.capacity)
            steps += 1
        }
        // The events of the landing wave needed a large list, given back once the step's events are few.
        XCTAssertGreaterThan(eventPeak, 1024)
        XCTAssertLessThanOrEqual(world.contactBeganEvents.capacity, 1024)
        XCTAssertEqual(world.awakeBodyCount, 0, "the pile sleeps")
        XCTAssertGreaterThan(peak, 1024, "the landing wave needed a large table")
        // Tables at or below the floor of the policy (4,096 entries, 1,024 wide batches) are kept; the allocator's
        // rounding decides the exact capacities.
        XCTAssertLessThanOrEqual(world.contacts.capacity, 4096)
        XCTAssertLessThanOrEqual(world.contactHistory.capacity, 4096)
        XCTAssertLessThanOrEqual(world.constraints.capacity, 4096)
        XCTAssertLessThanOrEqual(world.wideContacts.capacity, 1024)
        // One more step at rest: every per-step table is given back; the bodies, the static grid and the
        // sleeping islands (with their contacts) are all a resting world keeps.
        try world.step(dt: 1.0 / 60, substeps: 4)
        let tables: [(String, Int)] = [
            ("contacts", world.contacts.capacity), ("contactHistory", world.contactHistory.capacity),
            ("constraints", world.constraints.capacity), ("wideContacts", world.wideContacts.capacity),
            ("pairs", world.pairs.capacity), ("cellEntries", world.cellEntries.capacity),
            ("contactBodyColours", world.contactBodyColours.capacity), ("contactBodyEntry", world.contactBodyEntry.capacity),
            ("contactVelocity", world.contactVelocity.capacity), ("unionParent", world.unionParent.capacity),
            ("bucketCounts", world.bucketCounts.capacity), ("sortScratch", world.sortScratch.capacity)]
        for (name, capacity) in tables { XCTAssertEqual(capacity, 0, "\(name) is given back at rest") }
        let islandContacts = world.islands.reduce(0) { $0 + $1.contacts.count }
        XCTAssertGreaterThan(islandContacts, 1000, "the sleeping islands keep their contacts")
        // Waking the pile grows the tables back, and it settles again.
        world.wakeAll()
        var touched = 0
        for _ in 0..<400 where world.awakeBodyCount > 0 {
            try world.step(dt: 1.0 / 60, substeps: 4)
            touched = max(touched, world.contacts.count)
        }
        XCTAssertGreaterThan(touched, 1000, "the woken pile's contacts are solved again")
        XCTAssertEqual(world.awakeBodyCount, 0, "and it sleeps again")
        XCTAssertGreaterThan(world.islands.reduce(0) { $0 + $1.contacts.count }, 1000, "with its contacts kept")
    }
}

/// The broadphase's sorts against the standard library's.
final class SortTests: XCTestCase {
    func test_radixAndBucketSorts_matchTheStandardSort() {
        var rng = SplitMix64(state: 12345)
        var scratch: [UInt64] = [], counts: [Int] = [], buckets: [Int32] = []
        for n in [0, 1, 5, 127, 128, 1000, 5000] {
            // Pairs: lower id in the high half, higher id in the low half, with repeats.
            let ids = max(n / 3, 2)
            var pairs = (0..<n).map { _ -> UInt64 in
                let a = UInt64.random(in: 0..<UInt64(ids), using: &rng), b = UInt64.random(in: 0..<UInt64(ids), using: &rng)
                return min(a, b) << 32 | max(a, b)
            }
            let expected = pairs.sorted()
            var radix = pairs
            radixSort(&radix, scratch: &scratch, counts: &counts)
            XCTAssertEqual(radix, expected)
            bucketSort(&pairs, counts: &buckets, bucketCount: ids) { Int($0 >> 32) }
            XCTAssertEqual(pairs, expected)
            // Cell entries: by cell, then slot, whatever order the swaps leave within a cell.
            var entries: [UInt64] = []
            for s in 0..<n { entries.append(UInt64.random(in: 0..<40, using: &rng) << 32 | UInt64(s)) }
            entries.shuffle(using: &rng)
            let byCell = entries.sorted()
            bucketSort(&entries, counts: &buckets, bucketCount: 40) { Int($0 >> 32) }
            XCTAssertEqual(entries, byCell)
        }
    }
}

/// The separating-axis search of the narrowphase.
final class CollideTests: XCTestCase {
    /// Up to four vertices are tested four lanes at once: the same edge and separation as one vertex at a time, for
    /// segments, triangles and boxes in many poses, touching, overlapping and apart (stale values past the vertex
    /// count in the buffer must not count).
    func test_fourLaneSeparation_matchesTheScalarSearch() {
        let n = maxPolygonVertices
        let buffer = UnsafeMutablePointer<Vec2>.allocate(capacity: 4 * n)
        defer { buffer.deallocate() }
        var state: UInt32 = 12345
        func unit() -> Float { state = state &* 1664525 &+ 1013904223; return Float(state >> 8) / Float(1 << 24) }
        func polygon(_ base: UnsafeMutablePointer<Vec2>, sides: Int, at c: Vec2, angle: Float, size: Float) -> WorldPolygon {
            let verts = base, normals = base + n
            // Stale values past the count.
            for k in 0..<n { verts[k] = Vec2(1e6 * unit(), -1e6 * unit()); normals[k] = Vec2(unit(), unit()) }
            let q = Rot(angle: angle)
            let local: [Vec2]
            switch sides {
            case 2: local = [Vec2(-size, 0), Vec2(size, 0)]
            case 3: local = [Vec2(-size, -size), Vec2(size, -size), Vec2(0, size)]
            default: local = [Vec2(-size, -size), Vec2(size, -size), Vec2(size, size), Vec2(-size, size)]
            }
            for k in 0..<sides { verts[k] = c + q.rotate(local[k]) }
            for k in 0..<sides {
                let e = verts[k + 1 == sides ? 0 : k + 1] - verts[k]
                normals[k] = sides == 2 && k == 1 ? -normals[0] : normalized(rightPerp(e))
            }
            return WorldPolygon(vertices: verts, normals: normals, count: sides)
        }
        var compared = 0
        for _ in 0..<3000 {
            let sa = [2, 3, 4][Int(unit() * 3)], sb = [2, 3, 4][Int(unit() * 3)]
            let a = polygon(buffer, sides: sa, at: Vec2(100 * unit(), 100 * unit()), angle: 7 * unit(), size: 5 + 20 * unit())
            let b = polygon(buffer + 2 * n, sides: sb, at: Vec2(100 * unit(), 100 * unit()), angle: 7 * unit(), size: 5 + 20 * unit())
            for (p, q) in [(a, b), (b, a)] {
                let wide = findMaxSeparation(p, q), scalar = findMaxSeparationScalar(p, q)
                XCTAssertEqual(wide.edge, scalar.edge)
                XCTAssertEqual(wide.separation, scalar.separation)
                compared += 1
            }
        }
        XCTAssertEqual(compared, 6000)
    }
}
