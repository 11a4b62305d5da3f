// Contact constraints, four at a time.
//
// With enough contacts (`wideContactMinimum`), `prepareContacts` colors them so that no two of one color share an
// awake body (static bodies do not count: nothing is written to them), cuts each color into batches of four and
// builds the constraints straight into those batches: four contacts are gathered into vectors and their masses,
// anchors and separations computed on four lanes at once, with the scalar path's arithmetic lane for lane. No
// scalar constraint is built for them. The coloring is a greedy pass in contact order (contacts are sorted by key),
// so it is deterministic. A contact that finds no free color among 64 (in a violent impact, a fast body's
// speculative contacts can crowd a pair of bodies) goes to the overflow: it becomes a scalar constraint of
// ContactSolver.swift, and every pass solves the overflow first, then the batches (Box2D v3 does the same). With
// few contacts, the step takes the scalar path for all of them.
//
// The solve is the scalar solver's lane for lane: soft normal impulses with speculative separation, the 2×2 block
// for two-point manifolds where it pushes at both points (otherwise point by point), then Coulomb friction. Both
// the block and the point-by-point results are computed for every lane and one is selected per lane; where every
// lane of a group takes the block (a standing stack's faces, mostly) the point-by-point results are not computed,
// as all of them would be dropped. That changes no bit: the passes at 4, 8 and 16 lanes, whose groups differ,
// agree bit for bit. Only the order of the constraints within a pass differs (color by color), as in any colored
// Gauss–Seidel solver. Restitution, which few contacts need, runs after the last substep in contact order, as on
// the scalar path: each bouncing contact is read out of its lane, solved by the scalar code and put back.
//
// The batches read and write a packed copy of their bodies' state, (vx, vy, ω, 0) and (x, y, cos, sin) per body,
// as the wide joints do. Entry 0 is a zero entry for padding lanes; then one entry per body the contacts touch,
// static ones included (their velocity stays zero and is never copied back).
//
// The pass over the batches is C (`dk_contact_pass_run`, ContactBody.h): the batches of one color share no awake
// body, so it solves one or two (AVX2) of them side by side, whatever the processor offers, with bit-identical
// results.

import DynamicsSIMD

/// One contact point of each of four lanes (`dk_contact_point`, DynamicsContacts.h).
typealias WideContactPoint = dk_contact_point

/// Four contact constraints of one color, in SoA form (`dk_contact_batch`, DynamicsContacts.h).
typealias WideContactBatch = dk_contact_batch

/// One batch's inputs: four lanes gathered from the contacts one by one into `Lane`s (`init(lanes:)`), then computed
/// on four lanes at once, with the arithmetic of the scalar `prepareContacts` lane for lane, and written into the
/// batch table (`write(to:)`).
/// Padding lanes are zeros on the zero entry, without a constraint, and rigid.
private struct ContactLanes {
    typealias V = SIMD4<Float>
    typealias M = SIMD4<Int32>

    /// One point's inputs in one lane (zeros without the point).
    struct LanePoint {
        var rAx: Float = 0, rAy: Float = 0, rBx: Float = 0, rBy: Float = 0
        var separation: Float = 0, normalImpulse: Float = 0, tangentImpulse: Float = 0

        @inline(__always) init() {}

        /// The point's anchors from the centers of mass at `pA` and `pB`, as the narrowphase computed them.
        @inline(__always) init(_ mp: ManifoldPoint, _ pA: Vec2, _ pB: Vec2, normal n: Vec2) {
            let rA = mp.anchorA(from: pA, normal: n), rB = mp.anchorB(from: pB, normal: n)
            rAx = rA.x; rAy = rA.y; rBx = rB.x; rBy = rB.y
            separation = mp.separation; normalImpulse = mp.normalImpulse; tangentImpulse = mp.tangentImpulse
        }
    }

    /// One lane's inputs, as scalars: written one lane at a time, read four lanes at a time.
    struct Lane {
        var constraint: Int32 = -1, entryA: Int32 = 0, entryB: Int32 = 0, two: Int32 = 0
        var nx: Float = 0, ny: Float = 0, friction: Float = 0, mA: Float = 0, iA: Float = 0, mB: Float = 0, iB: Float = 0
        /// pB − pA at the start of the step, and both rotations.
        var d0x: Float = 0, d0y: Float = 0, cA: Float = 1, sA: Float = 0, cB: Float = 1, sB: Float = 0
        var p0 = LanePoint(), p1 = LanePoint()

        /// A padding lane.
        @inline(__always) init() {}

