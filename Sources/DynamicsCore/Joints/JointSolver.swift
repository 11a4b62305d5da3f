/// A body's state as a joint sees it during a substep. Endpoints that are not awake bodies (the world, static
/// bodies) are read from the joint's fixed copy and never written.
struct JointBody {
    var p: Vec2
    var q: Rotation
    var v: Vec2
    var w: Float
}

struct BodyPointers {
    let pos: UnsafeMutablePointer<Vec2>
    let rot: UnsafeMutablePointer<Rotation>
    let vel: UnsafeMutablePointer<Vec2>
    let angVel: UnsafeMutablePointer<Float>

    @inline(__always) func load(_ slot: Int32, _ fixedP: Vec2, _ fixedQ: Rotation) -> JointBody {
        if slot < 0 { return JointBody(p: fixedP, q: fixedQ, v: .zero, w: 0) }
        let s = Int(slot)
        return JointBody(p: pos[s], q: rot[s], v: vel[s], w: angVel[s])
    }

    @inline(__always) func store(_ slot: Int32, _ b: JointBody) {
        if slot < 0 { return }
        vel[Int(slot)] = b.v
        angVel[Int(slot)] = b.w
    }
}

/// Solves the 2×2 system K x = b (K symmetric); returns zero when K is singular.
@inline(__always)
func solve22(_ k11: Float, _ k12: Float, _ k22: Float, _ b: Vec2) -> Vec2 {
    var det = k11 * k22 - k12 * k12
    if det != 0 { det = 1 / det }
    return Vec2(det * (k22 * b.x - k12 * b.y), det * (k11 * b.y - k12 * b.x))
}

extension World {
    /// Whether a body's velocities are finite.
    @inline(__always) static func isFinite(_ b: JointBody) -> Bool {
        b.v.x.isFinite && b.v.y.isFinite && b.w.isFinite
    }

    /// A joint's soft position correction, `rate` × `C`, bounded by `WorldSettings.jointPushMaxVelocity` (the wide
    /// rods' kernel bounds it with the same operations).
    @inline(__always) func jointBias(_ rate: Float, _ C: Float) -> Float {
        let m = settings.jointPushMaxVelocity
        return Swift.min(Swift.max(rate * C, 0 - m), m)
    }
}

/// Wraps an angle into (-π, π].
@inline(__always)
func unwind(_ a: Float) -> Float {
    if a < -.pi { return a + 2 * .pi * ((-a + .pi) / (2 * .pi)).rounded(.down) }
    if a > .pi { return a - 2 * .pi * ((a + .pi) / (2 * .pi)).rounded(.down) }
    return a
}

extension World {
    /// Rebuilds the list of joints with at least one awake body, in joint index order.
    func refreshAwakeJoints() {
        jointStore.awake.removeAll(keepingCapacity: true)
        let awake = bodies.awakeCount
        for j in 0..<jointStore.records.count where jointStore.alive[j] {
            let a = jointStore.records[j].bodyA, b = jointStore.records[j].bodyB
            let aAwake = a >= 0 && Int(bodies.slot[Int(a)]) < awake
            let bAwake = b >= 0 && Int(bodies.slot[Int(b)]) < awake
            if aAwake || bAwake { jointStore.awake.append(Int32(j)) }
        }
        jointStore.awakeDirty = false
        jointStore.awakeVersion &+= 1
        rodSolver.layoutDirty = true
    }

    /// Gives each world anchor moved since the last step the velocity of that move over this step, and takes it
    /// back from the anchors that stood still since.
    func updateAnchorVelocities(dt: Float) {
        guard !jointStore.movedAnchors.isEmpty || !jointStore.anchorsInMotion.isEmpty else { return }
        for j in jointStore.anchorsInMotion where jointStore.records[Int(j)].anchorShift == .zero { jointStore.records[Int(j)].anchorVelocity = .zero }
        jointStore.anchorsInMotion.removeAll(keepingCapacity: true)
        for j in jointStore.movedAnchors where jointStore.alive[Int(j)] {
            let velocity = jointStore.records[Int(j)].anchorShift / dt
            jointStore.records[Int(j)].anchorVelocity = velocity
            jointStore.records[Int(j)].anchorShift = .zero
            jointStore.anchorsInMotion.append(j)
        }
        jointStore.movedAnchors.removeAll(keepingCapacity: true)
    }

