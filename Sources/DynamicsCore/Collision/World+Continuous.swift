// The continuous pass: no body's center passes into or through a static shape within a step, whatever moved it.
//
// The step's speculative contacts stop a body that moves as its velocity at the step's start predicts: the
// broadphase sweeps each body's box by that motion, and every static shape the sweep reaches gets a contact that
// lets the gap close and no more. That can still fail. A body the step moves differently (yanked by a joint it
// cannot satisfy, thrown by a fast neighbor, by a field's pull) can cross a static shape no contact foresaw; and
// contacts that do see the shape can be overwhelmed (the bottom row of a tall pile landing, a thin item turning
// as it lands at one substep). Then an item passes a boundary line, or sinks so deep into a wall that the wall
// pushes it out on the far side.
//
// So after the solve, each awake body the broadphase found near a static body, or that ended farther than its
// tolerance from where its start velocity would have taken it, has its center's path tested against the static
// shapes near it (Box2D v3 tests its fast bodies against static shapes in the same place). The test moves a disc,
// the body's core: centered on its center of mass, a quarter of the radius of the largest circle there inside its
// shapes. Every static shape is grown by that radius (its faces pushed out; corners stay sharp, a slight
// over-estimate). If the path enters a grown shape deeper than the tolerance, the body is put back where the path
// first touches it, its rotation and velocity kept: the next step's contacts push it out from its near side. A
// body whose core already touches a grown shape at the step's start (pressed in by a joint that cannot be
// satisfied, or by a push harder than its contacts hold) goes no deeper: its path loses the part into the shape's
// nearest face, and it may still slide along it.
//
// Contacts keep a body out of static shapes far better than that (a few tenths of a point at rest), so in an
// ordinary scene the pass changes nothing; it costs a pass over the awake bodies and the broadphase's pairs.

extension World {
    /// Records each awake body's position at the step's start and where its velocity and acceleration would
    /// take it in `dt`, when there is a static or sleeping body to pass through; a body the broadphase found near
    /// one gets an infinite predicted end instead, so that it is always tested. Returns whether it recorded.
    func prepareContinuous(dt: Float) -> Bool {
        return bodies.withColumns { columns in
            continuousPass.count = 0
            guard broadphase.staticGrid.used > 0 || !broadphase.staticGrid.oversize.isEmpty, broadphase.cellSize > 0 else { return false }
            let n = bodies.awakeCount
            if continuousPass.start.count < n { continuousPass.start.append(contentsOf: repeatElement(.zero, count: n - continuousPass.start.count)) }
            continuousPass.count = n
            let pos = columns.position, vel = columns.velocity, grav = columns.gravity
            let half = 0.5 * dt * dt
            continuousPass.start.withUnsafeMutableBufferPointer { start in
                // Each body writes its own slot: in blocks on the workers for many bodies.
                forEachBlock(count: n, minimumBlock: 2048, parallelMinimum: workers.parallelRestTest) { range in
                    for s in range {
                        let p = pos[s], e = p + dt * vel[s] + half * grav[s]
                        start[s] = SIMD4(p.x, p.y, e.x, e.y)
                    }
                }
                // Only a pair of one awake body and one static or sleeping body marks the awake one. For many pairs,
                // blocks of them list those bodies on the workers, and the few listed are marked here.
                let pairList = broadphase.pairs
                bodies.slot.withUnsafeBufferPointer { slotOf in
                    pairList.withUnsafeBufferPointer { pairs in
                        @inline(__always) func nearStatic(_ key: UInt64) -> Int? {
                            let (sa, sb) = World.slots(of: key, slotOf)
                            if sa < n { return sb >= n ? sa : nil }
                            return sb < n ? sb : nil
                        }
                        if let executor = executor(work: pairs.count, minimum: workers.parallelCandidates) {
                            let blocks = Swift.max(2, Swift.min(WorkerState.maximumBlocks, pairs.count / workers.candidateBlock))
                            fillBlockPairs(executor, blocks: blocks) { k, list in
                                for p in World.block(k, of: blocks, count: pairs.count) {
                                    if let s = nearStatic(pairs[p]) { list.append(UInt64(s)) }
                                }
                            }
                            for k in 0..<blocks {
                                for s in broadphase.blockPairs[k] { start[Int(s)].z = .infinity }
                            }
                        } else {
                            for key in pairs { if let s = nearStatic(key) { start[s].z = .infinity } }
                        }
                    }
                }
            }
            return true
        }
    }