        /// Contact `c` (number `index`) between the bodies at `slotA` and `slotB`; static and sleeping sides (at or
        /// past `awake`) keep zero inverse mass.
        @inline(__always) init(_ c: UnsafePointer<Contact>, index: Int, slotA sa: Int, slotB sb: Int,
                               entryA ea: Int32, entryB eb: Int32, awake: Int,
                               pos: UnsafeMutablePointer<Vec2>, rot: UnsafeMutablePointer<Rotation>,
                               invMass: UnsafeMutablePointer<Float>, invI: UnsafeMutablePointer<Float>) {
            constraint = Int32(index)
            entryA = ea; entryB = eb
            nx = c.pointee.manifold.normal.x; ny = c.pointee.manifold.normal.y
            friction = c.pointee.friction
            if sa < awake { mA = invMass[sa]; iA = invI[sa] }
            if sb < awake { mB = invMass[sb]; iB = invI[sb] }
            let pA = pos[sa], pB = pos[sb], qA = rot[sa], qB = rot[sb]
            let d0 = pB - pA
            d0x = d0.x; d0y = d0.y
            cA = qA.c; sA = qA.s; cB = qB.c; sB = qB.s
            p0 = LanePoint(c.pointee.manifold.points.0, pA, pB, normal: c.pointee.manifold.normal)
            if c.pointee.manifold.pointCount == 2 {
                two = -1
                p1 = LanePoint(c.pointee.manifold.points.1, pA, pB, normal: c.pointee.manifold.normal)
            }
        }
    }

    /// One point's inputs in four lanes.
    struct Point {
        var rAx: V, rAy: V, rBx: V, rBy: V
        var separation: V, normalImpulse: V, tangentImpulse: V
    }

    var constraint: M, entryA: M, entryB: M, two: M
    var nx: V, ny: V, friction: V, mA: V, iA: V, mB: V, iB: V
    var d0x: V, d0y: V, cA: V, sA: V, cB: V, sB: V
    var p0: Point, p1: Point

    /// The four lanes at `l`.
    @inline(__always) init(lanes l: UnsafeMutablePointer<Lane>) {
        @inline(__always) func v(_ f: (Lane) -> Float) -> V { V(f(l[0]), f(l[1]), f(l[2]), f(l[3])) }
        @inline(__always) func i(_ f: (Lane) -> Int32) -> M { M(f(l[0]), f(l[1]), f(l[2]), f(l[3])) }
        @inline(__always) func point(_ f: (Lane) -> LanePoint) -> Point {
            Point(rAx: v { f($0).rAx }, rAy: v { f($0).rAy }, rBx: v { f($0).rBx }, rBy: v { f($0).rBy },
                  separation: v { f($0).separation }, normalImpulse: v { f($0).normalImpulse },
                  tangentImpulse: v { f($0).tangentImpulse })
        }
        constraint = i { $0.constraint }; entryA = i { $0.entryA }; entryB = i { $0.entryB }; two = i { $0.two }
        nx = v { $0.nx }; ny = v { $0.ny }; friction = v { $0.friction }
        mA = v { $0.mA }; iA = v { $0.iA }; mB = v { $0.mB }; iB = v { $0.iB }
        d0x = v { $0.d0x }; d0y = v { $0.d0y }; cA = v { $0.cA }; sA = v { $0.sA }; cB = v { $0.cB }; sB = v { $0.sB }
        p0 = point { $0.p0 }; p1 = point { $0.p1 }
    }

    /// Writes a point's constraint values to `out`, kept where `mask` is set (zeros elsewhere); returns cross(rA, n),
    /// cross(rB, n) and the normal mass's inverse kN.
    @inline(__always) func write(_ p: Point, _ mask: SIMDMask<M>, to out: UnsafeMutablePointer<WideContactPoint>) -> (rnA: V, rnB: V, kN: V) {
        let rAx = p.rAx, rAy = p.rAy, rBx = p.rBx, rBy = p.rBy
        let zero = V()
        @inline(__always) func keep(_ x: V) -> V { x.replacing(with: 0, where: .!mask) }
        // t = rightPerp(n) = (ny, −nx)
        let tx = ny, ty = -nx
        let rnA = rAx * ny - rAy * nx, rnB = rBx * ny - rBy * nx
        let kN = mA + mB + iA * rnA * rnA + iB * rnB * rnB
        let rtA = rAx * ty - rAy * tx, rtB = rBx * ty - rBy * tx
        let kT = mA + mB + iA * rtA * rtA + iB * rtB * rtB
        out.pointee.rAx = rAx; out.pointee.rAy = rAy; out.pointee.rBx = rBx; out.pointee.rBy = rBy
        // inverseRotate: (c·x + s·y, −s·x + c·y)
        out.pointee.localAx = keep(cA * rAx + sA * rAy); out.pointee.localAy = keep(-sA * rAx + cA * rAy)
        out.pointee.localBx = keep(cB * rBx + sB * rBy); out.pointee.localBy = keep(-sB * rBx + cB * rBy)
        out.pointee.adjustedSeparation = keep(p.separation - (((d0x + rBx) - rAx) * nx + ((d0y + rBy) - rAy) * ny))
        out.pointee.normalImpulse = p.normalImpulse; out.pointee.tangentImpulse = p.tangentImpulse
        out.pointee.maxNormalImpulse = zero
        out.pointee.normalMass = (1 / kN).replacing(with: zero, where: .!(kN .> zero) .| .!mask)
        out.pointee.tangentMass = (1 / kT).replacing(with: zero, where: .!(kT .> zero) .| .!mask)
        return (rnA, rnB, kN)
    }

