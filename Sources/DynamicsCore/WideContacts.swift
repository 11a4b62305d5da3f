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
//
// The pass over the batches is C (`dk_contact_pass_run`, ContactBody.h): the batches of one colour share no awake
// body, so it solves one or two (AVX2) of them side by side, whatever the processor offers, with bit-identical
// results.

import DynamicsSIMD

/// One contact point of each of four lanes (`dk_contact_point`, DynamicsContacts.h).
@usableFromInline typealias WideContactPoint = dk_contact_point

/// Four contact constraints of one colour, in SoA form (`dk_contact_batch`, DynamicsContacts.h).
@usableFromInline typealias WideContactBatch = dk_contact_batch

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
        // Colours in use per entry (awake bodies only): at most one entry per slot, and two per constraint.
        let entryBound = Swift.min(2 * count, slots) + 1
        if contactBodyColours.count < entryBound {
            contactBodyColours.append(contentsOf: repeatElement(0, count: entryBound - contactBodyColours.count))
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
                /// The slot's entry, made on its first contact.
                @inline(__always) func enter(_ slot: Int32) -> Int {
                    let e = entry[Int(slot)]
                    if e >= 0 { return Int(e) }
                    let fresh = contactBodies.count
                    entry[Int(slot)] = Int32(fresh)
                    contactBodies.append(slot)
                    used[fresh] = 0
                    return fresh
                }
                for k in 0..<count {
                    let sa = cs[k].slotA, sb = cs[k].slotB
                    let ea = enter(sa), eb = enter(sb)
                    var taken: UInt64 = 0
                    if Int(sa) < awake { taken |= used[ea] }
                    if Int(sb) < awake { taken |= used[eb] }
                    guard taken != .max else { coloured = false; break }
                    let c = (~taken).trailingZeroBitCount
                    let bit: UInt64 = 1 << UInt64(c)
                    if Int(sa) < awake { used[ea] |= bit }
                    if Int(sb) < awake { used[eb] |= bit }
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
                // Sized for this step's batches at once (a quarter of each colour, rounded up), with an eighth to spare.
                var batches = 0, colourStart = 0
                for colour in 0..<64 {
                    let end = contactColourStart[colour]
                    batches += (end - colourStart + 3) / 4
                    colourStart = end
                }
                if wideContacts.capacity < batches { wideContacts.reserveCapacity(batches + batches / 8) }
                var k = 0
                wideContactColourEnds.removeAll(keepingCapacity: true)
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
                    if wideContacts.count > Int(wideContactColourEnds.last ?? 0) {
                        wideContactColourEnds.append(Int32(wideContacts.count))
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
        wideContacts.withUnsafeMutableBufferPointer { batches in
            wideContactColourEnds.withUnsafeBufferPointer { ends in
                var pass = dk_contact_pass(
                    batches: batches.baseAddress, colourEnds: ends.baseAddress, colourCount: ends.count,
                    velocity: packedVel.assumingMemoryBound(to: Float.self),
                    pose: UnsafePointer(packedPose.assumingMemoryBound(to: Float.self)),
                    warmStart: warmStart ? 1 : 0, useBias: useBias ? 1 : 0,
                    invH: invH, maxPush: settings.contactPushMaxVelocity)
                dk_contact_pass_run(&pass)
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
