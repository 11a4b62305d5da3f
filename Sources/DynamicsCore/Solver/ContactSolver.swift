// Soft-step contact solver (the scheme of Box2D v3 / Solver2D): per substep, warm start, solve with a soft
// position bias, integrate positions, then relax without bias; restitution once after all substeps.
//
// Separation is tracked without recomputing the manifold: with anchors fixed at the start of the step,
// s = dot((pB + rB) − (pA + rA), n) + adjustedSeparation, where adjustedSeparation absorbs the start state.

struct ConstraintPoint {
    var rA: Vec2 = .zero
    var rB: Vec2 = .zero
    /// The anchors in body frames, to follow the bodies' rotation within the step.
    var localA: Vec2 = .zero
    var localB: Vec2 = .zero
    var adjustedSeparation: Float = 0
    var normalImpulse: Float = 0
    var tangentImpulse: Float = 0
    var maxNormalImpulse: Float = 0
    var normalMass: Float = 0
    var tangentMass: Float = 0
    var relativeVelocity: Float = 0
}

struct ContactConstraint {
    var slotA: Int32
    var slotB: Int32
    var normal: Vec2
    var friction: Float
    var restitution: Float
    var mA: Float, iA: Float, mB: Float, iB: Float
    var softness: Softness
    var pointCount: Int32
    /// The contact (index in `World.contacts`) the constraint was built from.
    var contact: Int32
    /// Two-point block: the normal-mass matrix K = [k11 k12; k12 k22] and its inverse's scale (0 = use sequential).
    var k11: Float = 0, k12: Float = 0, k22: Float = 0
    var invDet: Float = 0
    var p0 = ConstraintPoint()
    var p1 = ConstraintPoint()
}

/// Adds the normal impulse `impulse` to point `p`, clamped so the point's total never pulls, and applies the change
/// to both bodies.
@inline(__always)
func applyNormal(_ impulse: Float, _ p: inout ConstraintPoint, normal n: Vec2, _ mA: Float, _ iA: Float, _ mB: Float,
                 _ iB: Float, _ vA: inout Vec2, _ wA: inout Float, _ vB: inout Vec2, _ wB: inout Float) {
    let newImpulse = Swift.max(p.normalImpulse + impulse, 0)
    let applied = newImpulse - p.normalImpulse
    p.normalImpulse = newImpulse
    p.maxNormalImpulse = Swift.max(p.maxNormalImpulse, applied)
    let P = applied * n
    vA -= mA * P; wA -= iA * cross(p.rA, P)
    vB += mB * P; wB += iB * cross(p.rB, P)
}

/// Applies the normal impulse increments `x1`, `x2` of a two-point block solve to its points and bodies.
@inline(__always)
func applyNormalPair(_ x1: Float, _ x2: Float, _ p1: inout ConstraintPoint, _ p2: inout ConstraintPoint, normal n: Vec2,
                     _ mA: Float, _ iA: Float, _ mB: Float, _ iB: Float,
                     _ vA: inout Vec2, _ wA: inout Float, _ vB: inout Vec2, _ wB: inout Float) {
    p1.normalImpulse += x1; p2.normalImpulse += x2
    p1.maxNormalImpulse = Swift.max(p1.maxNormalImpulse, x1)
    p2.maxNormalImpulse = Swift.max(p2.maxNormalImpulse, x2)
    let P1 = x1 * n, P2 = x2 * n
    vA -= mA * (P1 + P2); wA -= iA * (cross(p1.rA, P1) + cross(p2.rA, P2))
    vB += mB * (P1 + P2); wB += iB * (cross(p1.rB, P1) + cross(p2.rB, P2))
}

extension World {
    /// The soft contact's coefficients at substep `h`: between two bodies with mass, and with a static side (twice
    /// as stiff), at the step's stiffness (`contactStiffness`). The soft step stays calm up to a quarter of the
    /// substep rate, for both.
    func contactSoftness(h: Float, _ stiffness: ContactStiffness) -> (contact: Softness, static: Softness) {
        let cap = 0.25 / h
        let hertz = stiffness.hertz, zeta = stiffness.dampingRatio
        return (Softness(hertz: Swift.min(hertz, cap), zeta: zeta, h: h),
                Softness(hertz: Swift.min(2 * hertz, cap), zeta: zeta, h: h))
    }

