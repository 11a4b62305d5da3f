// Contact constraints, four at a time.
//
// After `prepareContacts` has built this step's constraints, they are coloured so that no two of one colour share
// an awake body (static bodies do not count: nothing is written to them), and each colour is cut into batches of
// four whose constraints are solved in the four lanes of SSE2 vectors. The colouring is a greedy pass in contact
// order (contacts are sorted by key), so it is deterministic. When some contact finds no free colour among 64, or
// there are few contacts, the step takes the scalar path of ContactSolver.swift instead.
//
// The arithmetic is the scalar solver's lane for lane: soft normal impulses with speculative separation, the 2×2
// block for two-point manifolds where it pushes at both points (otherwise point by point), then Coulomb friction.
// Both the block and the point-by-point results are computed for every lane and one is selected per lane, so
// there is no branch. Only the order of the constraints within a pass differs (colour by colour), as in any
// coloured Gauss–Seidel solver. Restitution, which few contacts need, stays scalar: the impulses are copied back
// into the constraints after the last substep.
//
// The batches read and write a packed copy of their bodies' state, (vx, vy, ω, 0) and (x, y, cos, sin) per body,
// as the wide joints do. Entry 0 is a zero entry for padding lanes; then one entry per body the contacts touch,
// static ones included (their velocity stays zero and is never copied back).

import DynamicsSIMD

/// One contact point of each of four lanes.
@usableFromInline
struct WideContactPoint {
    typealias V = SIMD4<Float>
    /// Anchors from the centres of mass at the start of the step (for velocities) and in the body frames (for the
    /// current separation).
    var rAx: V = .zero, rAy: V = .zero, rBx: V = .zero, rBy: V = .zero
    var localAx: V = .zero, localAy: V = .zero, localBx: V = .zero, localBy: V = .zero
    var adjustedSeparation: V = .zero
    var normalImpulse: V = .zero, tangentImpulse: V = .zero, maxNormalImpulse: V = .zero
    /// Zero for a lane without this point (a one-point manifold or padding): the point then applies nothing.
    var normalMass: V = .zero, tangentMass: V = .zero
}

/// Four contact constraints of one colour, in SoA form.
@usableFromInline
struct WideContactBatch {
    typealias V = SIMD4<Float>
    /// Entries of each side in the packed state (`contactVelocity`, `contactPose`); 0 for padding lanes.
    var entryA: SIMD4<Int32>, entryB: SIMD4<Int32>
    /// The constraint of each lane, −1 for padding.
    var constraint: SIMD4<Int32>
    var nx: V, ny: V, friction: V
    var mA: V, iA: V, mB: V, iB: V
    /// The soft contact's coefficients (static or dynamic stiffness, per lane).
    var biasRate: V, massScale: V, impulseScale: V
    /// The two-point normal-mass matrix and its inverse determinant (0: solve point by point).
    var k11: V, k12: V, k22: V, invDet: V
    var p0: WideContactPoint, p1: WideContactPoint
}