    func prepareJoints(h: Float) {
        bodies.withColumns { columns in
            let awake = bodies.awakeCount
            let slots = bodies.slot, invMass = columns.invMass, invI = columns.invInertia
            let pos = columns.position, rot = columns.rotation
            /// Brings one side of a record up to date: an awake body's slot and inverse masses, or a fixed body's pose
            /// (slot −1, no mass); the world side never changes. Returns whether anything changed, bit for bit.
            @inline(__always) func update(_ body: Int32, _ slot: inout Int32, _ m: inout Float, _ i: inout Float,
                                          _ p: inout Vec2, _ q: inout Rotation) -> Bool {
                if body < 0 { return false }
                let s = Int(slots[Int(body)])
                if s < awake {
                    let ns = Int32(s), nm = invMass[s], ni = invI[s]
                    // A record last written for an awake body has the zero pose: slot, m and i say it all.
                    if slot == ns && m.bitPattern == nm.bitPattern && i.bitPattern == ni.bitPattern { return false }
                    slot = ns; m = nm; i = ni; p = .zero; q = .identity
                    return true
                }
                let np = pos[s], nq = rot[s]
                if slot == -1 && m == 0 && i == 0 && p.x.bitPattern == np.x.bitPattern && p.y.bitPattern == np.y.bitPattern
                    && q.c.bitPattern == nq.c.bitPattern && q.s.bitPattern == nq.s.bitPattern { return false }
                slot = -1; m = 0; i = 0; p = np; q = nq
                return true
            }
            // Nothing a record caches can have changed (no slot moved, no mass changed, no body placed by hand, the
            // same awake joints with the same parameters, the same substep): the records and the batches stand.
            if !rodSolver.layoutDirty && bodies.slotVersion == jointStore.preparedSlotVersion && h.bitPattern == jointStore.preparedSubstep.bitPattern {
                rodSolver.geometryStale = true
                return
            }
            jointStore.preparedSlotVersion = bodies.slotVersion
            jointStore.preparedSubstep = h
            // The wide rods' batches are kept from the last step unless something they were built from changed: the
            // awake joint list, a joint's parameters (`rodLayoutDirty`), or an endpoint's slot, masses or fixed pose.
            var changed = false
            jointStore.records.withUnsafeMutableBufferPointer { js in
                guard let base = js.baseAddress else { return }
                for j in jointStore.awake {
                    let jr = base + Int(j)
                    if update(jr.pointee.bodyA, &jr.pointee.slotA, &jr.pointee.mA, &jr.pointee.iA, &jr.pointee.fixedPosA, &jr.pointee.fixedRotA) {
                        changed = true
                    }
                    if update(jr.pointee.bodyB, &jr.pointee.slotB, &jr.pointee.mB, &jr.pointee.iB, &jr.pointee.fixedPosB, &jr.pointee.fixedRotB) {
                        changed = true
                    }
                    jr.pointee.spring = Softness(hertz: jr.pointee.hertz, zeta: jr.pointee.dampingRatio, h: h)
                }
            }
            changed = changed || rodSolver.layoutDirty
            rodSolver.layoutDirty = false
            if !changed {
                // Same batches: they keep their impulses from the last step; only the geometry must follow the moved
                // positions.
                rodSolver.geometryStale = true
                return
            }
            buildWideRods()
        }
    }

    /// The warm start of the awake joints; `fusion`: what the rods' copy into their packed state takes in.
    func warmStartJoints(fusion: PackedFusion = .none) {
        bodies.withColumns { columns in
            guard !jointStore.awake.isEmpty else { return }
            let bp = BodyPointers(pos: columns.position, rot: columns.rotation, vel: columns.velocity, angVel: columns.angularVelocity)
            // Records are used in place (through a pointer): copying one in and out per joint cost more than solving it.
            // This loop and the one in solveJoints are written out: one shared helper taking the per-joint work as a
            // closure measured 27% more instructions on joint_grid_100.
            jointStore.records.withUnsafeMutableBufferPointer { js in
                guard let base = js.baseAddress else { return }
                rodSolver.scalarJoints.withUnsafeBufferPointer { list in
                    for j in list {
                        let jr = base + Int(j)
                        var A = bp.load(jr.pointee.slotA, jr.pointee.fixedPosA, jr.pointee.fixedRotA)
                        var B = bp.load(jr.pointee.slotB, jr.pointee.fixedPosB, jr.pointee.fixedRotB)
                        let startA = A, startB = B
                        switch jr.pointee.kind {
                        case .distance: warmStartDistance(jr.pointee, &A, &B)
                        case .revolute, .weld: warmStartPoint(jr.pointee, &A, &B)
                        case .prismatic: warmStartPrismatic(jr.pointee, &A, &B)
                        case .snap: warmStartSnap(jr.pointee, &A)
                        }
                        if !(World.isFinite(A) && World.isFinite(B)) {
                            A = startA; B = startB
                            jr.pointee.resetImpulses()
                        }
                        bp.store(jr.pointee.slotA, A)
                        bp.store(jr.pointee.slotB, B)
                    }
                }
            }
            runWideRods(.warmStart, soft: .rigid, copyIn: true, copyOut: !rodSolver.alone, fusion: fusion)
        }
    }