    /// Builds the constraints of all active contacts. Bodies outside the awake range (static) get zero inverse
    /// mass; their slots are still used so the loops need no branch (their velocity stays zero).
    ///
    /// With `wideContactMinimum` contacts or more they are colored in 64 colors and built straight into the wide
    /// batches (`buildWideContacts`); the few that find no free color (a body crowded by speculative contacts in a
    /// violent impact) are built here as scalar constraints, which every pass solves before the batches. With fewer
    /// contacts, every contact becomes a scalar constraint, in contact order.
    /// `soft`: `contactSoftness` at this step's substep.
    func prepareContacts(soft: (contact: Softness, static: Softness)) {
        contactSolver.scalar.removeAll(keepingCapacity: true)
        contactSolver.wide.removeAll(keepingCapacity: true)
        if contactStore.contacts.count >= contactSolver.wideMinimum {
            colorContacts()
            buildWideContacts(overflowSoftness: soft)
            return
        }
        // One constraint per contact: sized for them at once (`grownCapacity`), not grown by appending.
        if contactSolver.scalar.capacity < contactStore.contacts.count { contactSolver.scalar.reserveCapacity(grownCapacity(contactStore.contacts.count, from: contactSolver.scalar.capacity)) }
        for k in 0..<contactStore.contacts.count { contactSolver.scalar.append(scalarConstraint(contact: k, soft: soft)) }
    }

    /// The scalar constraint of contact `k` (`soft`: `contactSoftness` at this substep).
    func scalarConstraint(contact k: Int, soft: (contact: Softness, static: Softness)) -> ContactConstraint {
        return bodies.withColumns { columns in
            let pos = columns.position, invMass = columns.invMass, invI = columns.invInertia
            let rot = columns.rotation
            let awake = bodies.awakeCount
            let c = contactStore.contacts[k]
            let sa = Int(bodies.slot[Int(c.bodyA)]), sb = Int(bodies.slot[Int(c.bodyB)])
            let mA = sa < awake ? invMass[sa] : 0, iA = sa < awake ? invI[sa] : 0
            let mB = sb < awake ? invMass[sb] : 0, iB = sb < awake ? invI[sb] : 0
            let m = c.manifold
            var cc = ContactConstraint(slotA: Int32(sa), slotB: Int32(sb), normal: m.normal, friction: c.friction,
                                       restitution: c.restitution, mA: mA, iA: iA, mB: mB, iB: iB,
                                       softness: (mA == 0 || mB == 0) ? soft.static : soft.contact,
                                       pointCount: Int32(m.pointCount), contact: Int32(k))
            let n = m.normal, t = rightPerp(n)
            let d0 = pos[sb] - pos[sa]
            for k in 0..<m.pointCount {
                let mp = m[k]
                var cp = ConstraintPoint()
                // The anchors as the narrowphase computed them (positions have not moved since).
                cp.rA = mp.anchorA(from: pos[sa], normal: n); cp.rB = mp.anchorB(from: pos[sb], normal: n)
                cp.localA = rot[sa].inverseRotate(cp.rA); cp.localB = rot[sb].inverseRotate(cp.rB)
                cp.normalImpulse = mp.normalImpulse
                cp.tangentImpulse = mp.tangentImpulse
                cp.adjustedSeparation = mp.separation - dot(d0 + cp.rB - cp.rA, n)
                let rnA = cross(cp.rA, n), rnB = cross(cp.rB, n)
                let kN = mA + mB + iA * rnA * rnA + iB * rnB * rnB
                cp.normalMass = kN > 0 ? 1 / kN : 0
                let rtA = cross(cp.rA, t), rtB = cross(cp.rB, t)
                let kT = mA + mB + iA * rtA * rtA + iB * rtB * rtB
                cp.tangentMass = kT > 0 ? 1 / kT : 0
                cp.relativeVelocity = mp.relativeVelocity
                if k == 0 { cc.p0 = cp } else { cc.p1 = cp }
            }
            if m.pointCount == 2 {
                let rn1A = cross(cc.p0.rA, n), rn1B = cross(cc.p0.rB, n), rn2A = cross(cc.p1.rA, n), rn2B = cross(cc.p1.rB, n)
                cc.k11 = mA + mB + iA * rn1A * rn1A + iB * rn1B * rn1B
                cc.k22 = mA + mB + iA * rn2A * rn2A + iB * rn2B * rn2B
                cc.k12 = mA + mB + iA * rn1A * rn2A + iB * rn1B * rn2B
                let det = cc.k11 * cc.k22 - cc.k12 * cc.k12
                // Well conditioned only (Box2D's test): nearly coincident points are left to the sequential solve.
                cc.invDet = cc.k11 * cc.k11 < 1000 * det ? 1 / det : 0
            }
            return cc
        }
    }