    /// Writes the batch of these lanes to `out`, field by field into the table (a batch built on the stack and
    /// then copied in cost a 608-byte copy per batch). (The soft coefficients are the pass's: each lane takes the
    /// static or the dynamic pair by its inverse masses, `dk_contact_pass`.)
    @inline(__always) func write(to out: UnsafeMutablePointer<WideContactBatch>) {
        let live = constraint .>= 0, twoPoints = two .!= 0
        // (The batch's memory may be uninitialized: its fields are plain values, written without reading them.)
        let (rn1A, rn1B, k11) = withUnsafeMutablePointer(to: &out.pointee.p0) { write(p0, live, to: $0) }
        let (rn2A, rn2B, k22) = withUnsafeMutablePointer(to: &out.pointee.p1) { write(p1, twoPoints, to: $0) }
        let k12 = mA + mB + iA * rn1A * rn2A + iB * rn1B * rn2B
        let det = k11 * k22 - k12 * k12
        // Well conditioned only (Box2D's test): nearly coincident points are left to the sequential solve.
        let invDet = (1 / det).replacing(with: 0, where: .!(k11 * k11 .< 1000 * det))
        @inline(__always) func pair(_ x: V) -> V { x.replacing(with: 0, where: .!twoPoints) }
        out.pointee.entryA = entryA; out.pointee.entryB = entryB; out.pointee.constraint = constraint
        out.pointee.nx = nx; out.pointee.ny = ny; out.pointee.friction = friction
        out.pointee.mA = mA; out.pointee.iA = iA; out.pointee.mB = mB; out.pointee.iB = iB
        out.pointee.k11 = pair(k11); out.pointee.k12 = pair(k12); out.pointee.k22 = pair(k22)
        out.pointee.invDet = pair(invDet)
    }
}

extension World {
    /// The color of the contacts that find no free color among 64: they are solved as scalar constraints.
    static let overflowColor = 64

