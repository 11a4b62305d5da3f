extension World {
    /// Loads a shape of a body into world coordinates. Returns false for a circle (handled separately).
    @inline(__always)
    static func loadPolygon(_ shape: ShapeRecord, position p: Vec2, rotation q: Rotation, into out: inout WorldPolygon,
                            vertices pv: UnsafeBufferPointer<Vec2>, normals pn: UnsafeBufferPointer<Vec2>) {
        switch shape.kind {
        case .polygon:
            let vs = Int(shape.vertexStart), n = Int(shape.vertexCount)
            for k in 0..<n {
                out.vertices[k] = p + q.rotate(pv[vs + k])
                out.normals[k] = q.rotate(pn[vs + k])
            }
            out.count = n
        case .segment:
            let a = p + q.rotate(shape.p0), b = p + q.rotate(shape.p1)
            let nrm = normalized(leftPerp(b - a))
            out.vertices[0] = a; out.vertices[1] = b
            out.normals[0] = nrm; out.normals[1] = -nrm
            out.count = 2
        case .circle:
            out.count = 0
        }
    }

    /// Manifold between shape `a` of the body at (pA, qA) and shape `b` of the body at (pB, qB); normal from a to b.
    /// `aLoaded`: the scratch's first polygon holds `a` at (pA, qA) already (a polygon or segment `a` is left there,
    /// and nothing else is written there: pairs are sorted by their first body, so consecutive pairs often share it).
    @inline(__always)
    static func collide(_ a: ShapeRecord, _ pA: Vec2, _ qA: Rotation, _ b: ShapeRecord, _ pB: Vec2, _ qB: Rotation, speculativeReach: Float,
                        linearSlop: Float, scratch: UnsafeMutablePointer<Vec2>, aLoaded: Bool,
                        vertices pv: UnsafeBufferPointer<Vec2>, normals pn: UnsafeBufferPointer<Vec2>) -> Manifold {
        let n = maxPolygonVertices
        var scratchPolygonA = WorldPolygon(vertices: scratch, normals: scratch + n, count: 0)
        var scratchPolygonB = WorldPolygon(vertices: scratch + 2 * n, normals: scratch + 3 * n, count: 0)
        @inline(__always) func loadA() {
            if aLoaded {
                scratchPolygonA.count = a.kind == .segment ? 2 : Int(a.vertexCount)
            } else {
                World.loadPolygon(a, position: pA, rotation: qA, into: &scratchPolygonA, vertices: pv, normals: pn)
            }
        }
        switch (a.kind, b.kind) {
        case (.circle, .circle):
            return collideCircles(centerA: pA + qA.rotate(a.p0), radiusA: a.radius,
                                  centerB: pB + qB.rotate(b.p0), radiusB: b.radius, speculativeReach: speculativeReach)
        case (.circle, _):
            World.loadPolygon(b, position: pB, rotation: qB, into: &scratchPolygonB, vertices: pv, normals: pn)
            var m = collidePolygonCircle(scratchPolygonB, center: pA + qA.rotate(a.p0), radius: a.radius, speculativeReach: speculativeReach)
            m.normal = -m.normal
            return m
        case (_, .circle):
            loadA()
            return collidePolygonCircle(scratchPolygonA, center: pB + qB.rotate(b.p0), radius: b.radius, speculativeReach: speculativeReach)
        default:
            loadA()
            World.loadPolygon(b, position: pB, rotation: qB, into: &scratchPolygonB, vertices: pv, normals: pn)
            return collidePolygons(scratchPolygonA, scratchPolygonB, speculativeReach: speculativeReach, linearSlop: linearSlop)
        }
    }

    /// How far a pair (slots sa and sb, sa of the lower body id) can close this step plus the speculative margin
    /// (`speculativeReach`), the spin part of it, and whether the pair is out of that reach: by bounding circles, and, given
    /// the unswept boxes (`tight`, two awake bodies), by those (a gap wider than the reach along x or y bounds the
    /// shapes' distance, so no contact point could be kept). The broadphase drops the pairs out of reach, two awake
    /// bodies by both tests, a body against a static or sleeping one by their circles, and hands the narrowphase
    /// the reach of the others (`pairReach`).
    @inline(__always)
    static func reach(_ sa: Int, _ sb: Int, dt: Float, margin: Float, pos: UnsafeMutablePointer<Vec2>,
                      vel: UnsafeMutablePointer<Vec2>, angVel: UnsafeMutablePointer<Float>, ext: UnsafeMutablePointer<Float>,
                      grav: UnsafeMutablePointer<Vec2>, tight: UnsafePointer<AABB>?) -> (apart: Bool, spin: Float, speculativeReach: Float) {
        let spin = abs(angVel[sa]) * ext[sa] + abs(angVel[sb]) * ext[sb]
        var closing = length(vel[sb] - vel[sa]) + spin
        closing += length(grav[sb] - grav[sa]) * dt
        let speculativeReach = margin + closing * dt
        var apart = length(pos[sb] - pos[sa]) - ext[sa] - ext[sb] > speculativeReach
        if !apart, let tight {
            let a = tight[sa], b = tight[sb]
            let gap = Swift.max(Swift.max(a.lower.x - b.upper.x, b.lower.x - a.upper.x),
                                Swift.max(a.lower.y - b.upper.y, b.lower.y - a.upper.y))
            apart = gap > speculativeReach
        }
        return (apart, spin, speculativeReach)
    }

    /// How far a body may move (or a point at its extent turn) from its reference pose before the manifolds of
    /// its pairs are computed again: a tenth of the linear slop.
    @inline(__always) static func manifoldTolerance(linearSlop: Float) -> Float { 0.1 * linearSlop }
    /// A manifold's reach beyond the speculative distance is rounded up to whole steps of half the linear slop
    /// (`Contact.reach`), so that a pair whose closing speed wavers keeps the reach it was computed with.
    @inline(__always) static func reachUnit(linearSlop: Float) -> Float { 0.5 * linearSlop }
    static let noReach: UInt8 = .max

    /// `units` (not negative) rounded up to a whole number of reach units, or `noReach` from 255 on (and for NaN).
    /// Rounded by hand: the same as `rounded(.up)` for these values, without its library call per pair (x86-64's
    /// baseline has no rounding instruction).
    @inline(__always) static func wholeReachUnits(_ units: Float) -> UInt8 {
        guard units < Float(noReach) else { return noReach }
        let whole = UInt8(units)
        return Float(whole) < units ? whole + 1 : whole
    }

    /// Keeps each awake body's reference pose (`referencePose`): a body that has moved or turned more than
    /// `manifoldTolerance` from it, or every body when the slots, the world's pair rules or the awake count have
    /// changed since the last narrowphase, takes its present pose, and is marked in `referenceMoved`. Returns
    /// whether the references held over from the last step (false: every body took its pose, and no manifold is
    /// reused this step).
    func updateReferencePoses(tolerance: Float) -> Bool {
        return bodies.withColumns { columns in
            let n = bodies.awakeCount
            let held = contactStore.referenceState.valid && contactStore.referenceState.slots == bodies.slotVersion
                && contactStore.referenceState.pairs == broadphase.pairCacheVersion && contactStore.referenceState.awake == n
            contactStore.referencePose.reserve(n, count: held ? n : 0)
            contactStore.referenceMoved.reserve(n, count: 0)
            let ref = contactStore.referencePose, moved = contactStore.referenceMoved
            let pos = columns.position, rot = columns.rotation, ext = columns.extent
            let tolerance2 = tolerance * tolerance
            // Each body writes its own slots: in blocks on the workers for many bodies.
            forEachBlock(count: n, minimumBlock: 2048, parallelMinimum: workers.parallelRestTest) { range in
                for s in range {
                    let p = pos[s], q = rot[s]
                    var leaves = true
                    if held {
                        let r = ref[s]
                        let dx = p.x - r[0], dy = p.y - r[1]
                        // The sine and cosine of the turn since the reference; a point at the body's extent moves
                        // extent × |sin| across (and the cosine rules out turns past a quarter).
                        let sine = r[2] * q.s - r[3] * q.c, cosine = r[2] * q.c + r[3] * q.s
                        leaves = dx * dx + dy * dy > tolerance2 || abs(sine) * ext[s] > tolerance || cosine <= 0
                    }
                    if leaves { ref[s] = SIMD4(p.x, p.y, q.c, q.s) }
                    moved[s] = leaves ? 1 : 0
                }
            }
            contactStore.referenceState = (bodies.slotVersion, broadphase.pairCacheVersion, n, true)
            return held
        }
    }

    /// Stage 3b: manifolds for every candidate pair, merged with last step's contacts (both sorted by key) for
    /// warm starting and touch events. Sleeping islands that an awake body reaches are woken here.
    ///
    /// Manifolds are computed at the bodies' reference poses (`updateReferencePoses`), and each point's separation
    /// is then carried to the present poses: each body's motion since its reference, its turn taken to first order
    /// (a point moves by the body's displacement plus sin(turn) × its offset, turned a quarter), along the normal.
    /// A pair's reach (`World.reach`) is rounded up to whole steps of `reachUnit`, and a pair whose bodies both
    /// kept their references keeps last step's reach while it needs no longer one. So while neither body leaves
    /// its reference (a pile at rest, a stack, items sliding slowly), computing the manifold again would give last
    /// step's to the bit, and the narrowphase takes last step's instead. Only the separations, relative
    /// velocities, impulses and events are new.
    ///
    /// Last step's contacts are read from `contactHistory`, the list's twin buffer, while the list is rebuilt.
    func narrowphase(dt: Float) {
        // No candidate pair and no contact from last step (nothing collides, or nothing is near anything): no
        // manifold, no event, no island to wake, and no references kept.
        if broadphase.pairs.isEmpty && contactStore.contacts.isEmpty {
            contactStore.referenceState.valid = false
            contactStore.reusedManifoldCount = 0
            islandStore.wakeList.removeAll(keepingCapacity: true)
            return
        }
        bodies.withColumns { columns in
            if contactStore.needsSort { contactStore.contacts.sort(by: <); contactStore.needsSort = false }
            let history = self.contactStore.contacts; self.contactStore.contacts = []
            var contacts = self.contactStore.history; self.contactStore.history = []
            var ended = self.contactEndedEvents; self.contactEndedEvents = []
            var began = self.contactBeganEvents; self.contactBeganEvents = []
            var wakeList = self.islandStore.wakeList; self.islandStore.wakeList = []
            // The list's records are overwritten in place when the workers join their chunks (below); else it is
            // emptied before it is filled.
            // At most one contact per candidate pair of one-shape bodies: sized for that at once (`grownCapacity`).
            let pairCount = self.broadphase.pairs.count
            let capacity = contacts.capacity < pairCount ? grownCapacity(pairCount, from: contacts.capacity) : contacts.capacity
            wakeList.removeAll(keepingCapacity: true)
            let generation = bodies.generation, materials = bodies.materials
            let sleepingIsland = bodies.sleepingIsland
            @inline(__always) func endedEvent(_ c: Contact) -> ContactEndedEvent {
                let a = Int(c.bodyPair >> 32), b = Int(c.bodyPair & 0xFFFF_FFFF)
                return ContactEndedEvent(bodyA: BodyID(index: Int32(a), generation: generation[a]),
                                         bodyB: BodyID(index: Int32(b), generation: generation[b]),
                                         shapeA: Int(c.shapePair >> 16), shapeB: Int(c.shapePair & 0xFFFF))
            }
            let slop = settings.linearSlop
            let scratch = scratchPolygons
            let beginTouch = slop            // touching starts at this separation or less
            let endTouch = 3 * slop          // and ends above this (hysteresis against flicker)
            let margin = settings.speculativeDistance
            let tolerance = World.manifoldTolerance(linearSlop: slop)
            let reachUnit = World.reachUnit(linearSlop: slop), perReachUnit = 1 / reachUnit
            let pos = columns.position, rot = columns.rotation, vel = columns.velocity
            let angVel = columns.angularVelocity, grav = columns.gravity
            let awakeCount = bodies.awakeCount
            let oldCount = history.count
            // References are kept, and manifolds reused, in a calm scene only (as the broadphase keeps its candidates):
            // elsewhere each body's reference is its present pose, and a scene in motion pays no memory or upkeep.
            let calm = !self.broadphase.pairs.isEmpty && broadphase.fatGrid.calmSteps > World.calmStepsToKeep
            let held = calm ? updateReferencePoses(tolerance: tolerance) : false
            if !calm { contactStore.referenceState.valid = false }
            let referenceCount = calm ? awakeCount : 0
            let ref = contactStore.referencePose, moved = contactStore.referenceMoved
            let reuse = contactStore.manifoldReuse
            var reused = 0
            /// Slot s's reference pose (a static or sleeping body's present one: it has not moved).
            @inline(__always) func reference(_ s: Int) -> (p: Vec2, q: Rotation) {
                guard s < referenceCount else { return (pos[s], rot[s]) }
                let r = ref[s]
                return (Vec2(r[0], r[1]), Rotation(c: r[2], s: r[3]))
            }

            // The columns read per pair, as raw buffers (no bounds checks in the loop).
            self.broadphase.pairs.withUnsafeBufferPointer { pairs in
            self.shapeStore.records.withUnsafeBufferPointer { shapes in
            bodies.slot.withUnsafeBufferPointer { slot in
            bodies.material.withUnsafeBufferPointer { material in
            bodies.shapeStart.withUnsafeBufferPointer { shapeStart in
            bodies.shapeCount.withUnsafeBufferPointer { shapeCount in
            shapeStore.polygonVertices.withUnsafeBufferPointer { pv in
            shapeStore.polygonNormals.withUnsafeBufferPointer { pn in
            history.withUnsafeBufferPointer { old in
            broadphase.pairReach.withUnsafeBufferPointer { reaches in
                /// The pairs of `range` merged with last step's contacts `oldFrom ..< oldTo` (those whose keys fall
                /// within the range's, and after its last key up to the next range's first) into `merge`, with the
                /// islands to wake into `wakeList`; `scratch` holds the polygons of non-quad shapes.
                func mergeRange(_ range: Range<Int>, _ oldFrom: Int, _ oldTo: Int, _ merge: inout NarrowphaseMerge,
                                _ wakeList: inout [Int32], _ scratch: UnsafeMutablePointer<Vec2>) {
                var oi = oldFrom
                var mixedOf: (Int32, Int32) = (.min, .min)
                var mixedFriction: Float = 0, mixedRestitution: Float = 0
                for p in range {
                    let key = pairs[p]
                    while oi < oldTo && old[oi].bodyPair < key {
                        if old[oi].touching { merge.ended.append(endedEvent(old[oi])) }
                        oi += 1
                    }
                    let oldStart = oi
                    while oi < oldTo && old[oi].bodyPair == key { oi += 1 }
                    let ia = Int(key >> 32), ib = Int(key & 0xFFFF_FFFF)
                    let sa = Int(slot[ia]), sb = Int(slot[ib])
                    let pA = pos[sa], pB = pos[sb]
                    let (rA, rqA) = reference(sa), (rB, rqB) = reference(sb)
                    // Each body's motion since its reference: displacement and the sine of its turn.
                    let dA = pA - rA, dB = pB - rB
                    let turnA = rqA.c * rot[sa].s - rqA.s * rot[sa].c, turnB = rqB.c * rot[sb].s - rqB.s * rot[sb].c
                    let spin = reaches[p].spin, speculativeReach = reaches[p].speculativeReach
                    // The reach in whole units (or none, beyond 254 of them).
                    let reachNow = World.wholeReachUnits((speculativeReach - margin) * perReachUnit)
                    // Last step's reach, and manifolds, may stand while both references held.
                    let kept = held && !(sa < awakeCount && moved[sa] != 0) && !(sb < awakeCount && moved[sb] != 0)
                    // The mixed friction and restitution of the last pair of materials, kept: consecutive pairs (and
                    // most pairs of a scene) share their materials.
                    let materialA = material[ia], materialB = material[ib]
                    if materialA != mixedOf.0 || materialB != mixedOf.1 {
                        let surfaceA = materials[Int(materialA)], surfaceB = materials[Int(materialB)]
                        mixedFriction = (surfaceA.friction * surfaceB.friction).squareRoot()
                        mixedRestitution = Swift.max(surfaceA.restitution, surfaceB.restitution)
                        mixedOf = (materialA, materialB)
                    }
                    let startA = Int(shapeStart[ia]), countA = Int(shapeCount[ia])
                    let startB = Int(shapeStart[ib]), countB = Int(shapeCount[ib])
                    merge.anyPoints = false
                    let friction = mixedFriction, restitution = mixedRestitution, oldEnd = oi
                    /// Shape `la` of A against shape `lb` of B: their manifold, merged with last step's contact of the
                    /// two shapes. (It captures constants only; what it changes comes `inout`.)
                    @inline(__always) func meet(_ la: Int, _ lb: Int, _ s: inout NarrowphaseMerge) {
                        let lo = UInt32(la) << 16 | UInt32(lb)
                        var previous: Int = -1
                        for k in oldStart..<oldEnd where old[k].shapePair == lo { previous = k; break }
                        let m: Manifold
                        // Last step's reach stands while both references held and it is long enough; then so does its
                        // manifold (computing it again would give the same).
                        let standing = kept && previous >= 0 && old[previous].reach != World.noReach
                            && old[previous].reach >= reachNow
                        let reach = standing ? old[previous].reach : reachNow
                        let collideReach = reach == World.noReach ? speculativeReach : margin + Float(reach) * reachUnit
                        let fresh: Bool
                        if reuse && standing {
                            m = old[previous].manifold
                            s.reused += 1
                            fresh = false
                        } else {
                            let shapeA = shapes[startA + la]
                            let shapeB = shapes[startB + lb]
                            if shapeA.kind == .polygon && shapeB.kind == .polygon && shapeA.vertexCount == 4 && shapeB.vertexCount == 4 {
                                // Two quads (boxes) meet in registers.
                                if s.quadA != startA + la {
                                    let vs = Int(shapeA.vertexStart)
                                    s.worldQuadA = WorldQuad(vertices: pv.baseAddress! + vs, normals: pn.baseAddress! + vs, p: rA, q: rqA)
                                    s.quadA = startA + la
                                }
                                let vs = Int(shapeB.vertexStart)
                                let worldQuadB = WorldQuad(vertices: pv.baseAddress! + vs, normals: pn.baseAddress! + vs, p: rB, q: rqB)
                                m = collideQuads(s.worldQuadA, worldQuadB, speculativeReach: collideReach, linearSlop: slop)
                            } else {
                                m = World.collide(shapeA, rA, rqA, shapeB, rB, rqB, speculativeReach: collideReach, linearSlop: slop,
                                                  scratch: scratch, aLoaded: s.loadedA == startA + la, vertices: pv, normals: pn)
                                if shapeA.kind != .circle { s.loadedA = startA + la }
                            }
                            fresh = true
                        }
                        // The manifold is copied into the contact list once, as computed, and its points are then
                        // completed there field by field: a copy read back whole just after some of its fields were
                        // written would wait for those writes (the processor cannot forward several narrow writes to
                        // one wide read).
                        let pointCount = m.pointCount, normal = m.normal
                        // Each point's separation at the present poses: the points of A and B there moved with their
                        // bodies since the references (a fresh manifold's separations are at the references).
                        @inline(__always) func present(_ q: ManifoldPoint) -> Float {
                            let moveA = dA + turnA * leftPerp(q.point - rA), moveB = dB + turnB * leftPerp(q.point - rB)
                            return (fresh ? q.separation : q.referenceSeparation) + dot(normal, moveB - moveA)
                        }
                        let separation0 = pointCount > 0 ? present(m.points.0) : .infinity
                        let separation1 = pointCount > 1 ? present(m.points.1) : .infinity
                        let sep = Swift.min(separation0, separation1)
                        // The speculative reach used above bounds the approach in any direction; keep the contact
                        // only if the pair can close its gap along this normal within the step, so items moving past
                        // each other do not fill the solver with contacts that cannot touch.
                        var keep = pointCount > 0
                        if keep {
                            let approach = -dot(normal, vel[sb] - vel[sa]) - dt * dot(normal, grav[sb] - grav[sa])
                            let reach = margin + dt * (Swift.max(approach, 0) + spin)
                            if sep > reach { keep = false }
                        }
                        let wasTouching = previous >= 0 && old[previous].touching
                        if !keep {
                            if wasTouching { s.ended.append(endedEvent(old[previous])) }
                            return
                        }
                        s.anyPoints = true
                        let touching = wasTouching ? sep <= endTouch : sep <= beginTouch
                        if touching && !wasTouching {
                            s.began.append(ContactBeganEvent(
                                bodyA: BodyID(index: Int32(ia), generation: generation[ia]),
                                bodyB: BodyID(index: Int32(ib), generation: generation[ib]),
                                shapeA: la, shapeB: lb, point: m.points.0.point, normal: normal))
                        } else if !touching && wasTouching {
                            s.ended.append(endedEvent(old[previous]))
                        }
                        s.contacts.append(Contact(bodyPair: key, shapePair: lo, manifold: m, friction: friction,
                                                restitution: restitution, touching: touching, reach: reach))
                        let vA = vel[sa], wA = angVel[sa], vB = vel[sb], wB = angVel[sb]
                        s.contacts.withUnsafeMutableBufferPointer { list in
                            let c = list.baseAddress! + (list.count - 1)
                            if fresh {
                                c.pointee.manifold.points.0.referenceSeparation = m.points.0.separation
                                c.pointee.manifold.points.1.referenceSeparation = m.points.1.separation
                            }
                            // The present separation, anchors and relative velocity; then the warm-start impulses.
                            @inline(__always) func complete(_ p: inout ManifoldPoint, _ separation: Float) {
                                p.separation = separation
                                let vrA = vA + cross(wA, p.anchorA(from: pA, normal: normal))
                                let vrB = vB + cross(wB, p.anchorB(from: pB, normal: normal))
                                // What restitution may reflect. A point overlapping by more than the slop is being
                                // pushed apart, not struck: the push's leftover speed (the relax pass removes it only
                                // where one iteration converges, not in a clump of items created on top of each other)
                                // would come back as a bounce, and elastic items would feed on it up to the speed limit.
                                p.relativeVelocity = separation < -slop ? 0 : dot(normal, vrB - vrA)
                                p.normalImpulse = 0; p.tangentImpulse = 0; p.maxNormalImpulse = 0
                            }
                            complete(&c.pointee.manifold.points.0, separation0)
                            if pointCount > 1 { complete(&c.pointee.manifold.points.1, separation1) }
                            let previousPoints = previous >= 0 ? old[previous].manifold.pointCount : 0
                            if previousPoints > 0 {
                                // By feature id, reading the previous manifold's points in place (the common case: all
                                // points found); else by place as well.
                                let ids = World.carryImpulsesByID(from: old[previous].manifold.points, count: previousPoints, to: &c.pointee.manifold)
                                if !ids.all { World.carryImpulsesByPlace(from: old[previous].manifold, to: &c.pointee.manifold, after: ids, within: slop) }
                            }
                        }
                    }
                    if countA == 1 && countB == 1 {
                        // One shape each, the common case, outside the loops (whose invariants the compiler would
                        // otherwise hoist to the pair and keep on the stack).
                        meet(0, 0, &merge)
                    } else {
                        for la in 0..<countA {
                            for lb in 0..<countB { meet(la, lb, &merge) }
                        }
                    }
                    // An awake body reaching a sleeping one wakes its island.
                    if merge.anyPoints {
                        if sa >= awakeCount, sleepingIsland[ia] >= 0 { wakeList.append(sleepingIsland[ia]) }
                        if sb >= awakeCount, sleepingIsland[ib] >= 0 { wakeList.append(sleepingIsland[ib]) }
                    }
                }
                while oi < oldTo {
                    if old[oi].touching { merge.ended.append(endedEvent(old[oi])) }
                    oi += 1
                }
                }

                var merge = NarrowphaseMerge(contacts: contacts, ended: ended, began: began)
                contacts = []; ended = []; began = []
                defer { contacts = merge.contacts; ended = merge.ended; began = merge.began; reused = merge.reused }
                guard let executor = executor(work: pairs.count, minimum: workers.parallelPairs) else {
                    merge.contacts.removeAll(keepingCapacity: true)
                    merge.contacts.reserveCapacity(capacity)
                    mergeRange(0..<pairs.count, 0, oldCount, &merge, &wakeList, scratch)
                    return
                }
                // In chunks of consecutive pairs, each merged with the part of last step's list its keys reach, into
                // lists of its own, then joined in chunk order: the same lists as one pass makes.
                let chunks = contactStore.narrowphaseChunks()
                let perChunk = Swift.max(Swift.min(WorkerState.pairChunk, workers.parallelPairs / 2), (pairs.count + WorkerState.maximumBlocks - 1) / WorkerState.maximumBlocks)
                let chunkCount = (pairs.count + perChunk - 1) / perChunk
                /// The first of last step's contacts whose key is not below `key`.
                func firstOld(atLeast key: UInt64) -> Int {
                    var lo = 0, hi = oldCount
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        if old[mid].bodyPair < key { lo = mid + 1 } else { hi = mid }
                    }
                    return lo
                }
                runParallel(executor, chunkCount) { k in
                    let from = k * perChunk, to = Swift.min(from + perChunk, pairs.count)
                    let oldFrom = k == 0 ? 0 : firstOld(atLeast: pairs[from])
                    let oldTo = to == pairs.count ? oldCount : firstOld(atLeast: pairs[to])
                    let chunk = chunks.lists + k
                    var part = NarrowphaseMerge(contacts: chunk.pointee.contacts, ended: chunk.pointee.ended,
                                                began: chunk.pointee.began)
                    var wake = chunk.pointee.wake
                    chunk.pointee = NarrowphaseChunk()
                    part.contacts.removeAll(keepingCapacity: true)
                    part.ended.removeAll(keepingCapacity: true)
                    part.began.removeAll(keepingCapacity: true)
                    wake.removeAll(keepingCapacity: true)
                    mergeRange(from..<to, oldFrom, oldTo, &part, &wake, chunks.scratch + k * 4 * maxPolygonVertices)
                    chunk.pointee = NarrowphaseChunk(contacts: part.contacts, ended: part.ended, began: part.began,
                                                     wake: wake, reused: part.reused)
                }
                // The chunks' contacts are copied into the list on the workers, each to its place in chunk order: the
                // list keeps its old records (no deinitialization, nothing to free) and is cut or grown within its
                // capacity to the total first, so only that growth is written on the caller's thread.
                let place = workers.blockCounts
                var total = 0
                for k in 0..<chunkCount { place[k] = total; total += chunks.lists[k].contacts.count }
                /// Copies the chunks' contacts to `base` (a contact is plain data: copying over a record or into
                /// uninitialized memory is the same write).
                func copyChunks(to base: UnsafeMutablePointer<Contact>) {
                    runParallel(executor, chunkCount) { k in
                        chunks.lists[k].contacts.withUnsafeBufferPointer { part in
                            if let from = part.baseAddress { (base + place[k]).update(from: from, count: part.count) }
                        }
                    }
                }
                if Swift.max(total, capacity) > merge.contacts.capacity {
                    // A list to be grown is replaced: growing it would copy its stale records and fill the rest on
                    // the caller's thread (for a few thousand contacts, a megabyte written and its pages faulted in
                    // serially). The new buffer is written once, by the workers' copies.
                    merge.contacts = [Contact](unsafeUninitializedCapacity: Swift.max(total, capacity)) { list, count in
                        if let base = list.baseAddress { copyChunks(to: base) }
                        count = total
                    }
                } else {
                    if merge.contacts.count > total {
                        merge.contacts.removeLast(merge.contacts.count - total)
                    } else if merge.contacts.count < total {
                        merge.contacts.append(contentsOf: repeatElement(Contact.unused, count: total - merge.contacts.count))
                    }
                    merge.contacts.withUnsafeMutableBufferPointer { list in if let base = list.baseAddress { copyChunks(to: base) } }
                }
                for k in 0..<chunkCount {
                    let chunk = chunks.lists[k]
                    merge.ended.append(contentsOf: chunk.ended)
                    merge.began.append(contentsOf: chunk.began)
                    wakeList.append(contentsOf: chunk.wake)
                    merge.reused += chunk.reused
                }
            }
            }
            }
            }
            }
            }
            }
            }
            }
            }
            self.contactStore.contacts = contacts
            self.contactStore.history = history
            contactStore.reusedManifoldCount = reused
            self.contactEndedEvents = ended
            self.contactBeganEvents = began
            self.islandStore.wakeList = wakeList
            if !wakeList.isEmpty {
                wakeList.sort()
                var last: Int32 = -1
                for k in wakeList where k != last { wakeIsland(k); last = k }
            }
            if contactStore.needsSort { contacts.sort(by: <); contactStore.needsSort = false }
        }
    }

    // MARK: - Waking

    func wakeBody(_ i: Int) {
        let k = bodies.sleepingIsland[i]
        if k >= 0 { wakeIsland(k) }
        if bodies.type(i) == .dynamic {
            let s = Int(bodies.slot[i])
            if s < bodies.awakeCount { restartRest(slot: s) }
        }
    }

    @inline(__always) func restartRest(slot s: Int) {
        bodies.sleepTime[s] = 0
        bodies.restAnchor[s] = bodies.position[s]
        bodies.restAnchorRotation[s] = bodies.rotation[s]
    }

    /// Moves a sleeping island back into the awake range with its contacts.
    func wakeIsland(_ k: Int32) {
        let index = Int(k)
        guard islandStore.sleeping[index].inUse else { return }
        let members = islandStore.sleeping[index].bodies
        for b in members {
            let i = Int(b)
            bodies.sleepingIsland[i] = -1
            if bodies.isBinned(i) { unbin(id: i) }
            bodies.makeAwake(slot: Int(bodies.slot[i]))
            restartRest(slot: Int(bodies.slot[i]))
        }
        contactStore.contacts.append(contentsOf: islandStore.sleeping[index].contacts)
        contactStore.needsSort = true
        islandStore.sleeping[index] = SleepingIsland()
        islandStore.freeIndices.append(k)
        jointStore.awakeDirty = true
    }

    /// Wakes the sleeping islands that have a contact with the (static) body `b`.
    /// Wakes what a static body holds: the sleeping islands in contact with it and the bodies jointed to it (a
    /// static body belongs to no island, so neither reaches it through one). Called when the body is moved,
    /// removed, retyped or reclassed.
    func wakeIslandsTouching(body b: Int32) {
        for k in 0..<islandStore.sleeping.count where islandStore.sleeping[k].inUse {
            if islandStore.sleeping[k].contacts.contains(where: { $0.bodyA == b || $0.bodyB == b }) { wakeIsland(Int32(k)) }
        }
        for j in jointsAttached(to: Int(b)) {
            let other = jointStore.records[Int(j)].bodyA == b ? jointStore.records[Int(j)].bodyB : jointStore.records[Int(j)].bodyA
            if other >= 0 { wakeBody(Int(other)) }
        }
    }
}