    func warmStartContacts() {
        bodies.withColumns { columns in
            let vel = columns.velocity, angVel = columns.angularVelocity
            contactSolver.scalar.withUnsafeMutableBufferPointer { cs in
                guard let base = cs.baseAddress else { return }
                for ci in 0..<cs.count {
                    let c = base + ci
                    let sa = Int(c.pointee.slotA), sb = Int(c.pointee.slotB)
                    let mA = c.pointee.mA, iA = c.pointee.iA, mB = c.pointee.mB, iB = c.pointee.iB
                    var vA = vel[sa], wA = angVel[sa], vB = vel[sb], wB = angVel[sb]
                    let n = c.pointee.normal, t = rightPerp(n)
                    @inline(__always) func apply(_ cp: ConstraintPoint) {
                        let P = cp.normalImpulse * n + cp.tangentImpulse * t
                        wA -= iA * cross(cp.rA, P); vA -= mA * P
                        wB += iB * cross(cp.rB, P); vB += mB * P
                    }
                    apply(c.pointee.p0)
                    if c.pointee.pointCount == 2 { apply(c.pointee.p1) }
                    vel[sa] = vA; angVel[sa] = wA; vel[sb] = vB; angVel[sb] = wB
                }
            }
        }
    }

    /// One solve or relax pass (`stage`) over the scalar contact constraints.
    func solveContacts(invH: Float, _ stage: SolverStage) {
        bodies.withColumns { columns in
            let useBias = stage.usesBias
            let vel = columns.velocity, angVel = columns.angularVelocity, pos = columns.position
            let rot = columns.rotation
            let maxPush = settings.contactPushMaxVelocity
            contactSolver.scalar.withUnsafeMutableBufferPointer { cs in
                guard let base = cs.baseAddress else { return }
                for ci in 0..<cs.count {
                    let c = base + ci
                    let sa = Int(c.pointee.slotA), sb = Int(c.pointee.slotB)
                    var vA = vel[sa], wA = angVel[sa], vB = vel[sb], wB = angVel[sb]
                    let d = pos[sb] - pos[sa]
                    let qA = rot[sa], qB = rot[sb]
                    let n = c.pointee.normal, t = rightPerp(n)
                    let mA = c.pointee.mA, iA = c.pointee.iA, mB = c.pointee.mB, iB = c.pointee.iB
                    let soft = c.pointee.softness
                    let twoPoints = c.pointee.pointCount == 2

                    @inline(__always) func normalPart(_ cp: inout ConstraintPoint) {
                        // Current separation, following the rotation of both bodies since the narrowphase.
                        let s = dot(d + qB.rotate(cp.localB) - qA.rotate(cp.localA), n) + cp.adjustedSeparation
                        var bias: Float = 0, massScale: Float = 1, impulseScale: Float = 0
                        if s > 0 {
                            bias = s * invH // speculative: close the gap this substep, no more
                        } else if useBias {
                            bias = Swift.max(soft.biasRate * s, -maxPush)
                            massScale = soft.massScale; impulseScale = soft.impulseScale
                        }
                        let dv = (vB + cross(wB, cp.rB)) - (vA + cross(wA, cp.rA))
                        let vn = dot(dv, n)
                        let impulse = -cp.normalMass * massScale * (vn + bias) - impulseScale * cp.normalImpulse
                        applyNormal(impulse, &cp, normal: n, mA, iA, mB, iB, &vA, &wA, &vB, &wB)
                    }
                    @inline(__always) func frictionPart(_ cp: inout ConstraintPoint, _ friction: Float) {
                        let dv = (vB + cross(wB, cp.rB)) - (vA + cross(wA, cp.rA))
                        let vt = dot(dv, t)
                        var impulse = -cp.tangentMass * vt
                        let maxFriction = friction * cp.normalImpulse
                        let newImpulse = Swift.min(Swift.max(cp.tangentImpulse + impulse, -maxFriction), maxFriction)
                        impulse = newImpulse - cp.tangentImpulse
                        cp.tangentImpulse = newImpulse
                        let P = impulse * t
                        vA -= mA * P; wA -= iA * cross(cp.rA, P)
                        vB += mB * P; wB += iB * cross(cp.rB, P)
                    }
                    // Two points are solved as one block when they are in the same regime (both speculative or both
                    // touching) and the result pushes at both; a flat landing then stays flat. Otherwise, one by one.
                    @inline(__always) func blockNormal(_ p1: inout ConstraintPoint, _ p2: inout ConstraintPoint) -> Bool {
                        let invDet = c.pointee.invDet
                        guard invDet != 0 else { return false }
                        let s1 = dot(d + qB.rotate(p1.localB) - qA.rotate(p1.localA), n) + p1.adjustedSeparation
                        let s2 = dot(d + qB.rotate(p2.localB) - qA.rotate(p2.localA), n) + p2.adjustedSeparation
                        let sameRegime = (s1 > 0) == (s2 > 0)
                        var massScale: Float = 1, impulseScale: Float = 0
                        @inline(__always) func bias(_ s: Float) -> Float {
                            if s > 0 { return s * invH }
                            return useBias ? Swift.max(soft.biasRate * s, -maxPush) : 0
                        }
                        let b1 = bias(s1), b2 = bias(s2)
                        if s1 <= 0 && useBias { massScale = soft.massScale; impulseScale = soft.impulseScale }
                        let vn1 = dot((vB + cross(wB, p1.rB)) - (vA + cross(wA, p1.rA)), n) + b1
                        let vn2 = dot((vB + cross(wB, p2.rB)) - (vA + cross(wA, p2.rA)), n) + b2
                        let k11 = c.pointee.k11, k12 = c.pointee.k12, k22 = c.pointee.k22
                        let a1 = p1.normalImpulse, a2 = p2.normalImpulse
                        var n1 = a1 - massScale * invDet * (k22 * vn1 - k12 * vn2) - impulseScale * a1
                        var n2 = a2 - massScale * invDet * (k11 * vn2 - k12 * vn1) - impulseScale * a2
                        if !(sameRegime && n1 >= 0 && n2 >= 0) {
                            // The other symmetric answer: neither point pushes, when without their impulses both
                            // points would separate anyway (Box2D 2.4's block solver, its fourth case). One by one
                            // instead, the first point's release would be seen by the second alone, and a flat
                            // landing that lifts off would turn.
                            let free1 = vn1 - (k11 * a1 + k12 * a2), free2 = vn2 - (k12 * a1 + k22 * a2)
                            guard free1 >= 0, free2 >= 0 else { return false }
                            n1 = 0; n2 = 0
                        }
                        applyNormalPair(n1 - a1, n2 - a2, &p1, &p2, normal: n, mA, iA, mB, iB, &vA, &wA, &vB, &wB)
                        p1.normalImpulse = n1; p2.normalImpulse = n2
                        return true
                    }
                    if !(twoPoints && blockNormal(&c.pointee.p0, &c.pointee.p1)) {
                        normalPart(&c.pointee.p0)
                        if twoPoints { normalPart(&c.pointee.p1) }
                    }
                    let friction = c.pointee.friction
                    frictionPart(&c.pointee.p0, friction)
                    if twoPoints { frictionPart(&c.pointee.p1, friction) }
                    vel[sa] = vA; angVel[sa] = wA; vel[sb] = vB; angVel[sb] = wB
                }
            }
        }
    }