    /// Colors this step's contacts so that no two of one color share an awake body, giving each body a packed
    /// entry on its first contact: `contactColored` holds color << 32 | contact per contact (`overflowColor`
    /// for a contact whose bodies have all 64 colors taken between them) and `contactBodies` the entries' slots.
    func colorContacts() {
        let count = contactStore.contacts.count
        let awake = bodies.awakeCount, slots = bodies.count
        // Colors in use per entry (awake bodies only): at most one entry per slot, and two per contact.
        let entryBound = Swift.min(2 * count, slots) + 1
        if contactSolver.bodyColors.count < entryBound {
            contactSolver.bodyColors.append(contentsOf: repeatElement(0, count: entryBound - contactSolver.bodyColors.count))
        }
        if contactSolver.bodyEntry.count < slots {
            contactSolver.bodyEntry.append(contentsOf: repeatElement(-1, count: slots - contactSolver.bodyEntry.count))
        }
        if contactSolver.colorStart.count < World.overflowColor + 2 {
            contactSolver.colorStart = [Int](repeating: 0, count: World.overflowColor + 2)
        }
        // The list the coloring fills in place, one entry per contact: first each contact's two slots, read on the
        // workers when there are enough (the coloring's one pass then reads 8 bytes a contact instead of a 112-byte
        // record), then its color and index. Filled through one pointer: appending to the stored list would check
        // its uniqueness at every contact.
        contactSolver.colored.removeAll(keepingCapacity: true)
        if contactSolver.colored.capacity < count { contactSolver.colored.reserveCapacity(grownCapacity(count, from: contactSolver.colored.capacity)) }
        contactSolver.colored.append(contentsOf: repeatElement(0, count: count))
        let slot = bodies.slot
        contactStore.contacts.withUnsafeBufferPointer { cs in
            contactSolver.colored.withUnsafeMutableBufferPointer { out in
                slot.withUnsafeBufferPointer { slot in
                    forEachBlock(count: count, minimumBlock: 2048, parallelMinimum: workers.parallelColoring) { range in
                        for k in range {
                            let sa = slot[Int(cs[k].bodyA)], sb = slot[Int(cs[k].bodyB)]
                            out[k] = UInt64(UInt32(bitPattern: sa)) << 32 | UInt64(UInt32(bitPattern: sb))
                        }
                    }
                }
            }
        }
        // Entry 0 is the padding lanes' zero entry; the bodies' entries follow, at most one per slot and two per
        // contact (the list is sized for that, filled through a pointer, and cut to the entries made).
        contactSolver.bodies.removeAll(keepingCapacity: true)
        contactSolver.bodies.append(contentsOf: repeatElement(-1, count: entryBound))
        var entries = 1, awakeEntries = 0
        contactSolver.bodies.withUnsafeMutableBufferPointer { list in
            contactSolver.bodyColors.withUnsafeMutableBufferPointer { used in
            contactSolver.bodyEntry.withUnsafeMutableBufferPointer { entry in
            contactSolver.colorStart.withUnsafeMutableBufferPointer { start in
            contactSolver.colored.withUnsafeMutableBufferPointer { colored in
                for c in 0..<start.count { start[c] = 0 }
                /// The slot's entry, made on its first contact.
                @inline(__always) func enter(_ slot: Int32) -> Int {
                    let e = entry[Int(slot)]
                    if e >= 0 { return Int(e) }
                    let fresh = entries
                    entries += 1
                    if Int(slot) < awake { awakeEntries += 1 }
                    entry[Int(slot)] = Int32(fresh)
                    list[fresh] = slot
                    used[fresh] = 0
                    return fresh
                }
                /// Colors contact `k` between slots `sa` and `sb`: its color (`overflowColor` when all 64 are taken).
                @inline(__always) func color(_ k: Int, _ sa: Int32, _ sb: Int32) -> UInt64 {
                    let ea = enter(sa), eb = enter(sb)
                    var taken: UInt64 = 0
                    if Int(sa) < awake { taken |= used[ea] }
                    if Int(sb) < awake { taken |= used[eb] }
                    guard taken != .max else {
                        start[World.overflowColor + 1] += 1
                        return UInt64(World.overflowColor) << 32 | UInt64(k)
                    }
                    let c = (~taken).trailingZeroBitCount
                    let bit: UInt64 = 1 << UInt64(c)
                    if Int(sa) < awake { used[ea] |= bit }
                    if Int(sb) < awake { used[eb] |= bit }
                    start[c + 1] += 1
                    return UInt64(c) << 32 | UInt64(k)
                }
                for k in 0..<count {
                    let pair = colored[k]
                    colored[k] = color(k, Int32(truncatingIfNeeded: pair >> 32), Int32(truncatingIfNeeded: pair))
                }
            }
            }
            }
            }
        }
        contactSolver.bodies.removeLast(contactSolver.bodies.count - entries)
        contactSolver.awakeEntries = awakeEntries
    }

