// Rigid distance joints, four at a time.
//
// The joint graph is coloured so that no two joints of one colour share an awake body (DESIGN.md: wide batches from
// colouring); each colour is cut into batches of four, whose joints are solved in the four lanes of SSE2 vectors. A
// rigid distance joint (a rod: UIKit's attachment without frequency, the joint grid's links) is the common joint of
// large scenes; every other joint, and a rod that finds no free colour among 64, is solved by the scalar path
// first, in joint order. The colouring is a greedy pass in joint order, so it is deterministic. The batches are
// kept from step to step and rebuilt only when something they hold changes (`prepareJoints` checks): a net that
// stays awake is coloured once.
//
// Rods that join centres of mass (or a centre and a world point) never turn their bodies: they get batches of their
// own (`CentreRodBatch`) that move only linear velocities, about half the work of a general batch.
//
// The arithmetic is the scalar rigid branch of `solveDistance` lane for lane; only the order of the joints
// within a pass differs (colour by colour), as in any coloured Gauss–Seidel solver.
//
// The batches read and write a packed copy of their bodies' state, (vx, vy, ω, 0) and (x, y, cos, sin) per body,
// so that the four lanes of a side are four 16-byte loads and a transpose. The awake bodies of the rods are
// copied in before each pass and their velocities out after it (fewer copies when rods are all there is to solve);
// each fixed side (the world, a static or a sleeping body) has an entry of its own after them, with its pose and
// zero velocity, so no lane needs a branch.

import DynamicsSIMD

/// Four rigid distance joints of one colour, in SoA form. Each side of a lane is an entry of the packed state: an
/// awake body's, or one of its own for a fixed side (the world, a static or a sleeping body). Padding lanes have
/// two fixed sides 1 apart, rest length 1 and no mass, so they apply nothing.
@usableFromInline
struct WideRodBatch {
    typealias V = SIMD4<Float>
    /// Entries of each side in the packed state (`rodVelocity`, `rodPose`).
    var entryA: SIMD4<Int32>, entryB: SIMD4<Int32>
    /// The joint record of each lane, −1 for padding.
    var joint: SIMD4<Int32>
    /// Anchors in the body frames (for the world, the world point).
    var localAx: V, localAy: V, localBx: V, localBy: V
    var mA: V, iA: V, mB: V, iB: V
    var length: V
    /// The accumulated impulse along the rod (the record's `axialImpulse` during the step).
    var impulse: V
    /// Geometry at the current positions (the first sweep of `runWideRods` after positions moved): the anchors,
    /// the unit axis (zero where the anchors coincide), the axial mass (zero where the rod cannot act) and the
    /// length error.
    var rAx: V = .zero, rAy: V = .zero, rBx: V = .zero, rBy: V = .zero
    var ax: V = .zero, ay: V = .zero, axialMass: V = .zero, error: V = .zero
}

/// Four rigid distance joints of one colour whose anchors are their bodies' centres of mass (or a world point): UIKit's
/// default attachment, and the joint grid's links. With no lever arm the rod never turns its bodies, so a batch
/// reads and writes only the linear velocities and positions of the packed state: half the data, and none of the
/// angular terms. The arithmetic is `WideRodBatch`'s with the anchors zero, which changes no result (each dropped
/// term is an exact zero).
@usableFromInline
struct CentreRodBatch {
    typealias V = SIMD4<Float>
    /// Entries of each side in the packed state; a world side's entry holds the world point as its position.
    var entryA: SIMD4<Int32>, entryB: SIMD4<Int32>
    /// The joint record of each lane, −1 for padding.
    var joint: SIMD4<Int32>
    var mA: V, mB: V
    var length: V
    var impulse: V
    /// Geometry at the current positions: the unit axis, the axial mass and the length error.
    var ax: V = .zero, ay: V = .zero, axialMass: V = .zero, error: V = .zero
}