    /// Restitution on the scalar path, in contact order (`applyWideRestitution` on the wide one).
    func applyRestitution() {
        bodies.withColumns { columns in
            guard bodies.anyRestitution else { return }
            let vel = columns.velocity, angVel = columns.angularVelocity
            let threshold = settings.restitutionThreshold
            contactSolver.scalar.withUnsafeMutableBufferPointer { cs in
                for ci in 0..<cs.count where cs[ci].restitution > 0 {
                    restitute(&cs[ci], vel: vel, angVel: angVel, threshold: threshold)
                }
            }
        }
    }

    /// Once after the substeps: the points of `c` that approached faster than `threshold` and pushed get the
    /// velocity the restitution asks for along the normal (never pulling).
    @inline(__always)
    func restitute(_ c: inout ContactConstraint, vel: UnsafeMutablePointer<Vec2>, angVel: UnsafeMutablePointer<Float>,
                   threshold: Float) {
        let sa = Int(c.slotA), sb = Int(c.slotB)
        var vA = vel[sa], wA = angVel[sa], vB = vel[sb], wB = angVel[sb]
        let n = c.normal, e = c.restitution
        let mA = c.mA, iA = c.iA, mB = c.mB, iB = c.iB
        @inline(__always) func bounce(_ cp: inout ConstraintPoint) {
            if cp.relativeVelocity > -threshold || cp.maxNormalImpulse == 0 { return }
            let dv = (vB + cross(wB, cp.rB)) - (vA + cross(wA, cp.rA))
            let vn = dot(dv, n)
            let impulse = -cp.normalMass * (vn + e * cp.relativeVelocity)
            guard impulse > 0 else { return }
            applyNormal(impulse, &cp, normal: n, mA, iA, mB, iB, &vA, &wA, &vB, &wB)
        }
        // Two points bouncing together are solved as one 2×2 block, so a flat landing bounces flat; one point
        // after the other would turn part of the bounce into spin.
        @inline(__always) func blockBounce(_ p1: inout ConstraintPoint, _ p2: inout ConstraintPoint) -> Bool {
            guard p1.relativeVelocity <= -threshold, p2.relativeVelocity <= -threshold,
                  p1.maxNormalImpulse > 0, p2.maxNormalImpulse > 0 else { return false }
            // The normal-mass matrix from `prepareContacts`; ill-conditioned ones (invDet 0) go sequential.
            let k11 = c.k11, k12 = c.k12, k22 = c.k22, invDet = c.invDet
            guard invDet != 0 else { return false }
            let vn1 = dot((vB + cross(wB, p1.rB)) - (vA + cross(wA, p1.rA)), n)
            let vn2 = dot((vB + cross(wB, p2.rB)) - (vA + cross(wA, p2.rA)), n)
            let b1 = -(vn1 + e * p1.relativeVelocity), b2 = -(vn2 + e * p2.relativeVelocity)
            let d1 = (k22 * b1 - k12 * b2) * invDet, d2 = (k11 * b2 - k12 * b1) * invDet
            let n1 = p1.normalImpulse + d1, n2 = p2.normalImpulse + d2
            guard n1 >= 0, n2 >= 0 else { return false }
            applyNormalPair(d1, d2, &p1, &p2, normal: n, mA, iA, mB, iB, &vA, &wA, &vB, &wB)
            p1.normalImpulse = n1; p2.normalImpulse = n2
            return true
        }
        // Where the block cannot bounce both points (one would have to pull, or one does not bounce), only the
        // point that approached faster may bounce (Box2D 2.4's block solver keeps one point in that case). Bouncing both, one after the
        // other, adds energy: each point's target ignores what the other's impulse did to it, and on a turning box
        // the second undoes and overshoots the first (elastic boxes in a box gained energy until they escaped).
        if c.pointCount == 2 {
            if !blockBounce(&c.p0, &c.p1) {
                if c.p0.relativeVelocity <= c.p1.relativeVelocity { bounce(&c.p0) } else { bounce(&c.p1) }
            }
        } else {
            bounce(&c.p0)
        }
        // The bodies it moved, for the energy bound (Solver/RestitutionGuard.swift).
        let awake = bodies.awakeCount
        let movedA = sa < awake && (vA != vel[sa] || wA != angVel[sa]), movedB = sb < awake && (vB != vel[sb] || wB != angVel[sb])
        if movedA { restitutionGuard.mark(sa, vel[sa], angVel[sa]) }
        if movedB { restitutionGuard.mark(sb, vel[sb], angVel[sb]) }
        if movedA && movedB { restitutionGuard.join(sa, sb) }
        vel[sa] = vA; angVel[sa] = wA; vel[sb] = vB; angVel[sb] = wB
    }