    /// Builds this step's constraints straight into colored batches of four (`wideContacts`) from the colored
    /// contacts (`colorContacts`), computing four lanes at once with the scalar `prepareContacts`'s arithmetic,
    /// lane for lane, and the overflow's into `constraints` (`overflowSoftness`: `contactSoftness` at this
    /// substep). Afterwards `contactColored[k]` holds contact k's place, batch << 2 | lane, or `overflowPlace` |
    /// its index in `constraints` (restitution reads them in contact order).
    func buildWideContacts(overflowSoftness: (contact: Softness, static: Softness)) {
        bodies.withColumns { columns in
            sortByColor(contactSolver.colored, into: &contactSolver.sorted, colorStart: &contactSolver.colorStart)
            // `contactColorStart[c]` now holds the end of color c.
            contactSolver.velocity.reserve(contactSolver.bodies.count, count: 0)
            contactSolver.pose.reserve(contactSolver.bodies.count, count: 0)
            contactSolver.velocity[0] = .zero
            contactSolver.pose[0] = SIMD4(0, 0, 1, 0)
            contactSolver.posesStale = true
            // Sized for this step's batches at once (a quarter of each color, rounded up; `grownCapacity`).
            var batchCount = 0, colorStart = 0
            for color in 0..<World.overflowColor {
                let end = contactSolver.colorStart[color]
                batchCount += (end - colorStart + 3) / 4
                colorStart = end
            }
            if contactSolver.wide.capacity < batchCount { contactSolver.wide.reserveCapacity(grownCapacity(batchCount, from: contactSolver.wide.capacity)) }
            // Each batch is written in place (appending one by one copies each 672-byte batch through the stack).
            let firstBatch = contactSolver.wide.count
            let batchOut = contactSolver.wide.extend(by: batchCount)
            contactSolver.colorEnds.removeAll(keepingCapacity: true)
            let awake = bodies.awakeCount
            let slot = bodies.slot
            let pos = columns.position, rot = columns.rotation
            let invMass = columns.invMass, invI = columns.invInertia
            contactStore.contacts.withUnsafeBufferPointer { cs in
            contactSolver.bodyEntry.withUnsafeBufferPointer { entry in
            contactSolver.sorted.withUnsafeBufferPointer { sorted in
            contactSolver.colored.withUnsafeMutableBufferPointer { place in
            contactSolver.colorStart.withUnsafeBufferPointer { colorEnd in
            let colors = World.overflowColor
            // Per color, where its contacts start in `sorted` and where its batches start (from the first). 32-bit, so
            // the table stays within the kilobyte a temporary allocation may take on the stack (beyond it, the heap).
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * (colors + 1)) { starts in
                let contactStart = starts.baseAddress!, batchStart = starts.baseAddress! + colors + 1
                var k = 0, b = 0
                for color in 0..<colors {
                    contactStart[color] = Int32(k); batchStart[color] = Int32(b)
                    b += (colorEnd[color] - k + 3) / 4
                    k = colorEnd[color]
                    if firstBatch + b > Int(contactSolver.colorEnds.last ?? 0) {
                        contactSolver.colorEnds.append(Int32(firstBatch + b))
                    }
                }
                contactStart[colors] = Int32(k); batchStart[colors] = Int32(b)
                assert(b == batchCount, "built \(b) contact batches where \(batchCount) were counted")
                /// Batches `range` (from the first of this step), four sorted contacts of one color each; each writes
                /// its own batch and its contacts' places only.
                func build(_ range: Range<Int>, _ lane: UnsafeMutablePointer<ContactLanes.Lane>) {
                    var color = 0
                    while Int(batchStart[color + 1]) <= range.lowerBound { color += 1 }
                    for batch in range {
                        while Int(batchStart[color + 1]) <= batch { color += 1 }
                        let first = Int(contactStart[color]) + 4 * (batch - Int(batchStart[color]))
                        let lanes = Swift.min(4, colorEnd[color] - first)
                        let index = firstBatch + batch
                        // The contacts are read in color order, scattered over the list: their records are asked for
                        // a few batches ahead (the sorted list runs on across colors).
                        let ahead = first + 4 * World.batchPrefetchDistance
                        if ahead + 3 < sorted.count {
                            for j in 0..<4 { World.prefetchContact(cs.baseAddress! + Int(sorted[ahead + j])) }
                        }
                        for j in 0..<4 {
                            guard j < lanes else { (lane + j).initialize(to: ContactLanes.Lane()); continue }
                            let ci = Int(sorted[first + j])
                            place[ci] = UInt64(index) << 2 | UInt64(j)
                            let c = cs.baseAddress! + ci
                            let sa = Int(slot[Int(c.pointee.bodyA)]), sb = Int(slot[Int(c.pointee.bodyB)])
                            (lane + j).initialize(to: ContactLanes.Lane(
                                c, index: ci, slotA: sa, slotB: sb, entryA: entry[sa], entryB: entry[sb], awake: awake,
                                pos: pos, rot: rot, invMass: invMass, invI: invI))
                        }
                        ContactLanes(lanes: lane).write(to: batchOut + batch)
                    }
                }
                // Worth handing out from a few hundred batches (rain_1000's 2,700–2,900 contacts make over 700: its
                // step on two workers is about 4% shorter so), in blocks small enough for the threads to share evenly.
                forEachBlock(count: batchCount, minimumBlock: 64, parallelMinimum: 256) { range in
                    withUnsafeTemporaryAllocation(of: ContactLanes.Lane.self, capacity: 4) { lanes in
                        build(range, lanes.baseAddress!)
                    }
                }
            }
            }
            // The overflow, in contact order.
            var k = contactSolver.colorStart[World.overflowColor - 1]
            while k < contactSolver.colorStart[World.overflowColor] {
                let ci = Int(sorted[k])
                place[ci] = World.overflowPlace | UInt64(contactSolver.scalar.count)
                contactSolver.scalar.append(scalarConstraint(contact: ci, soft: overflowSoftness))
                k += 1
            }
            }
            }
            }
            }
            // The awake bodies without an entry (items in flight beside a pile), listed when they are few enough
            // that the solve pass's copy-out may move them too (`World.moveInCopy`).
            contactSolver.uncovered.removeAll(keepingCapacity: true)
            let missing = awake - contactSolver.awakeEntries
            if contactSolver.moveInCopy && missing > 0 && missing <= awake / 8 {
                contactSolver.bodyEntry.withUnsafeBufferPointer { entry in
                    for s in 0..<awake where entry[s] < 0 { contactSolver.uncovered.append(Int32(s)) }
                }
            }
            resetContactBodyEntries()
        }
    }

    /// How many batches ahead `buildWideContacts` and `storeWideContactImpulses` ask for the contact records they
    /// will read or write.
    static var batchPrefetchDistance: Int { 4 }

    /// Asks for every cache line of contact record `c`, to be read or written: one line's length apart from its first
    /// byte, and its last byte's (a record not aligned to a line spans one more). The offsets are constants: the loop
    /// unrolls.
    @inline(__always) static func prefetchContact(_ c: UnsafePointer<Contact>) {
        let record = UnsafeRawPointer(c)
        let lineBytes = 64, size = MemoryLayout<Contact>.size
        for offset in stride(from: 0, to: size, by: lineBytes) { dk_prefetch(record + offset) }
        dk_prefetch(record + (size - 1))
    }

    /// Marks an overflow contact's place (`buildWideContacts`).
    static let overflowPlace: UInt64 = 1 << 63

    /// Clears the body → entry map where this step set it (the entries themselves stay in `contactBodies`).
    private func resetContactBodyEntries() {
        contactSolver.bodyEntry.withUnsafeMutableBufferPointer { entry in
            for slot in contactSolver.bodies where slot >= 0 { entry[Int(slot)] = -1 }
        }
    }

    /// Restitution over the wide batches, in contact order as on the scalar path: each contact that bounces is
    /// read out of its lane into a scalar constraint, solved by `restitute`, and its impulses put back.
    func applyWideRestitution() {
        bodies.withColumns { columns in
            guard bodies.anyRestitution else { return }
            let vel = columns.velocity, angVel = columns.angularVelocity
            let threshold = settings.restitutionThreshold
            let slot = bodies.slot
            contactStore.contacts.withUnsafeBufferPointer { cs in
            contactSolver.colored.withUnsafeBufferPointer { place in
            contactSolver.wide.withUnsafeMutableBufferPointer { batches in
                for k in 0..<cs.count where cs[k].restitution > 0 {
                    let m = cs[k].manifold
                    // Only points that approached fast enough bounce (`restitute` tests the same).
                    guard m.points.0.relativeVelocity <= -threshold
                            || (m.pointCount == 2 && m.points.1.relativeVelocity <= -threshold) else { continue }
                    if place[k] & World.overflowPlace != 0 {
                        let j = Int(truncatingIfNeeded: place[k] & ~World.overflowPlace)
                        contactSolver.scalar.withUnsafeMutableBufferPointer { restitute(&$0[j], vel: vel, angVel: angVel, threshold: threshold) }
                        continue
                    }
                    let b = Int(place[k] >> 2), l = Int(place[k] & 3)
                    let batch = batches.baseAddress! + b
                    @inline(__always) func read(_ p: WideContactPoint, _ relativeVelocity: Float) -> ConstraintPoint {
                        var cp = ConstraintPoint()
                        cp.rA = Vec2(p.rAx[l], p.rAy[l]); cp.rB = Vec2(p.rBx[l], p.rBy[l])
                        cp.normalImpulse = p.normalImpulse[l]; cp.tangentImpulse = p.tangentImpulse[l]
                        cp.maxNormalImpulse = p.maxNormalImpulse[l]
                        cp.normalMass = p.normalMass[l]; cp.tangentMass = p.tangentMass[l]
                        cp.relativeVelocity = relativeVelocity
                        return cp
                    }
                    let w = batch.pointee
                    var c = ContactConstraint(slotA: slot[Int(cs[k].bodyA)], slotB: slot[Int(cs[k].bodyB)],
                                              normal: Vec2(w.nx[l], w.ny[l]), friction: w.friction[l],
                                              restitution: cs[k].restitution, mA: w.mA[l], iA: w.iA[l], mB: w.mB[l],
                                              iB: w.iB[l], softness: .rigid, pointCount: Int32(m.pointCount),
                                              contact: Int32(k))
                    c.k11 = w.k11[l]; c.k12 = w.k12[l]; c.k22 = w.k22[l]; c.invDet = w.invDet[l]
                    c.p0 = read(w.p0, m.points.0.relativeVelocity)
                    if m.pointCount == 2 { c.p1 = read(w.p1, m.points.1.relativeVelocity) }
                    restitute(&c, vel: vel, angVel: angVel, threshold: threshold)
                    batch.pointee.p0.normalImpulse[l] = c.p0.normalImpulse
                    batch.pointee.p0.maxNormalImpulse[l] = c.p0.maxNormalImpulse
                    if m.pointCount == 2 {
                        batch.pointee.p1.normalImpulse[l] = c.p1.normalImpulse
                        batch.pointee.p1.maxNormalImpulse[l] = c.p1.maxNormalImpulse
                    }
                }
            }
            }
            }
        }
    }

    /// The wide batches' impulses back into the contacts for the next step's warm start (a one-point contact's
    /// second point gets zeros, as from a scalar constraint).
    func storeWideContactImpulses() {
        contactStore.contacts.withUnsafeMutableBufferPointer { cs in
            contactSolver.wide.withUnsafeBufferPointer { batches in
                // Each batch writes its own contacts: blocks of batches on the workers.
                forEachBlock(count: batches.count, minimumBlock: 128, parallelMinimum: 512) { range in
                    for k in range {
                        let b = batches.baseAddress! + k
                        // The batches' contacts lie scattered over the list: asked for a few batches ahead.
                        if k + World.batchPrefetchDistance < range.upperBound {
                            let next = batches.baseAddress! + k + World.batchPrefetchDistance
                            for l in 0..<4 where next.pointee.constraint[l] >= 0 {
                                World.prefetchContact(cs.baseAddress! + Int(next.pointee.constraint[l]))
                            }
                        }
                        for l in 0..<4 where b.pointee.constraint[l] >= 0 {
                            let c = Int(b.pointee.constraint[l])
                            let two = cs[c].manifold.pointCount == 2
                            cs[c].manifold.points.0.normalImpulse = b.pointee.p0.normalImpulse[l]
                            cs[c].manifold.points.0.tangentImpulse = b.pointee.p0.tangentImpulse[l]
                            cs[c].manifold.points.0.maxNormalImpulse = b.pointee.p0.maxNormalImpulse[l]
                            cs[c].manifold.points.1.normalImpulse = two ? b.pointee.p1.normalImpulse[l] : 0
                            cs[c].manifold.points.1.tangentImpulse = two ? b.pointee.p1.tangentImpulse[l] : 0
                            cs[c].manifold.points.1.maxNormalImpulse = two ? b.pointee.p1.maxNormalImpulse[l] : 0
                        }
                    }
                }
            }
        }
    }

    /// The warm start or one solve or relax pass (`stage`) of every wide batch, between copying the bodies into the
    /// packed state and the awake ones' velocities back. `load` false: the packed velocities are the bodies'
    /// already (nothing changed them since the last pass stored or loaded them); `store` false: the next pass runs
    /// before anything else reads or changes the velocities, and stores them. `soft`: `contactSoftness` at this
    /// substep. `fusion`: the bodies' passes the copies take in (the solve pass's copy-out moves the bodies, the
    /// relax pass's kicks the packed velocities for the next substep, whose warm start then loads none).
    func runWideContacts(_ stage: SolverStage, invH: Float, soft: (contact: Softness, static: Softness),
                         load: Bool = true, store: Bool = true, fusion: PackedFusion = .none) {
        bodies.withColumns { columns in
            guard !contactSolver.wide.isEmpty else { return }
            let warmStart = stage == .warmStart
            typealias V = SIMD4<Float>
            let pos = columns.position, rot = columns.rotation
            let vel = columns.velocity, angVel = columns.angularVelocity
            let awake = Int32(bodies.awakeCount)
            let packedVel = contactSolver.velocity.rawBytes, packedPose = contactSolver.pose.rawBytes
            let copyPoses = contactSolver.posesStale && !warmStart
            if copyPoses { contactSolver.posesStale = false }
            // Velocities the last relax pass left kicked in the packed state need no copy.
            let load = load && !(warmStart && fusion.kicked)
            // The copies run in blocks of entries on the workers for many bodies (each entry is one body's).
            if load || copyPoses { contactSolver.bodies.withUnsafeBufferPointer { list in
                forEachBlock(count: list.count - 1, minimumBlock: WorkerState.bodyBlock, parallelMinimum: workers.parallelPackedCopy) { range in
                    for e in (range.lowerBound + 1)..<(range.upperBound + 1) {
                        let s = Int(list[e])
                        if load {
                            let v = vel[s]
                            (packedVel + 16 &* e).storeBytes(of: V(v.x, v.y, angVel[s], 0), as: V.self)
                        }
                        if copyPoses {
                            let p = pos[s], q = rot[s]
                            (packedPose + 16 &* e).storeBytes(of: V(p.x, p.y, q.c, q.s), as: V.self)
                        }
                    }
                }
            } }
            contactSolver.wide.withUnsafeMutableBufferPointer { batches in
                contactSolver.colorEnds.withUnsafeBufferPointer { ends in
                    let pass = dk_contact_pass(
                        batches: batches.baseAddress, colorEnds: ends.baseAddress, colorCount: ends.count,
                        velocity: packedVel.assumingMemoryBound(to: Float.self),
                        pose: UnsafePointer(packedPose.assumingMemoryBound(to: Float.self)),
                        warmStart: warmStart ? 1 : 0, useBias: stage.usesBias ? 1 : 0,
                        invH: invH, maxPush: settings.contactPushMaxVelocity,
                        biasRate: soft.contact.biasRate, massScale: soft.contact.massScale,
                        impulseScale: soft.contact.impulseScale, staticBiasRate: soft.static.biasRate,
                        staticMassScale: soft.static.massScale, staticImpulseScale: soft.static.impulseScale)
                    let executor = ends.count <= 64 ? executor(work: batches.count, minimum: WorkerState.parallelContactBatches) : nil
                    withUnsafePointer(to: pass) { pass in
                        let solve = ContactPassThenCopy(world: self, executor: executor, pass: pass, colors: ends.count)
                        guard store else { solve(0) { _ in }; return }
                        // Entry 0 is the static side's: the copies start at 1.
                        contactSolver.bodies.withUnsafeBufferPointer { list in
                            if stage == .solve && fusion.move != 0 {
                                contactSolver.uncovered.withUnsafeBufferPointer { others in
                                    moveInCopy(columns, list: list, first: 1, velocity: packedVel, pose: packedPose, others: others,
                                               h: fusion.move, recordStart: fusion.recordStart, blocks: solve)
                                }
                            } else if stage == .relax && fusion.kickOut != 0 {
                                contactSolver.uncovered.withUnsafeBufferPointer { others in
                                    kickPacked(columns, list: list, first: 1, velocity: packedVel, others: others, h: fusion.kickOut,
                                               blocks: solve)
                                }
                            } else {
                                solve(list.count - 1) { range in
                                    for e in (range.lowerBound + 1)..<(range.upperBound + 1) where list[e] < awake {
                                        let v = (packedVel + 16 &* e).load(as: V.self)
                                        vel[Int(list[e])] = Vec2(v[0], v[1])
                                        angVel[Int(list[e])] = v[2]
                                    }
                                }
                            }
                        }
                    }
                }
            }
            // The other entries' bodies (static or asleep) have not moved.
            if store && stage == .solve && fusion.move != 0 { contactSolver.posesStale = false }
        }
    }
}

/// A contact pass, then a copy out of the contacts' packed state: on the workers both in one task, each participant
/// going on to the copy's blocks once the whole pass is finished, the small colors at its end too (one task instead
/// of two, and no gap between them); on one thread the pass, then the copy on its own.
struct ContactPassThenCopy: CopyBlocks {
    unowned(unsafe) let world: World
    let executor: StepExecutor?
    let pass: UnsafePointer<dk_contact_pass>
    /// The pass's colors (at most 64 on the workers).
    let colors: Int

    @inline(__always) func callAsFunction(_ count: Int, _ copy: (Range<Int>) -> Void) {
        guard let executor else {
            dk_contact_pass_run(pass)
            world.copyBlocks(count, copy)
            return
        }
        // Every participant takes blocks of each color in turn (DynamicsPool.h), then of the copy.
        let progress = world.workers.progress
        dk_stage_progress_reset(progress, colors + 2, WorkerState.contactBlock, executor.concurrency)
        world.runParticipants(executor) { participant in
            guard count > 0 else { dk_contact_pass_participate(pass, progress, participant); return }
            dk_contact_pass_participate_whole(pass, progress, participant)
            world.runBlocksAfterStages(progress, stage: colors + 1, count: count, participant: participant, copy)
        }
    }
}