/// What the narrowphase's merge carries from one pair to the next: passed `inout` to its step for two shapes, so
/// that no variable that step captures needs a run-time exclusivity check.
/// One chunk's lists of a narrowphase run on several workers, kept between steps with their capacity.
struct NarrowphaseChunk {
    var contacts: [Contact] = []
    var ended: [ContactEndedEvent] = []
    var began: [ContactBeganEvent] = []
    var wake: [Int32] = []
    var reused = 0
}

/// The chunks' lists and polygon scratch, one of each per chunk (`WorkerState.maximumBlocks`), allocated the first
/// time the narrowphase runs on several workers.
struct NarrowphaseChunks {
    let lists: UnsafeMutablePointer<NarrowphaseChunk>
    let scratch: UnsafeMutablePointer<Vec2>

    init() {
        lists = .allocate(capacity: WorkerState.maximumBlocks)
        lists.initialize(repeating: NarrowphaseChunk(), count: WorkerState.maximumBlocks)
        scratch = .allocate(capacity: WorkerState.maximumBlocks * 4 * maxPolygonVertices)
    }

    func free() {
        lists.deinitialize(count: WorkerState.maximumBlocks)
        lists.deallocate()
        scratch.deallocate()
    }
}

private struct NarrowphaseMerge {
    var contacts: [Contact]
    var ended: [ContactEndedEvent]
    var began: [ContactBeganEvent]
    /// The shape (by index in `shapes`) whose world polygon the scratch holds, or −1; and the shape whose world quad
    /// `worldQuadA` holds (pairs are sorted by their first body, so consecutive pairs often share it).
    var loadedA = -1
    var quadA = -1
    var worldQuadA = WorldQuad(x: .zero, y: .zero, nx: .zero, ny: .zero)
    /// Whether the current pair of bodies has a contact with points.
    var anyPoints = false
    /// Manifolds taken from last step's contacts.
    var reused = 0
}