    /// Puts back each awake body whose center's path this step entered a static shape (see the top of this
    /// file); `prepareContinuous` recorded the step's start.
    func solveContinuous() {
        bodies.withColumns { columns in
            let n = Swift.min(bodies.awakeCount, continuousPass.count)
            guard n > 0 else { return }
            let pos = columns.position
            // A body is tested if the broadphase found a static or sleeping body within its reach (its contacts may
            // still let it through), or if it ended farther than this from where its start velocity would have taken
            // it: half the speculative distance, within which the broadphase's swept box saw every static shape it
            // could reach.
            let tolerance = 0.5 * settings.speculativeDistance
            let tolerance2 = tolerance * tolerance
            var tested: [Int32] = []
            swap(&tested, &continuousPass.tested)
            tested.removeAll(keepingCapacity: true)
            continuousPass.start.withUnsafeBufferPointer { start in
                @inline(__always) func needsTest(_ s: Int) -> Bool {
                    let r = start[s]
                    let p1 = pos[s]
                    let dx = p1.x - r.z, dy = p1.y - r.w
                    return !(dx * dx + dy * dy <= tolerance2) && (p1.x != r.x || p1.y != r.y)
                }
                // For many bodies, blocks of them list theirs on the workers, joined in block order.
                if let executor = executor(work: n, minimum: workers.parallelRestTest) {
                    let blocks = Swift.max(2, Swift.min(WorkerState.maximumBlocks, n / 2048))
                    fillBlockPairs(executor, blocks: blocks) { k, list in
                        for s in World.block(k, of: blocks, count: n) where needsTest(s) { list.append(UInt64(s)) }
                    }
                    for k in 0..<blocks {
                        for s in broadphase.blockPairs[k] { tested.append(Int32(truncatingIfNeeded: s)) }
                    }
                } else {
                    for s in 0..<n where needsTest(s) { tested.append(Int32(s)) }
                }
            }
            /// Puts back the tested bodies `range` (of `tested`) whose paths entered a static shape, with `near` as
            /// scratch; returns how many it put back. Each writes its own body's slot and reads static ones only.
            /// (It reads the list through a constant: a variable captured here would be boxed on the heap.)
            let testedList = tested
            @inline(__always) func stop(_ range: Range<Int>, _ near: inout [UInt64]) -> Int {
                var stopped = 0
                continuousPass.start.withUnsafeBufferPointer { start in
                    for t in range {
                        let s = Int(testedList[t])
                        let i = Int(bodies.bodyIndex[s])
                        guard collisionFilter.classActive[Int(bodies.collisionClass[i])] else { continue }
                        let r = start[s]
                        if continuousStop(body: i, slot: s, from: Vec2(r.x, r.y), near: &near) { stopped += 1 }
                    }
                }
                return stopped
            }
            var moved = false
            if let executor = executor(work: tested.count, minimum: workers.parallelContinuous) {
                // In blocks on the workers, each with a list of the broadphase's blocks as its scratch.
                let blocks = Swift.max(2, Swift.min(WorkerState.maximumBlocks, testedList.count / workers.continuousBlock))
                if broadphase.blockPairs.count < blocks {
                    broadphase.blockPairs.append(contentsOf: repeatElement([], count: blocks - broadphase.blockPairs.count))
                }
                let counts = workers.blockCounts
                broadphase.blockPairs.withUnsafeMutableBufferPointer { lists in
                    runParallel(executor, blocks) { k in
                        var near = lists[k]
                        lists[k] = []
                        counts[k] = stop(World.block(k, of: blocks, count: testedList.count), &near)
                        near.removeAll(keepingCapacity: true)
                        lists[k] = near
                    }
                }
                var stopped = 0
                for k in 0..<blocks { stopped += counts[k] }
                continuousPass.stops += stopped
                moved = stopped > 0
            } else {
                var near = continuousPass.near
                continuousPass.near = []
                let stopped = stop(0..<testedList.count, &near)
                continuousPass.near = near
                continuousPass.stops += stopped
                moved = stopped > 0
            }
            swap(&tested, &continuousPass.tested)
            if moved {
                rodSolver.geometryStale = true
                contactSolver.posesStale = true
            }
        }
    }