extension World {
    /// Whether a wide rod acts through its bodies' centres: each body side anchored at its centre of mass, or a
    /// world point.
    @inline(__always) static func isCentreRod(_ jr: JointRecord) -> Bool {
        jr.localA == .zero && (jr.bodyB < 0 || jr.localB == .zero)
    }

    /// Whether the wide path takes this joint: a rigid distance joint.
    @inline(__always) static func isWideRod(_ jr: JointRecord) -> Bool {
        jr.kind == .distance && !(jr.minLength < jr.maxLength)
    }

    /// Colours the awake joints and builds `wideRods` (batches in colour order), `scalarJoints` (the rest, in joint
    /// order) and the packed state of the rods' bodies. Runs after `prepareJoints` has filled slots and masses.
    func buildWideRods() {
        wideRods.removeAll(keepingCapacity: true)
        centreRods.removeAll(keepingCapacity: true)
        scalarJoints.removeAll(keepingCapacity: true)
        rodColoured.removeAll(keepingCapacity: true)
        rodBodies.removeAll(keepingCapacity: true)
        let awake = bodies.awakeCount
        var rods = 0
        joints.withUnsafeBufferPointer { js in
            for j in awakeJoints where World.isWideRod(js[Int(j)]) { rods += 1 }
        }
        guard rods >= wideRodMinimum else {
            scalarJoints.append(contentsOf: awakeJoints)
            return
        }
        if rodBodyColours.count < awake {
            rodBodyColours.append(contentsOf: repeatElement(0, count: awake - rodBodyColours.count))
            rodBodyEntry.append(contentsOf: repeatElement(-1, count: awake - rodBodyEntry.count))
        }
        if rodColourStart.count < 65 { rodColourStart = [Int](repeating: 0, count: 65) }
        joints.withUnsafeBufferPointer { js in
            rodBodyColours.withUnsafeMutableBufferPointer { used in
            rodBodyEntry.withUnsafeMutableBufferPointer { entry in
            rodColourStart.withUnsafeMutableBufferPointer { count in
                for s in 0..<awake { used[s] = 0; entry[s] = -1 }
                for c in 0..<65 { count[c] = 0 }
                for j in awakeJoints {
                    let jr = js[Int(j)]
                    guard World.isWideRod(jr) else { scalarJoints.append(j); continue }
                    var taken: UInt64 = 0
                    if jr.slotA >= 0 { taken |= used[Int(jr.slotA)] }
                    if jr.slotB >= 0 { taken |= used[Int(jr.slotB)] }
                    guard taken != .max else { scalarJoints.append(j); continue }
                    let c = (~taken).trailingZeroBitCount
                    let bit: UInt64 = 1 << UInt64(c)
                    @inline(__always) func take(_ slot: Int32) {
                        guard slot >= 0 else { return }
                        used[Int(slot)] |= bit
                        if entry[Int(slot)] < 0 {
                            entry[Int(slot)] = Int32(rodBodies.count)
                            rodBodies.append(slot)
                        }
                    }
                    take(jr.slotA)
                    take(jr.slotB)
                    rodColoured.append(UInt64(c) << 32 | UInt64(UInt32(bitPattern: j)))
                    count[c + 1] += 1
                }
            }
            }
            }
        }
        guard !rodColoured.isEmpty else { return }
        sortByColour(rodColoured, into: &rodSorted, colourStart: &rodColourStart)
        // `rodColourStart[c]` now holds the end of colour c. Within a colour, the centre rods and the others are
        // cut into batches of their own (first all centre batches, then the others: any order of batches is a
        // Gauss–Seidel order, as no two lanes of a colour share a body). Packed entries: the rods' awake bodies
        // first, then one per fixed side of every lane (padding lanes included), in batch order.
        let js = joints
        var centreCount = 0, otherCount = 0
        var start = 0
        for c in 0..<64 {
            let end = rodColourStart[c]
            var centre = 0
            for k in start..<end where World.isCentreRod(js[Int(rodSorted[k])]) { centre += 1 }
            centreCount += (centre + 3) / 4
            otherCount += (end - start - centre + 3) / 4
            start = end
        }
        let entryCount = rodBodies.count + 8 * (centreCount + otherCount)
        wideRodGeometryStale = true
        rodVelocity.reserve(entryCount, count: 0)
        rodPose.reserve(entryCount, count: 0)
        typealias V = SIMD4<Float>
        let vel = rodVelocity.base, pose = rodPose.base
        var nextFixed = rodBodies.count
        /// One lane's values; a padding lane has two fixed points 1 apart, no mass and rest length 1.
        struct Lane {
            var joint: Int32 = -1, entryA: Int32 = 0, entryB: Int32 = 0
            var localA = Vec2.zero, localB = Vec2.zero
            var mA: Float = 0, iA: Float = 0, mB: Float = 0, iB: Float = 0, length: Float = 1, impulse: Float = 0
        }
        @inline(__always) func fixedEntry(_ p: Vec2, _ q: Rot) -> Int32 {
            vel[nextFixed] = .zero
            pose[nextFixed] = V(p.x, p.y, q.c, q.s)
            nextFixed += 1
            return Int32(nextFixed - 1)
        }
        /// The lane of joint j, or a padding lane for nil. A centre rod's world side is an entry at the world point.
        @inline(__always) func lane(_ j: Int?, centre: Bool) -> Lane {
            var lane = Lane()
            guard let j else {
                lane.entryA = fixedEntry(.zero, .identity)
                lane.entryB = fixedEntry(Vec2(1, 0), .identity)
                return lane
            }
            let jr = js[j]
            lane.joint = Int32(j)
            lane.localA = jr.localA; lane.localB = jr.localB
            lane.mA = jr.mA; lane.iA = jr.iA; lane.mB = jr.mB; lane.iB = jr.iB
            lane.length = jr.length; lane.impulse = jr.axialImpulse
            lane.entryA = jr.slotA >= 0 ? rodBodyEntry[Int(jr.slotA)] : fixedEntry(jr.fixedPosA, jr.fixedRotA)
            if jr.slotB >= 0 {
                lane.entryB = rodBodyEntry[Int(jr.slotB)]
            } else if centre && jr.bodyB < 0 {
                lane.entryB = fixedEntry(jr.localB, .identity)
            } else {
                lane.entryB = fixedEntry(jr.fixedPosB, jr.fixedRotB)
            }
            return lane
        }
        var centreLanes: [Int] = [], otherLanes: [Int] = []
        @inline(__always) func at(_ list: [Int], _ k: Int) -> Int? { k < list.count ? list[k] : nil }
        /// The lanes of the joints in `list`, four at a time in order (the last four padded).
        @inline(__always) func quads(_ list: [Int], centre: Bool, _ body: (Lane, Lane, Lane, Lane) -> Void) {
            var k = 0
            while k < list.count {
                body(lane(at(list, k), centre: centre), lane(at(list, k + 1), centre: centre),
                     lane(at(list, k + 2), centre: centre), lane(at(list, k + 3), centre: centre))
                k += 4
            }
        }
        start = 0
        for c in 0..<64 {
            let end = rodColourStart[c]
            centreLanes.removeAll(keepingCapacity: true)
            otherLanes.removeAll(keepingCapacity: true)
            for k in start..<end {
                let j = Int(rodSorted[k])
                if World.isCentreRod(js[j]) { centreLanes.append(j) } else { otherLanes.append(j) }
            }
            start = end
            quads(centreLanes, centre: true) { l0, l1, l2, l3 in
                centreRods.append(CentreRodBatch(
                    entryA: SIMD4(l0.entryA, l1.entryA, l2.entryA, l3.entryA),
                    entryB: SIMD4(l0.entryB, l1.entryB, l2.entryB, l3.entryB),
                    joint: SIMD4(l0.joint, l1.joint, l2.joint, l3.joint),
                    mA: V(l0.mA, l1.mA, l2.mA, l3.mA), mB: V(l0.mB, l1.mB, l2.mB, l3.mB),
                    length: V(l0.length, l1.length, l2.length, l3.length),
                    impulse: V(l0.impulse, l1.impulse, l2.impulse, l3.impulse)))
            }
            quads(otherLanes, centre: false) { l0, l1, l2, l3 in
                wideRods.append(WideRodBatch(
                    entryA: SIMD4(l0.entryA, l1.entryA, l2.entryA, l3.entryA),
                    entryB: SIMD4(l0.entryB, l1.entryB, l2.entryB, l3.entryB),
                    joint: SIMD4(l0.joint, l1.joint, l2.joint, l3.joint),
                    localAx: V(l0.localA.x, l1.localA.x, l2.localA.x, l3.localA.x),
                    localAy: V(l0.localA.y, l1.localA.y, l2.localA.y, l3.localA.y),
                    localBx: V(l0.localB.x, l1.localB.x, l2.localB.x, l3.localB.x),
                    localBy: V(l0.localB.y, l1.localB.y, l2.localB.y, l3.localB.y),
                    mA: V(l0.mA, l1.mA, l2.mA, l3.mA), iA: V(l0.iA, l1.iA, l2.iA, l3.iA),
                    mB: V(l0.mB, l1.mB, l2.mB, l3.mB), iB: V(l0.iB, l1.iB, l2.iB, l3.iB),
                    length: V(l0.length, l1.length, l2.length, l3.length),
                    impulse: V(l0.impulse, l1.impulse, l2.impulse, l3.impulse)))
            }
        }
    }