/// Which points of a new manifold took last step's impulses by feature id (`matched`, by new point), and which of
/// last step's points gave theirs (`taken`, by old point).
struct ImpulseMatch {
    var matched: (Bool, Bool) = (false, false)
    var taken: (Bool, Bool) = (false, false)
    /// Every point of the new manifold found its id.
    var all = false
}

extension World {
    /// Gives the points of `m` the impulses of last step's points `old` (`count` of them) of the same pair of shapes
    /// with the same feature id, for the warm start.
    @inline(__always)
    static func carryImpulsesByID(from old: (ManifoldPoint, ManifoldPoint), count: Int, to m: inout Manifold) -> ImpulseMatch {
        var match = ImpulseMatch()
        // Each point's fields written in place (a whole point copied out and back would be stored piecemeal and
        // read back whole, which the processor cannot forward from its store buffer).
        @inline(__always) func carry(_ p: inout ManifoldPoint) -> Bool {
            if old.0.id == p.id {
                p.normalImpulse = old.0.normalImpulse; p.tangentImpulse = old.0.tangentImpulse
                match.taken.0 = true
            } else if count > 1 && old.1.id == p.id {
                p.normalImpulse = old.1.normalImpulse; p.tangentImpulse = old.1.tangentImpulse
                match.taken.1 = true
            } else {
                return false
            }
            return true
        }
        if m.pointCount > 0 { match.matched.0 = carry(&m.points.0) }
        if m.pointCount > 1 { match.matched.1 = carry(&m.points.1) }
        match.all = match.matched.0 && (m.pointCount < 2 || match.matched.1)
        return match
    }