extension World {
    /// Colours this step's constraints and builds `wideContacts` and the packed state's entries. Leaves
    /// `wideContacts` empty (the scalar path) below `wideContactMinimum` constraints or when some constraint finds
    /// no free colour.
    func buildWideContacts() {
        wideContacts.removeAll(keepingCapacity: true)
        contactColoured.removeAll(keepingCapacity: true)
        let count = constraints.count
        guard count >= wideContactMinimum else { return }
        let awake = bodies.awakeCount, slots = bodies.count
        if contactBodyColours.count < awake {
            contactBodyColours.append(contentsOf: repeatElement(0, count: awake - contactBodyColours.count))
        }
        if contactBodyEntry.count < slots {
            contactBodyEntry.append(contentsOf: repeatElement(-1, count: slots - contactBodyEntry.count))
        }
        if contactColourStart.count < 65 { contactColourStart = [Int](repeating: 0, count: 65) }
        // Entry 0 is the padding lanes' zero entry; the bodies' entries follow.
        contactBodies.removeAll(keepingCapacity: true)
        contactBodies.append(-1)
        var coloured = true
        constraints.withUnsafeBufferPointer { cs in
            contactBodyColours.withUnsafeMutableBufferPointer { used in
            contactBodyEntry.withUnsafeMutableBufferPointer { entry in
            contactColourStart.withUnsafeMutableBufferPointer { start in
                for c in 0..<65 { start[c] = 0 }
                @inline(__always) func enter(_ slot: Int32) {
                    if entry[Int(slot)] < 0 {
                        entry[Int(slot)] = Int32(contactBodies.count)
                        contactBodies.append(slot)
                        if Int(slot) < awake { used[Int(slot)] = 0 }
                    }
                }
                for k in 0..<count {
                    let sa = cs[k].slotA, sb = cs[k].slotB
                    enter(sa); enter(sb)
                    var taken: UInt64 = 0
                    if Int(sa) < awake { taken |= used[Int(sa)] }
                    if Int(sb) < awake { taken |= used[Int(sb)] }
                    guard taken != .max else { coloured = false; break }
                    let c = (~taken).trailingZeroBitCount
                    let bit: UInt64 = 1 << UInt64(c)
                    if Int(sa) < awake { used[Int(sa)] |= bit }
                    if Int(sb) < awake { used[Int(sb)] |= bit }
                    contactColoured.append(UInt64(c) << 32 | UInt64(k))
                    start[c + 1] += 1
                }
            }
            }
            }
        }
        guard coloured else {
            resetContactBodyEntries()
            return
        }
        sortByColour(contactColoured, into: &contactSorted, colourStart: &contactColourStart)
        // `contactColourStart[c]` now holds the end of colour c.
        contactVelocity.reserve(contactBodies.count, count: 0)
        contactPose.reserve(contactBodies.count, count: 0)
        contactVelocity.base[0] = .zero
        contactPose.base[0] = SIMD4(0, 0, 1, 0)
        wideContactPosesStale = true
        typealias V = SIMD4<Float>
        /// One lane's values; a padding lane is all zeros on the zero entry.
        struct Lane {
            var constraint: Int32 = -1, entryA: Int32 = 0, entryB: Int32 = 0
            var c = ContactConstraint(slotA: 0, slotB: 0, normal: .zero, friction: 0, restitution: 0, mA: 0, iA: 0, mB: 0,
                                      iB: 0, softness: .rigid, pointCount: 0)
        }
        constraints.withUnsafeBufferPointer { cs in
            contactBodyEntry.withUnsafeBufferPointer { entry in
                @inline(__always) func lane(_ k: Int, _ end: Int) -> Lane {
                    var lane = Lane()
                    guard k < end else { return lane }
                    let ci = Int(contactSorted[k])
                    lane.constraint = Int32(ci)
                    lane.c = cs[ci]
                    lane.entryA = entry[Int(lane.c.slotA)]
                    lane.entryB = entry[Int(lane.c.slotB)]
                    return lane
                }
                @inline(__always) func points(_ l: (Lane, Lane, Lane, Lane), second: Bool) -> WideContactPoint {
                    func pick(_ l: Lane) -> ConstraintPoint {
                        second ? (l.c.pointCount == 2 ? l.c.p1 : ConstraintPoint()) : l.c.p0
                    }
                    let a = pick(l.0), b = pick(l.1), c = pick(l.2), d = pick(l.3)
                    return WideContactPoint(
                        rAx: V(a.rA.x, b.rA.x, c.rA.x, d.rA.x), rAy: V(a.rA.y, b.rA.y, c.rA.y, d.rA.y),
                        rBx: V(a.rB.x, b.rB.x, c.rB.x, d.rB.x), rBy: V(a.rB.y, b.rB.y, c.rB.y, d.rB.y),
                        localAx: V(a.localA.x, b.localA.x, c.localA.x, d.localA.x),
                        localAy: V(a.localA.y, b.localA.y, c.localA.y, d.localA.y),
                        localBx: V(a.localB.x, b.localB.x, c.localB.x, d.localB.x),
                        localBy: V(a.localB.y, b.localB.y, c.localB.y, d.localB.y),
                        adjustedSeparation: V(a.adjustedSeparation, b.adjustedSeparation, c.adjustedSeparation, d.adjustedSeparation),
                        normalImpulse: V(a.normalImpulse, b.normalImpulse, c.normalImpulse, d.normalImpulse),
                        tangentImpulse: V(a.tangentImpulse, b.tangentImpulse, c.tangentImpulse, d.tangentImpulse),
                        maxNormalImpulse: V(a.maxNormalImpulse, b.maxNormalImpulse, c.maxNormalImpulse, d.maxNormalImpulse),
                        normalMass: V(a.normalMass, b.normalMass, c.normalMass, d.normalMass),
                        tangentMass: V(a.tangentMass, b.tangentMass, c.tangentMass, d.tangentMass))
                }
                var k = 0
                for colour in 0..<64 {
                    let end = contactColourStart[colour]
                    while k < end {
                        let l = (lane(k, end), lane(k + 1, end), lane(k + 2, end), lane(k + 3, end))
                        @inline(__always) func v(_ f: (ContactConstraint) -> Float) -> V { V(f(l.0.c), f(l.1.c), f(l.2.c), f(l.3.c)) }
                        wideContacts.append(WideContactBatch(
                            entryA: SIMD4(l.0.entryA, l.1.entryA, l.2.entryA, l.3.entryA),
                            entryB: SIMD4(l.0.entryB, l.1.entryB, l.2.entryB, l.3.entryB),
                            constraint: SIMD4(l.0.constraint, l.1.constraint, l.2.constraint, l.3.constraint),
                            nx: v { $0.normal.x }, ny: v { $0.normal.y }, friction: v { $0.friction },
                            mA: v { $0.mA }, iA: v { $0.iA }, mB: v { $0.mB }, iB: v { $0.iB },
                            biasRate: v { $0.softness.biasRate }, massScale: v { $0.softness.massScale },
                            impulseScale: v { $0.softness.impulseScale },
                            k11: v { $0.k11 }, k12: v { $0.k12 }, k22: v { $0.k22 },
                            invDet: v { $0.pointCount == 2 ? $0.invDet : 0 },
                            p0: points(l, second: false), p1: points(l, second: true)))
                        k = Swift.min(k + 4, end)
                    }
                }
            }
        }
        resetContactBodyEntries()
    }