    /// The radius of body `i`'s core: a quarter of the largest circle about its center of mass inside one of its
    /// shapes (0 if the center is outside them all). A quarter, so that a body pressed into a static shape as far
    /// as contacts let a landing pile press it (a third of its size) is not the pass's concern.
    func coreRadius(of i: Int) -> Float {
        var r: Float = 0
        let first = Int(bodies.shapeStart[i])
        for k in first..<(first + Int(bodies.shapeCount[i])) {
            let shape = shapeStore.records[k]
            switch shape.kind {
            case .circle:
                r = Swift.max(r, shape.radius - length(shape.p0))
            case .segment:
                break
            case .polygon:
                let v = Int(shape.vertexStart)
                var d = Float.infinity
                for m in v..<(v + Int(shape.vertexCount)) { d = Swift.min(d, dot(shapeStore.polygonNormals[m], shapeStore.polygonVertices[m])) }
                r = Swift.max(r, d)
            }
        }
        return 0.25 * r
    }

    /// Puts body `i` (at slot `s`), moved this step from `p0`, where its path may end; returns whether it moved
    /// it. A static shape whose grown face the core's path crosses, going on deeper than the tolerance, stops it
    /// where the path first touches; a shape the core already touches (pressed in) lets it go no deeper: the path
    /// loses its part into the shape's nearest face and keeps the rest. Either way the body's velocity loses its
    /// part into that face, as in a perfectly inelastic impact: what stopped the body's motion stops its velocity
    /// too, so a body held at a wall by the pass cannot gather speed against it step after step.
    func continuousStop(body i: Int, slot s: Int, from p0: Vec2, near: inout [UInt64]) -> Bool {
        return bodies.withColumns { columns in
            let p1 = columns.position[s]
            let r = coreRadius(of: i)
            let inner = r - Swift.min(settings.linearSlop, 0.5 * r)
            var d = p1 - p0
            let box = AABB(lower: minimum(p0, p1) - Vec2(r, r), upper: maximum(p0, p1) + Vec2(r, r))
            staticBodies(near: box, body: i, into: &near)
            let pos = columns.position, rot = columns.rotation
            /// Calls `body` with each shape of the static bodies found, and its body's pose.
            @inline(__always) func forEachStaticShape(_ body: (ShapeRecord, Vec2, Rotation) -> Void) {
                for key in near {
                    let lo = Int(truncatingIfNeeded: key >> 32), hi = Int(truncatingIfNeeded: key & 0xFFFF_FFFF)
                    let j = lo == i ? hi : lo
                    guard bodies.type(j) == .static else { continue }
                    let t = Int(bodies.slot[j])
                    let start = Int(bodies.shapeStart[j])
                    for k in start..<(start + Int(bodies.shapeCount[j])) { body(shapeStore.records[k], pos[t], rot[t]) }
                }
            }
            var changed = false
            let vel = columns.velocity
            /// Takes the part of the velocity into a face of outward normal `n` away.
            @inline(__always) func stopVelocity(into n: Vec2) {
                let into = dot(n, vel[s])
                if into < 0 { vel[s] = vel[s] - into * n }
            }
            // Already touching (the core on or inside a grown face at the start): no deeper through the nearest
            // face, free to slide along it. (Stopping such a path where it first touches would stop it where it
            // starts, step after step: a body pushed hard into a wall would hang there, whatever its speed along it.)
            forEachStaticShape { shape, origin, q in
                let touching = span(of: shape, at: origin, q, grownBy: r, p0, d)
                guard touching.enter <= 0 && touching.exit >= 0, let n = nearestFaceNormal(of: shape, at: origin, q, p0) else { return }
                let into = dot(n, d)
                if into < 0 { d = d - into * n; stopVelocity(into: n); changed = true }
            }
            // Crossing into a shape: stopped where the core first touches it.
            var first: Float = 1, hit = false
            var face = Vec2.zero
            forEachStaticShape { shape, origin, q in
                let deep = span(of: shape, at: origin, q, grownBy: inner, p0, d)
                // The path must enter the deep part after its start (a start touching is handled above).
                guard deep.enter <= deep.exit, deep.enter > 0, deep.enter <= first else { return }
                let touch = span(of: shape, at: origin, q, grownBy: r, p0, d)
                let t = Swift.max(0, touch.enter)
                if !hit || t < first { first = t; face = touch.enterNormal; hit = true }
                changed = true
            }
            guard changed else { return false }
            if hit { stopVelocity(into: face) }
            pos[s] = p0 + first * d
            return true
        }
    }