    /// After `carryImpulsesByID`, gives the points of `m` whose ids are new the impulses of last step's points `old`
    /// not yet taken where they are (the closest pair first), within `tolerance` points, where the normal stayed
    /// within about 8 degrees.
    ///
    /// The ids of a resting contact change without the contact moving: two nearly parallel faces trade the role of
    /// reference face, or a box on a corner near 45 degrees clips against its other face. The points stay where they
    /// were (both choices clip to the same overlap), but matched by id alone they would start from no impulse, and
    /// a point under a deep pile, carrying the weight of tens of items, lets go for a substep: the pile drops and
    /// slips, seconds after it came to rest.
    @inline(never)
    static func carryImpulsesByPlace(from old: Manifold, to m: inout Manifold, after ids: ImpulseMatch, within tolerance: Float) {
        guard dot(old.normal, m.normal) > 0.99 else { return }
        let oldCount = old.pointCount
        let matched = ids.matched, taken = ids.taken
        // The closest pair of a point without a match and an old point not taken, then the other pair if both
        // are still free.
        let limit = tolerance * tolerance
        var d: (Float, Float, Float, Float) = (.infinity, .infinity, .infinity, .infinity)   // (new k, old j): 00 01 10 11
        for k in 0..<m.pointCount where !(k == 0 ? matched.0 : matched.1) {
            let p = m[k].point
            let d0 = taken.0 ? Float.infinity : lengthSquared(old.points.0.point - p)
            let d1 = oldCount < 2 || taken.1 ? Float.infinity : lengthSquared(old.points.1.point - p)
            if k == 0 { d.0 = d0; d.1 = d1 } else { d.2 = d0; d.3 = d1 }
        }
        @inline(__always) func take(_ k: Int, _ j: Int) {
            let q = j == 0 ? old.points.0 : old.points.1
            m[k].normalImpulse = q.normalImpulse; m[k].tangentImpulse = q.tangentImpulse
        }
        let least = Swift.min(Swift.min(d.0, d.1), Swift.min(d.2, d.3))
        guard least <= limit else { return }
        if d.0 == least { take(0, 0); if d.3 <= limit { take(1, 1) } }
        else if d.1 == least { take(0, 1); if d.2 <= limit { take(1, 0) } }
        else if d.2 == least { take(1, 0); if d.1 <= limit { take(0, 1) } }
        else { take(1, 1); if d.0 <= limit { take(0, 0) } }
    }
}