    /// Clears the body → entry map where this step set it (the entries themselves stay in `contactBodies`).
    private func resetContactBodyEntries() {
        contactBodyEntry.withUnsafeMutableBufferPointer { entry in
            for slot in contactBodies where slot >= 0 { entry[Int(slot)] = -1 }
        }
    }

    /// The wide batches' impulses back into the constraints (restitution and the next step's warm start read them
    /// there).
    func storeWideContactImpulses() {
        constraints.withUnsafeMutableBufferPointer { cs in
            for b in wideContacts {
                for l in 0..<4 where b.constraint[l] >= 0 {
                    let c = Int(b.constraint[l])
                    cs[c].p0.normalImpulse = b.p0.normalImpulse[l]
                    cs[c].p0.tangentImpulse = b.p0.tangentImpulse[l]
                    cs[c].p0.maxNormalImpulse = b.p0.maxNormalImpulse[l]
                    if cs[c].pointCount == 2 {
                        cs[c].p1.normalImpulse = b.p1.normalImpulse[l]
                        cs[c].p1.tangentImpulse = b.p1.tangentImpulse[l]
                        cs[c].p1.maxNormalImpulse = b.p1.maxNormalImpulse[l]
                    }
                }
            }
        }
    }

    /// The warm start (`warmStart`) or one solve pass of every wide batch, between copying the bodies into the
    /// packed state and the awake ones' velocities back.
    func runWideContacts(warmStart: Bool, invH: Float, useBias: Bool) {
        guard !wideContacts.isEmpty else { return }
        typealias V = SIMD4<Float>
        let pos = bodies.position.base, rot = bodies.rotation.base
        let vel = bodies.velocity.base, angVel = bodies.angularVelocity.base
        let awake = Int32(bodies.awakeCount)
        let packedVel = UnsafeMutableRawPointer(contactVelocity.base), packedPose = UnsafeMutableRawPointer(contactPose.base)
        let copyPoses = wideContactPosesStale && !warmStart
        if copyPoses { wideContactPosesStale = false }
        contactBodies.withUnsafeBufferPointer { list in
            for e in 1..<list.count {
                let s = Int(list[e]), v = vel[s]
                (packedVel + 16 &* e).storeBytes(of: V(v.x, v.y, angVel[s], 0), as: V.self)
                if copyPoses {
                    let p = pos[s], q = rot[s]
                    (packedPose + 16 &* e).storeBytes(of: V(p.x, p.y, q.c, q.s), as: V.self)
                }
            }
        }
        let zero = V.zero, one = V(repeating: 1)
        let offset0 = MemoryLayout<WideContactBatch>.offset(of: \WideContactBatch.p0)!
        let offset1 = MemoryLayout<WideContactBatch>.offset(of: \WideContactBatch.p1)!
        let inverseH = V(repeating: invH), maxPush = V(repeating: settings.contactPushMaxVelocity)
        wideContacts.withUnsafeMutableBufferPointer { batches in
            for k in 0..<batches.count {
                let b = batches.baseAddress! + k
                let ea = packedEntries(&b.pointee.entryA), eb = packedEntries(&b.pointee.entryB)
                var (vAx, vAy, wA, _) = packedGather(packedVel, ea)
                var (vBx, vBy, wB, _) = packedGather(packedVel, eb)
                let nx = b.pointee.nx, ny = b.pointee.ny
                let mA = b.pointee.mA, iA = b.pointee.iA, mB = b.pointee.mB, iB = b.pointee.iB
                if warmStart {
                    // P = λn·n + λt·t at each point, t = (ny, −nx).
                    let n0 = b.pointee.p0.normalImpulse, t0 = b.pointee.p0.tangentImpulse
                    let n1 = b.pointee.p1.normalImpulse, t1 = b.pointee.p1.tangentImpulse
                    let P0x = n0 * nx + t0 * ny, P0y = n0 * ny - t0 * nx
                    let P1x = n1 * nx + t1 * ny, P1y = n1 * ny - t1 * nx
                    let p0 = b.pointee.p0, p1 = b.pointee.p1
                    wA -= iA * ((p0.rAx * P0y - p0.rAy * P0x) + (p1.rAx * P1y - p1.rAy * P1x))
                    vAx -= mA * (P0x + P1x); vAy -= mA * (P0y + P1y)
                    wB += iB * ((p0.rBx * P0y - p0.rBy * P0x) + (p1.rBx * P1y - p1.rBy * P1x))
                    vBx += mB * (P0x + P1x); vBy += mB * (P0y + P1y)
                    packedScatter(packedVel, ea, vAx, vAy, wA)
                    packedScatter(packedVel, eb, vBx, vBy, wB)
                    continue
                }
                let (pAx, pAy, cA, sA) = packedGather(packedPose, ea)
                let (pBx, pBy, cB, sB) = packedGather(packedPose, eb)
                let dx = pBx - pAx, dy = pBy - pAy
                /// The current separation of a point, following both bodies' rotation since the narrowphase.
                @inline(__always) func separation(_ p: UnsafeMutablePointer<WideContactPoint>) -> V {
                    let lAx = p.pointee.localAx, lAy = p.pointee.localAy, lBx = p.pointee.localBx, lBy = p.pointee.localBy
                    let rAx = cA * lAx - sA * lAy, rAy = sA * lAx + cA * lAy
                    let rBx = cB * lBx - sB * lBy, rBy = sB * lBx + cB * lBy
                    return ((dx + rBx) - rAx) * nx + ((dy + rBy) - rAy) * ny + p.pointee.adjustedSeparation
                }
                let p0 = (UnsafeMutableRawPointer(b) + offset0).assumingMemoryBound(to: WideContactPoint.self)
                let p1 = (UnsafeMutableRawPointer(b) + offset1).assumingMemoryBound(to: WideContactPoint.self)
                let s0 = separation(p0), s1 = separation(p1)
                let biasRate = b.pointee.biasRate, softMass = b.pointee.massScale, softImpulse = b.pointee.impulseScale
                // Per point: speculative (s > 0) closes the gap this substep; touching is soft when biased, rigid
                // when relaxing.
                @inline(__always) func coefficients(_ s: V) -> (bias: V, massScale: V, impulseScale: V) {
                    let speculative = dk_lt4(zero, s)
                    if useBias {
                        let push = dk_max4(biasRate * s, zero - maxPush)
                        return (dk_select4(speculative, s * inverseH, push), dk_select4(speculative, one, softMass),
                                dk_select4(speculative, zero, softImpulse))
                    }
                    return (dk_select4(speculative, s * inverseH, zero), one, zero)
                }
                let (b0, ms0, is0) = coefficients(s0)
                let (b1, _, _) = coefficients(s1)
                let r0Ax = p0.pointee.rAx, r0Ay = p0.pointee.rAy, r0Bx = p0.pointee.rBx, r0By = p0.pointee.rBy
                let r1Ax = p1.pointee.rAx, r1Ay = p1.pointee.rAy, r1Bx = p1.pointee.rBx, r1By = p1.pointee.rBy
                let a0 = p0.pointee.normalImpulse, a1 = p1.pointee.normalImpulse
                // Normal velocity of a point: dot((vB + ωB × rB) − (vA + ωA × rA), n).
                @inline(__always) func normalVelocity(_ vAx: V, _ vAy: V, _ wA: V, _ vBx: V, _ vBy: V, _ wB: V,
                                                      _ rAx: V, _ rAy: V, _ rBx: V, _ rBy: V) -> V {
                    ((vBx - wB * rBy) - (vAx - wA * rAy)) * nx + ((vBy + wB * rBx) - (vAy + wA * rAx)) * ny
                }
                // The block: both points at once, where there are two in the same regime and it pushes at both.
                let vn0 = normalVelocity(vAx, vAy, wA, vBx, vBy, wB, r0Ax, r0Ay, r0Bx, r0By) + b0
                let vn1 = normalVelocity(vAx, vAy, wA, vBx, vBy, wB, r1Ax, r1Ay, r1Bx, r1By) + b1
                let invDet = b.pointee.invDet
                let k11 = b.pointee.k11, k12 = b.pointee.k12, k22 = b.pointee.k22
                let blockN0 = a0 - ms0 * invDet * (k22 * vn0 - k12 * vn1) - is0 * a0
                let blockN1 = a1 - ms0 * invDet * (k11 * vn1 - k12 * vn0) - is0 * a1
                let sameRegime = ~(dk_lt4(zero, s0) ^ dk_lt4(zero, s1))
                let block = dk_ne4(invDet, zero) & sameRegime & dk_le4(zero, blockN0) & dk_le4(zero, blockN1)
                // Point by point, from the same start.
                var qAx = vAx, qAy = vAy, qA = wA, qBx = vBx, qBy = vBy, qB = wB
                @inline(__always) func single(_ p: UnsafeMutablePointer<WideContactPoint>, _ s: V,
                                              _ rAx: V, _ rAy: V, _ rBx: V, _ rBy: V) -> (impulse: V, total: V) {
                    let (bias, massScale, impulseScale) = coefficients(s)
                    let vn = normalVelocity(qAx, qAy, qA, qBx, qBy, qB, rAx, rAy, rBx, rBy)
                    let old = p.pointee.normalImpulse
                    let raw = zero - p.pointee.normalMass * massScale * (vn + bias) - impulseScale * old
                    let total = dk_max4(old + raw, zero)
                    let impulse = total - old
                    let Px = impulse * nx, Py = impulse * ny
                    qAx -= mA * Px; qAy -= mA * Py; qA -= iA * (rAx * Py - rAy * Px)
                    qBx += mB * Px; qBy += mB * Py; qB += iB * (rBx * Py - rBy * Px)
                    return (impulse, total)
                }
                let single0 = single(p0, s0, r0Ax, r0Ay, r0Bx, r0By)
                let single1 = single(p1, s1, r1Ax, r1Ay, r1Bx, r1By)
                // Apply the block's increments and pick per lane.
                let x0 = blockN0 - a0, x1 = blockN1 - a1
                let P0x = x0 * nx, P0y = x0 * ny, P1x = x1 * nx, P1y = x1 * ny
                let blockAx = vAx - mA * (P0x + P1x), blockAy = vAy - mA * (P0y + P1y)
                let blockA = wA - iA * ((r0Ax * P0y - r0Ay * P0x) + (r1Ax * P1y - r1Ay * P1x))
                let blockBx = vBx + mB * (P0x + P1x), blockBy = vBy + mB * (P0y + P1y)
                let blockB = wB + iB * ((r0Bx * P0y - r0By * P0x) + (r1Bx * P1y - r1By * P1x))
                vAx = dk_select4(block, blockAx, qAx); vAy = dk_select4(block, blockAy, qAy); wA = dk_select4(block, blockA, qA)
                vBx = dk_select4(block, blockBx, qBx); vBy = dk_select4(block, blockBy, qBy); wB = dk_select4(block, blockB, qB)
                let n0 = dk_select4(block, blockN0, single0.total), n1 = dk_select4(block, blockN1, single1.total)
                p0.pointee.normalImpulse = n0
                p1.pointee.normalImpulse = n1
                p0.pointee.maxNormalImpulse = dk_max4(p0.pointee.maxNormalImpulse, dk_select4(block, x0, single0.impulse))
                p1.pointee.maxNormalImpulse = dk_max4(p1.pointee.maxNormalImpulse, dk_select4(block, x1, single1.impulse))
                // Friction, point by point, bounded by the new normal impulses; t = (ny, −nx).
                let friction = b.pointee.friction
                @inline(__always) func rub(_ p: UnsafeMutablePointer<WideContactPoint>, _ normal: V,
                                           _ rAx: V, _ rAy: V, _ rBx: V, _ rBy: V) {
                    let vt = ((vBx - wB * rBy) - (vAx - wA * rAy)) * ny - ((vBy + wB * rBx) - (vAy + wA * rAx)) * nx
                    let old = p.pointee.tangentImpulse
                    let limit = friction * normal
                    let total = dk_min4(dk_max4(old - p.pointee.tangentMass * vt, zero - limit), limit)
                    p.pointee.tangentImpulse = total
                    let impulse = total - old
                    let Px = impulse * ny, Py = zero - impulse * nx
                    vAx -= mA * Px; vAy -= mA * Py; wA -= iA * (rAx * Py - rAy * Px)
                    vBx += mB * Px; vBy += mB * Py; wB += iB * (rBx * Py - rBy * Px)
                }
                rub(p0, n0, r0Ax, r0Ay, r0Bx, r0By)
                rub(p1, n1, r1Ax, r1Ay, r1Bx, r1By)
                packedScatter(packedVel, ea, vAx, vAy, wA)
                packedScatter(packedVel, eb, vBx, vBy, wB)
            }
        }
        contactBodies.withUnsafeBufferPointer { list in
            for e in 1..<list.count where list[e] < awake {
                let v = (packedVel + 16 &* e).load(as: V.self)
                vel[Int(list[e])] = Vec2(v[0], v[1])
                angVel[Int(list[e])] = v[2]
            }
        }
    }
}
