/// A body's state as a joint sees it during a substep. Endpoints that are not awake bodies (the world, static
/// bodies) are read from the joint's fixed copy and never written.
@usableFromInline
struct JointBody {
    var p: Vec2
    var q: Rot
    var v: Vec2
    var w: Float
}

@usableFromInline
struct BodyPointers {
    let pos: UnsafeMutablePointer<Vec2>
    let rot: UnsafeMutablePointer<Rot>
    let vel: UnsafeMutablePointer<Vec2>
    let angVel: UnsafeMutablePointer<Float>

    @inline(__always) func load(_ slot: Int32, _ fixedP: Vec2, _ fixedQ: Rot) -> JointBody {
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

/// Wraps an angle into (-π, π].
@inline(__always)
func unwind(_ a: Float) -> Float {
    if a < -.pi { return a + 2 * .pi * ((-a + .pi) / (2 * .pi)).rounded(.down) }
    if a > .pi { return a - 2 * .pi * ((a + .pi) / (2 * .pi)).rounded(.down) }
    return a
}

extension World {
    var bodyPointers: BodyPointers {
        BodyPointers(pos: bodies.position.base, rot: bodies.rotation.base, vel: bodies.velocity.base,
                     angVel: bodies.angularVelocity.base)
    }

    /// Rebuilds the list of joints with at least one awake body, in joint index order.
    func refreshAwakeJoints() {
        awakeJoints.removeAll(keepingCapacity: true)
        let awake = bodies.awakeCount
        for j in 0..<joints.count where jointAlive[j] {
            let a = joints[j].bodyA, b = joints[j].bodyB
            let aAwake = a >= 0 && Int(bodies.slot[Int(a)]) < awake
            let bAwake = b >= 0 && Int(bodies.slot[Int(b)]) < awake
            if aAwake || bAwake { awakeJoints.append(Int32(j)) }
        }
        awakeJointsDirty = false
    }

    func prepareJoints(h: Float) {
        let awake = bodies.awakeCount
        let slots = bodies.slot, invMass = bodies.invMass.base, invI = bodies.invInertia.base
        let pos = bodies.position.base, rot = bodies.rotation.base
        @inline(__always) func endpoint(_ b: Int32) -> (slot: Int32, m: Float, i: Float, p: Vec2, q: Rot) {
            if b < 0 { return (-1, 0, 0, .zero, .identity) }
            let s = Int(slots[Int(b)])
            if s < awake { return (Int32(s), invMass[s], invI[s], .zero, .identity) }
            return (-1, 0, 0, pos[s], rot[s])
        }
        joints.withUnsafeMutableBufferPointer { js in
            guard let base = js.baseAddress else { return }
            for j in awakeJoints {
                let jr = base + Int(j)
                let a = endpoint(jr.pointee.bodyA), b = endpoint(jr.pointee.bodyB)
                jr.pointee.slotA = a.slot; jr.pointee.mA = a.m; jr.pointee.iA = a.i
                jr.pointee.fixedPosA = a.p; jr.pointee.fixedRotA = a.q
                jr.pointee.slotB = b.slot; jr.pointee.mB = b.m; jr.pointee.iB = b.i
                jr.pointee.fixedPosB = b.p; jr.pointee.fixedRotB = b.q
                jr.pointee.spring = Softness(hertz: jr.pointee.hertz, zeta: jr.pointee.dampingRatio, h: h)
            }
        }
        buildWideRods()
    }

    func warmStartJoints() {
        guard !awakeJoints.isEmpty else { return }
        let bp = bodyPointers
        // Records are used in place (through a pointer): copying one in and out per joint cost more than solving it.
        // This loop and the one in solveJoints are written out: one shared helper taking the per-joint work as a
        // closure measured 27% more instructions on joint_grid_100.
        joints.withUnsafeMutableBufferPointer { js in
            guard let base = js.baseAddress else { return }
            scalarJoints.withUnsafeBufferPointer { list in
                for j in list {
                    let jr = base + Int(j)
                    var A = bp.load(jr.pointee.slotA, jr.pointee.fixedPosA, jr.pointee.fixedRotA)
                    var B = bp.load(jr.pointee.slotB, jr.pointee.fixedPosB, jr.pointee.fixedRotB)
                    switch jr.pointee.kind {
                    case .distance: warmStartDistance(jr.pointee, &A, &B)
                    case .revolute, .weld: warmStartPoint(jr.pointee, &A, &B)
                    case .prismatic: warmStartPrismatic(jr.pointee, &A, &B)
                    case .snap: warmStartSnap(jr.pointee, &A)
                    }
                    bp.store(jr.pointee.slotA, A)
                    bp.store(jr.pointee.slotB, B)
                }
            }
        }
        runWideRods(warmStart: true, soft: .rigid, useBias: false)
    }

    func solveJoints(h: Float, useBias: Bool) {
        guard !awakeJoints.isEmpty else { return }
        let bp = bodyPointers
        let jointSoft = Softness(hertz: Swift.min(settings.jointHertz, 0.25 / h), zeta: settings.jointDampingRatio, h: h)
        let invH = 1 / h
        joints.withUnsafeMutableBufferPointer { js in
            guard let base = js.baseAddress else { return }
            scalarJoints.withUnsafeBufferPointer { list in
                for j in list {
                    let jr = base + Int(j)
                    var A = bp.load(jr.pointee.slotA, jr.pointee.fixedPosA, jr.pointee.fixedRotA)
                    var B = bp.load(jr.pointee.slotB, jr.pointee.fixedPosB, jr.pointee.fixedRotB)
                    switch jr.pointee.kind {
                    case .distance: solveDistance(&jr.pointee, &A, &B, soft: jointSoft, invH: invH, useBias: useBias)
                    case .revolute: solveRevolute(&jr.pointee, &A, &B, soft: jointSoft, h: h, invH: invH, useBias: useBias)
                    case .weld: solveWeld(&jr.pointee, &A, &B, soft: jointSoft, useBias: useBias)
                    case .prismatic: solvePrismatic(&jr.pointee, &A, &B, soft: jointSoft, invH: invH, useBias: useBias)
                    case .snap: solveSnap(&jr.pointee, &A)
                    }
                    bp.store(jr.pointee.slotA, A)
                    bp.store(jr.pointee.slotB, B)
                }
            }
        }
        runWideRods(warmStart: false, soft: jointSoft, useBias: useBias)
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