    /// Copies accumulated impulses back into the persistent contacts for the next step's warm start.
    func storeContactImpulses() {
        contactStore.contacts.withUnsafeMutableBufferPointer { cb in
            contactSolver.scalar.withUnsafeBufferPointer { cs in
                for j in 0..<cs.count {
                    let k = Int(cs[j].contact)
                    cb[k].manifold.points.0.normalImpulse = cs[j].p0.normalImpulse
                    cb[k].manifold.points.0.tangentImpulse = cs[j].p0.tangentImpulse
                    cb[k].manifold.points.1.normalImpulse = cs[j].p1.normalImpulse
                    cb[k].manifold.points.1.tangentImpulse = cs[j].p1.tangentImpulse
                    cb[k].manifold.points.0.maxNormalImpulse = cs[j].p0.maxNormalImpulse
                    cb[k].manifold.points.1.maxNormalImpulse = cs[j].p1.maxNormalImpulse
                }
            }
        }
    }
}

/// The step's contact constraints: the colored batches of four of the wide solver, the scalar constraints beside
/// them, the coloring's scratch and the packed state of the contacts' bodies.
struct ContactSolverTables {
    /// This step's contact constraints in colored batches of four (WideContacts.swift; empty: the scalar path),
    /// with the coloring's scratch: color and contact per contact (after the build, each contact's batch << 2 |
    /// lane or overflow constraint, which restitution reads), contacts by color, color ends, the colors
    /// taken at each awake body (by entry); the bodies in packed-entry order (entry 0 is the padding lanes'), the body → entry
    /// map (−1 outside a build) and the packed state, (vx, vy, ω, 0) and (x, y, cos, sin) per entry.
    var wide = StepTable<WideContactBatch>()
    var colored: [UInt64] = []
    var sorted: [Int32] = []
    var colorStart: [Int] = []
    /// Where each color's batches end in `wideContacts` (colors without constraints left out).
    var colorEnds: [Int32] = []
    var bodyColors: [UInt64] = []
    var bodies: [Int32] = []
    var bodyEntry: [Int32] = []
    var velocity = Column<SIMD4<Float>>()
    var pose = Column<SIMD4<Float>>()
    /// Below this many contact constraints the scalar path is cheaper than coloring and packing (tests set it to
    /// compare the two paths).
    var wideMinimum = 16
    /// Positions have moved since the packed poses were copied.
    var posesStale = true
    /// The packed state's entries of awake bodies (`colorContacts`): when they and `uncovered` are every awake body
    /// and wide batches are all there is to solve, the solve pass's copy-out moves the bodies (`PackedFusion.move`,
    /// `World.moveInCopy`), and with gravity alone changing the velocities the relax pass's copy-out kicks them for
    /// the next substep (`PackedFusion.kickOut`). Tests turn `moveInCopy` off to compare; `movedSteps` and
    /// `kickedSteps` count the steps that did each.
    var awakeEntries = 0
    /// The awake bodies without an entry, when they are a few (`buildWideContacts`): the copy-out moves them too.
    var uncovered: [Int32] = []
    var moveInCopy = true
    var movedSteps = 0
    var kickedSteps = 0
    /// This step's scalar contact constraints: every contact on the scalar path; beside `wideContacts`, only the
    /// coloring's overflow.
    var scalar = StepTable<ContactConstraint>()
    /// What the last broadphase borrowed of `wideContacts` (its cell slots) and `constraints` (its unswept
    /// boxes), in elements of each: their tables are kept at least this large.
    var borrowedByBroadphase = (wide: 0, constraints: 0)

    init() {}
}