    /// The outward normal of `shape`'s face nearest `p` (of a body at `origin` turned by `q`), for a point inside
    /// the shape or near it; nil at a circle's or a segment's very center line.
    func nearestFaceNormal(of shape: ShapeRecord, at origin: Vec2, _ q: Rotation, _ p: Vec2) -> Vec2? {
        switch shape.kind {
        case .circle:
            let m = p - (origin + q.rotate(shape.p0))
            let l = length(m)
            return l > 0 ? (1 / l) * m : nil
        case .segment:
            let a = origin + q.rotate(shape.p0), b = origin + q.rotate(shape.p1)
            let u = normalized(b - a), n = leftPerp(u)
            let side = dot(n, p - a)
            let along = dot(u, p - a), length = dot(u, b - a)
            // Past an end: that end's cap; else the side the point is on.
            if along < 0 && -along > Swift.abs(side) { return -u }
            if along > length && along - length > Swift.abs(side) { return u }
            if side == 0 { return nil }
            return side > 0 ? n : -n
        case .polygon:
            let v = Int(shape.vertexStart)
            var best = -Float.infinity, normal = Vec2.zero
            for m in v..<(v + Int(shape.vertexCount)) {
                let n = q.rotate(shapeStore.polygonNormals[m])
                let separation = dot(n, p - (origin + q.rotate(shapeStore.polygonVertices[m])))
                if separation > best { best = separation; normal = n }
            }
            return normal
        }
    }

    /// The static and sleeping bodies whose boxes overlap `box` and which body `i` collides with, as pair keys.
    func staticBodies(near box: AABB, body i: Int, into near: inout [UInt64]) {
        bodies.withColumns { columns in
            near.removeAll(keepingCapacity: true)
            let inv = 1 / broadphase.cellSize
            let classOf = bodies.collisionClass, slotOf = bodies.slot
            let allBoxes = UnsafeBufferPointer(start: UnsafePointer(columns.box), count: bodies.count)
            let row = Int(classOf[i]) * collisionFilter.classCount
            let c = cellCoord(box, inv: inv)
            if c.cellCount >= World.oversizeCells && c.cellCount > 4096 {
                // A path across many cells: every binned body once.
                for t in bodies.awakeCount..<bodies.count {
                    let j = Int(bodies.bodyIndex[t])
                    if bodies.flags[j] & BodyStore.binnedBit != 0 && box.overlaps(allBoxes[t]) && collisionFilter.collides[row + Int(classOf[j])] {
                        near.append(World.pairKey(i, j))
                    }
                }
            } else {
                queryStaticGrid(box: box, coord: c, body: i, inv: inv, classOf: classOf, boxes: allBoxes, slotOf: slotOf, into: &near)
            }
            for so in broadphase.staticGrid.oversize {
                let j = Int(so)
                if box.overlaps(allBoxes[Int(slotOf[j])]) && collisionFilter.collides[row + Int(classOf[j])] { near.append(World.pairKey(i, j)) }
            }
        }
    }