    /// The wide batches' impulses back into the joint records (for the next step's warm start).
    func storeWideRodImpulses() {
        joints.withUnsafeMutableBufferPointer { js in
            for b in centreRods {
                for l in 0..<4 where b.joint[l] >= 0 { js[Int(b.joint[l])].axialImpulse = b.impulse[l] }
            }
            for b in wideRods {
                for l in 0..<4 where b.joint[l] >= 0 { js[Int(b.joint[l])].axialImpulse = b.impulse[l] }
            }
        }
    }

    /// Warm start or one solve pass of every wide batch, between copying the rods' awake bodies into the packed
    /// state and their velocities back. When rods are all there is to solve (`rodsAlone`), nothing touches the
    /// velocities between the warm start and the solve pass, nor between the solve pass and the relax pass (the
    /// position update reads them only), so those copies are skipped: `copyIn` and `copyOut` say which are needed.
    func runWideRods(warmStart: Bool, soft: Softness, useBias: Bool, copyIn: Bool, copyOut: Bool) {
        guard !wideRods.isEmpty || !centreRods.isEmpty else { return }
        typealias V = SIMD4<Float>
        let pos = bodies.position.base, rot = bodies.rotation.base
        let vel = bodies.velocity.base, angVel = bodies.angularVelocity.base
        let packedVel = UnsafeMutableRawPointer(rodVelocity.base), packedPose = UnsafeMutableRawPointer(rodPose.base)
        let copyPoses = wideRodGeometryStale
        if copyIn && copyPoses {
            rodBodies.withUnsafeBufferPointer { list in
                for (e, slot) in list.enumerated() {
                    let s = Int(slot), v = vel[s], p = pos[s], q = rot[s]
                    (packedVel + 16 &* e).storeBytes(of: V(v.x, v.y, angVel[s], 0), as: V.self)
                    (packedPose + 16 &* e).storeBytes(of: V(p.x, p.y, q.c, q.s), as: V.self)
                }
            }
        } else if copyIn {
            rodBodies.withUnsafeBufferPointer { list in
                for (e, slot) in list.enumerated() {
                    let s = Int(slot), v = vel[s]
                    (packedVel + 16 &* e).storeBytes(of: V(v.x, v.y, angVel[s], 0), as: V.self)
                }
            }
        } else if copyPoses {
            rodBodies.withUnsafeBufferPointer { list in
                for (e, slot) in list.enumerated() {
                    let s = Int(slot), p = pos[s], q = rot[s]
                    (packedPose + 16 &* e).storeBytes(of: V(p.x, p.y, q.c, q.s), as: V.self)
                }
            }
        }
        // The geometry depends on positions only: it is computed in its own sweep (independent batches, which
        // the processor overlaps) when positions have moved, and shared by the passes in between.
        if wideRodGeometryStale {
            wideRodGeometryStale = false
            centreRods.withUnsafeMutableBufferPointer { batches in
                guard let first = batches.baseAddress else { return }
                for k in 0..<batches.count {
                    let b = first + k
                    let (pAx, pAy) = packedGatherPairs(packedPose, packedEntries(&b.pointee.entryA))
                    let (pBx, pBy) = packedGatherPairs(packedPose, packedEntries(&b.pointee.entryB))
                    let dx = pBx - pAx, dy = pBy - pAy
                    let len = dk_sqrt4(dx * dx + dy * dy)
                    let valid = dk_lt4(V(repeating: 1e-6), len)
                    let inv = 1 / dk_select4(valid, len, V(repeating: 1))
                    let kk = b.pointee.mA + b.pointee.mB
                    let usable = valid & dk_lt4(.zero, kk)
                    b.pointee.ax = dk_select4(valid, dx * inv, .zero); b.pointee.ay = dk_select4(valid, dy * inv, .zero)
                    b.pointee.axialMass = dk_select4(usable, 1 / dk_select4(usable, kk, V(repeating: 1)), .zero)
                    b.pointee.error = len - b.pointee.length
                }
            }
            wideRods.withUnsafeMutableBufferPointer { batches in
                for k in 0..<batches.count {
                    let b = batches.baseAddress! + k
                    let (pAx, pAy, cA, sA) = packedGather(packedPose, packedEntries(&b.pointee.entryA))
                    let (pBx, pBy, cB, sB) = packedGather(packedPose, packedEntries(&b.pointee.entryB))
                    // Anchors from the current rotations (for the world, the identity and the world point).
                    let rAx = cA * b.pointee.localAx - sA * b.pointee.localAy
                    let rAy = sA * b.pointee.localAx + cA * b.pointee.localAy
                    let rBx = cB * b.pointee.localBx - sB * b.pointee.localBy
                    let rBy = sB * b.pointee.localBx + cB * b.pointee.localBy
                    let dx = (pBx + rBx) - (pAx + rAx), dy = (pBy + rBy) - (pAy + rAy)
                    let len = dk_sqrt4(dx * dx + dy * dy)
                    let valid = dk_lt4(V(repeating: 1e-6), len)
                    let inv = 1 / dk_select4(valid, len, V(repeating: 1))
                    let ax = dk_select4(valid, dx * inv, .zero), ay = dk_select4(valid, dy * inv, .zero)
                    let crA = rAx * ay - rAy * ax, crB = rBx * ay - rBy * ax
                    let kk = b.pointee.mA + b.pointee.mB + b.pointee.iA * crA * crA + b.pointee.iB * crB * crB
                    let usable = valid & dk_lt4(.zero, kk)
                    b.pointee.rAx = rAx; b.pointee.rAy = rAy; b.pointee.rBx = rBx; b.pointee.rBy = rBy
                    b.pointee.ax = ax; b.pointee.ay = ay
                    b.pointee.axialMass = dk_select4(usable, 1 / dk_select4(usable, kk, V(repeating: 1)), .zero)
                    b.pointee.error = len - b.pointee.length
                }
            }
        }
        let biasRate = V(repeating: useBias ? soft.biasRate : 0)
        let massScale = V(repeating: useBias ? soft.massScale : 1)
        let impulseScale = V(repeating: useBias ? soft.impulseScale : 0)
        centreRods.withUnsafeMutableBufferPointer { batches in
            guard let first = batches.baseAddress else { return }
            for k in 0..<batches.count {
                let b = first + k
                let ea = packedEntries(&b.pointee.entryA), eb = packedEntries(&b.pointee.entryB)
                var (vAx, vAy) = packedGatherPairs(packedVel, ea)
                var (vBx, vBy) = packedGatherPairs(packedVel, eb)
                let ax = b.pointee.ax, ay = b.pointee.ay
                let impulse: V
                if warmStart {
                    impulse = b.pointee.impulse
                } else {
                    let cdot = ax * (vBx - vAx) + ay * (vBy - vAy)
                    let axialMass = b.pointee.axialMass
                    let raw = -massScale * axialMass * (cdot + biasRate * b.pointee.error) - impulseScale * b.pointee.impulse
                    impulse = dk_select4(dk_lt4(.zero, axialMass), raw, .zero)
                    b.pointee.impulse += impulse
                }
                let mA = b.pointee.mA, mB = b.pointee.mB
                let Px = impulse * ax, Py = impulse * ay
                vAx -= mA * Px; vAy -= mA * Py
                vBx += mB * Px; vBy += mB * Py
                packedScatterPairs(packedVel, ea, vAx, vAy)
                packedScatterPairs(packedVel, eb, vBx, vBy)
            }
        }
        wideRods.withUnsafeMutableBufferPointer { batches in
            for k in 0..<batches.count {
                let b = batches.baseAddress! + k
                let ea = packedEntries(&b.pointee.entryA), eb = packedEntries(&b.pointee.entryB)
                var (vAx, vAy, wA, _) = packedGather(packedVel, ea)
                var (vBx, vBy, wB, _) = packedGather(packedVel, eb)
                let rAx = b.pointee.rAx, rAy = b.pointee.rAy, rBx = b.pointee.rBx, rBy = b.pointee.rBy
                let ax = b.pointee.ax, ay = b.pointee.ay
                let impulse: V
                if warmStart {
                    // Zero where the anchors coincide (the axis is zero there).
                    impulse = b.pointee.impulse
                } else {
                    // Relative velocity of the anchors along the rod: v + ω × r on each side.
                    let cdot = ax * ((vBx - wB * rBy) - (vAx - wA * rAy)) + ay * ((vBy + wB * rBx) - (vAy + wA * rAx))
                    let axialMass = b.pointee.axialMass
                    let raw = -massScale * axialMass * (cdot + biasRate * b.pointee.error) - impulseScale * b.pointee.impulse
                    // Where the rod cannot act (axial mass zero) the impulse is zero, as in the scalar early return.
                    impulse = dk_select4(dk_lt4(.zero, axialMass), raw, .zero)
                    b.pointee.impulse += impulse
                }
                let mA = b.pointee.mA, iA = b.pointee.iA, mB = b.pointee.mB, iB = b.pointee.iB
                let Px = impulse * ax, Py = impulse * ay
                vAx -= mA * Px; vAy -= mA * Py; wA -= iA * (rAx * Py - rAy * Px)
                vBx += mB * Px; vBy += mB * Py; wB += iB * (rBx * Py - rBy * Px)
                packedScatter(packedVel, ea, vAx, vAy, wA)
                packedScatter(packedVel, eb, vBx, vBy, wB)
            }
        }
        guard copyOut else { return }
        rodBodies.withUnsafeBufferPointer { list in
            for (e, slot) in list.enumerated() {
                let v = (packedVel + 16 &* e).load(as: V.self)
                vel[Int(slot)] = Vec2(v[0], v[1])
                angVel[Int(slot)] = v[2]
            }
        }
    }
}