    /// One solve or relax pass (`stage`) over the awake joints; `weldsOnly`: only the weld joints whose two sides
    /// are awake bodies; `fusion`: what the rods' copies take in (`runWideRods`).
    func solveJoints(h: Float, _ stage: SolverStage, weldsOnly: Bool = false, fusion: PackedFusion = .none) {
        bodies.withColumns { columns in
            guard !jointStore.awake.isEmpty else { return }
            let useBias = stage.usesBias
            let bp = BodyPointers(pos: columns.position, rot: columns.rotation, vel: columns.velocity, angVel: columns.angularVelocity)
            let jointSoft = Softness(hertz: Swift.min(settings.jointHertz, 0.25 / h), zeta: settings.jointDampingRatio, h: h)
            let invH = 1 / h
            jointStore.records.withUnsafeMutableBufferPointer { js in
                guard let base = js.baseAddress else { return }
                rodSolver.scalarJoints.withUnsafeBufferPointer { list in
                    for j in list {
                        let jr = base + Int(j)
                        if weldsOnly && (jr.pointee.kind != .weld || jr.pointee.slotA < 0 || jr.pointee.slotB < 0) { continue }
                        var A = bp.load(jr.pointee.slotA, jr.pointee.fixedPosA, jr.pointee.fixedRotA)
                        var B = bp.load(jr.pointee.slotB, jr.pointee.fixedPosB, jr.pointee.fixedRotB)
                        let startA = A, startB = B
                        switch jr.pointee.kind {
                        case .distance: solveDistance(&jr.pointee, &A, &B, soft: jointSoft, invH: invH, useBias: useBias)
                        case .revolute: solveRevolute(&jr.pointee, &A, &B, soft: jointSoft, h: h, invH: invH, useBias: useBias)
                        case .weld: solveWeld(&jr.pointee, &A, &B, soft: jointSoft, useBias: useBias)
                        case .prismatic: solvePrismatic(&jr.pointee, &A, &B, soft: jointSoft, invH: invH, useBias: useBias)
                        case .snap: solveSnap(&jr.pointee, &A)
                        }
                        // A joint that cannot be satisfied (fighting another, or the walls) accumulates impulse step
                        // after step; should it overflow, it lets go of this pass and starts again from none, so that
                        // no infinity or NaN reaches the bodies.
                        if !(World.isFinite(A) && World.isFinite(B)) {
                            A = startA; B = startB
                            jr.pointee.resetImpulses()
                        }
                        bp.store(jr.pointee.slotA, A)
                        bp.store(jr.pointee.slotB, B)
                    }
                }
            }
            if weldsOnly { return }
            runWideRods(stage, soft: jointSoft, copyIn: !rodSolver.alone, copyOut: true, fusion: fusion)
        }
    }

    /// Both anchors in world orientation, relative to each body's COM, from the current rotations.
    @inline(__always) static func anchors(_ jr: JointRecord, _ A: JointBody, _ B: JointBody) -> (rA: Vec2, rB: Vec2) {
        let rA = jr.bodyA < 0 ? jr.localA - A.p : A.q.rotate(jr.localA)
        let rB = jr.bodyB < 0 ? jr.localB - B.p : B.q.rotate(jr.localB)
        return (rA, rB)
    }

    @inline(__always) static func apply(_ jr: JointRecord, _ A: inout JointBody, _ B: inout JointBody, _ P: Vec2, _ rA: Vec2, _ rB: Vec2) {
        A.v -= jr.mA * P; A.w -= jr.iA * cross(rA, P)
        B.v += jr.mB * P; B.w += jr.iB * cross(rB, P)
    }
}