    /// The part of the line p0 + t·d inside `shape` (of a body at `origin` turned by `q`) grown by `grow`:
    /// `enter > exit` when the line misses it. A segment is grown into a rectangle, a polygon by pushing its
    /// faces out, a circle exactly.
    @inline(__always)
    func span(of shape: ShapeRecord, at origin: Vec2, _ q: Rotation, grownBy grow: Float, _ p0: Vec2, _ d: Vec2) -> LineSpan {
        var span = LineSpan()
        switch shape.kind {
        case .circle:
            let c = origin + q.rotate(shape.p0), rho = shape.radius + grow
            let m = p0 - c
            let a = dot(d, d), b = dot(m, d), cc = dot(m, m) - rho * rho
            let disc = b * b - a * cc
            guard disc >= 0, a > 0 else { span.miss(); break }
            let root = disc.squareRoot()
            span.enter = (-b - root) / a; span.exit = (-b + root) / a
            span.enterNormal = (1 / rho) * (m + span.enter * d)
        case .segment:
            let a = origin + q.rotate(shape.p0), b = origin + q.rotate(shape.p1)
            let u = normalized(b - a), n = leftPerp(u)
            span.clip(n, dot(n, a) + grow, p0, d)
            span.clip(-n, -dot(n, a) + grow, p0, d)
            span.clip(u, dot(u, b) + grow, p0, d)
            span.clip(-u, -dot(u, a) + grow, p0, d)
        case .polygon:
            let v = Int(shape.vertexStart)
            for m in v..<(v + Int(shape.vertexCount)) {
                let normal = q.rotate(shapeStore.polygonNormals[m]), vertex = origin + q.rotate(shapeStore.polygonVertices[m])
                span.clip(normal, dot(normal, vertex) + grow, p0, d)
            }
        }
        return span
    }
}

/// An interval of a line's parameter, cut down one half-plane at a time (Cyrus–Beck clipping).
struct LineSpan {
    var enter = -Float.infinity, exit = Float.infinity
    /// The outward normal of the face the line enters by (zero if it starts inside every half-plane).
    var enterNormal = Vec2.zero

    mutating func miss() { enter = .infinity; exit = -.infinity }

    /// Keeps the part of the line p + t·d where n·x ≤ c.
    @inline(__always) mutating func clip(_ n: Vec2, _ c: Float, _ p: Vec2, _ d: Vec2) {
        let num = c - dot(n, p), den = dot(n, d)
        if den == 0 {
            if num < 0 { miss() }
        } else if den > 0 {
            exit = Swift.min(exit, num / den)
        } else if num / den > enter {
            enter = num / den
            enterNormal = n
        }
    }
}

/// The continuous pass's scratch.
struct ContinuousScratch {
    /// The continuous pass's scratch (World+Continuous.swift): per awake slot (the first `continuousCount`), its
    /// position at the step's start and where its start velocity would take it (x, y, predicted x, predicted y;
    /// infinite for a body near a static one); the slots to test; the static bodies near one path.
    var start: [SIMD4<Float>] = []
    var count = 0
    var tested: [Int32] = []
    var near: [UInt64] = []
    /// How many times a body has been put back since the world was made (for tests and diagnostics).
    var stops = 0

    init() {}
}
