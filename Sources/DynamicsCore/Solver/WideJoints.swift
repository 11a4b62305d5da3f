// Rigid distance joints, four at a time.
//
// The joint graph is colored so that no two joints of one color share an awake body (DESIGN.md: wide batches from
// coloring); each color is cut into batches of four, whose joints are solved in the lanes of SIMD vectors. A
// rigid distance joint (a rod: UIKit's attachment without frequency, the joint grid's links) is the common joint of
// large scenes; every other joint, and a rod that finds no free color among 64, is solved by the scalar path
// first, in joint order. The coloring is a greedy pass in joint order, so it is deterministic. The batches are
// kept from step to step and rebuilt only when something they hold changes (`prepareJoints` checks): a net that
// stays awake is colored once.
//
// Rods that join centers of mass (or a center and a world point) never turn their bodies: they get batches of their
// own (`CenterRodBatch`) that move only linear velocities, about half the work of a general batch.
//
// The arithmetic is the scalar rigid branch of `solveDistance` lane for lane; only the order of the joints
// within a pass differs (color by color), as in any colored Gauss–Seidel solver. The geometry sweep and the
// passes are C (`dk_rod_pass_run`, RodBody.h), at 4 lanes: the batches of one color share no awake body, so they
// could be solved two at a time, but with AVX2 that measured no faster (Solvers.c).
//
// The batches read and write a packed copy of their bodies' state, (vx, vy, ω, 0) and (x, y, cos, sin) per body,
// so that the four lanes of a side are four 16-byte loads and a transpose. The awake bodies of the rods are
// copied in before each pass and their velocities out after it (fewer copies when rods are all there is to solve);
// each fixed side (the world, a static or a sleeping body) has an entry of its own after them, with its pose and
// zero velocity, so no lane needs a branch.

import DynamicsSIMD

/// Four rigid distance joints of one color, in SoA form (`dk_rod_batch`, DynamicsRods.h). Each side of a lane is
/// an entry of the packed state: an awake body's, or one of its own for a fixed side (the world, a static or a
/// sleeping body). Padding lanes have two fixed sides 1 apart, rest length 1 and no mass, so they apply nothing.
typealias WideRodBatch = dk_rod_batch

/// Four rigid distance joints of one color whose anchors are their bodies' centers of mass (or a world point)
/// (`dk_center_rod_batch`): UIKit's default attachment, and the joint grid's links. With no lever arm the rod never
/// turns its bodies, so a batch reads and writes only the linear velocities and positions of the packed state: half
/// the data, and none of the angular terms. The arithmetic is `WideRodBatch`'s with the anchors zero, which changes
/// no result (each dropped term is an exact zero).
typealias CenterRodBatch = dk_center_rod_batch

extension World {
    /// Whether a wide rod acts through its bodies' centers: each body side anchored at its center of mass, or a
    /// world point.
    @inline(__always) static func isCenterRod(_ jr: JointRecord) -> Bool {
        jr.localA == .zero && (jr.bodyB < 0 || jr.localB == .zero)
    }

    /// Whether the wide path takes this joint: a rigid distance joint.
    @inline(__always) static func isWideRod(_ jr: JointRecord) -> Bool {
        jr.kind == .distance && !(jr.minLength < jr.maxLength) && !jr.isPointDistance
    }

    /// Colors the awake joints and builds `wideRods` (batches in color order), `scalarJoints` (the rest, in joint
    /// order) and the packed state of the rods' bodies. Runs after `prepareJoints` has filled slots and masses.
    func buildWideRods() {
        flushRodImpulses()
        rodSolver.batches.removeAll(keepingCapacity: true)
        rodSolver.centerBatches.removeAll(keepingCapacity: true)
        rodSolver.centerColorEnds.removeAll(keepingCapacity: true)
        rodSolver.generalColorEnds.removeAll(keepingCapacity: true)
        rodSolver.scalarJoints.removeAll(keepingCapacity: true)
        rodSolver.colored.removeAll(keepingCapacity: true)
        rodSolver.bodies.removeAll(keepingCapacity: true)
        let awake = bodies.awakeCount
        var rods = 0
        jointStore.records.withUnsafeBufferPointer { js in
            for j in jointStore.awake where World.isWideRod(js[Int(j)]) { rods += 1 }
        }
        guard rods >= rodSolver.minimum else {
            rodSolver.scalarJoints.append(contentsOf: jointStore.awake)
            return
        }
        if rodSolver.bodyColors.count < awake {
            rodSolver.bodyColors.append(contentsOf: repeatElement(0, count: awake - rodSolver.bodyColors.count))
            rodSolver.bodyEntry.append(contentsOf: repeatElement(-1, count: awake - rodSolver.bodyEntry.count))
        }
        if rodSolver.colorStart.count < 65 { rodSolver.colorStart = [Int](repeating: 0, count: 65) }
        jointStore.records.withUnsafeBufferPointer { js in
            rodSolver.bodyColors.withUnsafeMutableBufferPointer { used in
            rodSolver.bodyEntry.withUnsafeMutableBufferPointer { entry in
            rodSolver.colorStart.withUnsafeMutableBufferPointer { count in
                for s in 0..<awake { used[s] = 0; entry[s] = -1 }
                for c in 0..<65 { count[c] = 0 }
                for j in jointStore.awake {
                    let jr = js[Int(j)]
                    guard World.isWideRod(jr) else { rodSolver.scalarJoints.append(j); continue }
                    var taken: UInt64 = 0
                    if jr.slotA >= 0 { taken |= used[Int(jr.slotA)] }
                    if jr.slotB >= 0 { taken |= used[Int(jr.slotB)] }
                    guard taken != .max else { rodSolver.scalarJoints.append(j); continue }
                    let c = (~taken).trailingZeroBitCount
                    let bit: UInt64 = 1 << UInt64(c)
                    @inline(__always) func take(_ slot: Int32) {
                        guard slot >= 0 else { return }
                        used[Int(slot)] |= bit
                        if entry[Int(slot)] < 0 {
                            entry[Int(slot)] = Int32(rodSolver.bodies.count)
                            rodSolver.bodies.append(slot)
                        }
                    }
                    take(jr.slotA)
                    take(jr.slotB)
                    rodSolver.colored.append(UInt64(c) << 32 | UInt64(UInt32(bitPattern: j)))
                    count[c + 1] += 1
                }
            }
            }
            }
        }
        guard !rodSolver.colored.isEmpty else { return }
        sortByColor(rodSolver.colored, into: &rodSolver.sorted, colorStart: &rodSolver.colorStart)
        // `rodColorStart[c]` now holds the end of color c. Within a color, the center rods and the others are
        // cut into batches of their own (first all center batches, then the others: any order of batches is a
        // Gauss–Seidel order, as no two lanes of a color share a body). Packed entries: the rods' awake bodies
        // first, then one per fixed side of every lane (padding lanes included), in batch order.
        let js = jointStore.records
        var centerCount = 0, otherCount = 0
        var start = 0
        for c in 0..<64 {
            let end = rodSolver.colorStart[c]
            var center = 0
            for k in start..<end where World.isCenterRod(js[Int(rodSolver.sorted[k])]) { center += 1 }
            centerCount += (center + 3) / 4
            otherCount += (end - start - center + 3) / 4
            start = end
        }
        let entryCount = rodSolver.bodies.count + 8 * (centerCount + otherCount)
        rodSolver.geometryStale = true
        rodSolver.velocity.reserve(entryCount, count: 0)
        rodSolver.pose.reserve(entryCount, count: 0)
        typealias V = SIMD4<Float>
        let vel = rodSolver.velocity, pose = rodSolver.pose
        var nextFixed = rodSolver.bodies.count
        /// One lane's values; a padding lane has two fixed points 1 apart, no mass and rest length 1.
        struct Lane {
            var joint: Int32 = -1, entryA: Int32 = 0, entryB: Int32 = 0
            var localA = Vec2.zero, localB = Vec2.zero
            var mA: Float = 0, iA: Float = 0, mB: Float = 0, iB: Float = 0, length: Float = 1, impulse: Float = 0
        }
        @inline(__always) func fixedEntry(_ p: Vec2, _ q: Rotation) -> Int32 {
            vel[nextFixed] = .zero
            pose[nextFixed] = V(p.x, p.y, q.c, q.s)
            nextFixed += 1
            return Int32(nextFixed - 1)
        }
        /// The lane of joint j, or a padding lane for nil. A center rod's world side is an entry at the world point.
        @inline(__always) func lane(_ j: Int?, center: Bool) -> Lane {
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
            lane.entryA = jr.slotA >= 0 ? rodSolver.bodyEntry[Int(jr.slotA)] : fixedEntry(jr.fixedPosA, jr.fixedRotA)
            if jr.slotB >= 0 {
                lane.entryB = rodSolver.bodyEntry[Int(jr.slotB)]
            } else if center && jr.bodyB < 0 {
                lane.entryB = fixedEntry(jr.localB, .identity)
            } else {
                lane.entryB = fixedEntry(jr.fixedPosB, jr.fixedRotB)
            }
            return lane
        }
        var centerLanes: [Int] = [], otherLanes: [Int] = []
        @inline(__always) func at(_ list: [Int], _ k: Int) -> Int? { k < list.count ? list[k] : nil }
        /// The lanes of the joints in `list`, four at a time in order (the last four padded).
        @inline(__always) func quads(_ list: [Int], center: Bool, _ body: (Lane, Lane, Lane, Lane) -> Void) {
            var k = 0
            while k < list.count {
                body(lane(at(list, k), center: center), lane(at(list, k + 1), center: center),
                     lane(at(list, k + 2), center: center), lane(at(list, k + 3), center: center))
                k += 4
            }
        }
        start = 0
        for c in 0..<64 {
            let end = rodSolver.colorStart[c]
            centerLanes.removeAll(keepingCapacity: true)
            otherLanes.removeAll(keepingCapacity: true)
            for k in start..<end {
                let j = Int(rodSolver.sorted[k])
                if World.isCenterRod(js[j]) { centerLanes.append(j) } else { otherLanes.append(j) }
            }
            start = end
            quads(centerLanes, center: true) { l0, l1, l2, l3 in
                rodSolver.centerBatches.append(CenterRodBatch(
                    entryA: SIMD4(l0.entryA, l1.entryA, l2.entryA, l3.entryA),
                    entryB: SIMD4(l0.entryB, l1.entryB, l2.entryB, l3.entryB),
                    joint: SIMD4(l0.joint, l1.joint, l2.joint, l3.joint),
                    mA: V(l0.mA, l1.mA, l2.mA, l3.mA), mB: V(l0.mB, l1.mB, l2.mB, l3.mB),
                    length: V(l0.length, l1.length, l2.length, l3.length),
                    impulse: V(l0.impulse, l1.impulse, l2.impulse, l3.impulse),
                    ax: .zero, ay: .zero, axialMass: .zero, error: .zero))
            }
            quads(otherLanes, center: false) { l0, l1, l2, l3 in
                rodSolver.batches.append(WideRodBatch(
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
                    impulse: V(l0.impulse, l1.impulse, l2.impulse, l3.impulse),
                    rAx: .zero, rAy: .zero, rBx: .zero, rBy: .zero, ax: .zero, ay: .zero, axialMass: .zero, error: .zero))
            }
            // Where this color's batches of each kind end (colors without batches of a kind are left out).
            if rodSolver.centerBatches.count > Int(rodSolver.centerColorEnds.last ?? 0) {
                rodSolver.centerColorEnds.append(Int32(rodSolver.centerBatches.count))
            }
            if rodSolver.batches.count > Int(rodSolver.generalColorEnds.last ?? 0) {
                rodSolver.generalColorEnds.append(Int32(rodSolver.batches.count))
            }
        }
    }

    /// Writes the batches' impulses into the joint records if they are newer: before the batches are rebuilt (they
    /// are read back from the records) and before a joint's record is freed for reuse.
    func flushRodImpulses() {
        guard rodSolver.impulsesPending else { return }
        rodSolver.impulsesPending = false
        storeWideRodImpulses()
    }

    /// The wide batches' impulses back into the joint records (for the next step's warm start).
    func storeWideRodImpulses() {
        jointStore.records.withUnsafeMutableBufferPointer { js in
            for b in rodSolver.centerBatches {
                for l in 0..<4 where b.joint[l] >= 0 { js[Int(b.joint[l])].axialImpulse = b.impulse[l] }
            }
            for b in rodSolver.batches {
                for l in 0..<4 where b.joint[l] >= 0 { js[Int(b.joint[l])].axialImpulse = b.impulse[l] }
            }
        }
    }

    /// The warm start or one solve or relax pass (`stage`) of every wide batch, between copying the rods' awake bodies into the packed
    /// state and their velocities back. When rods are all there is to solve (`rodsAlone`), nothing touches the
    /// velocities between the warm start and the solve pass, nor between the solve pass and the relax pass (the
    /// position update reads them only), so those copies are skipped: `copyIn` and `copyOut` say which are needed.
    /// `fusion`: the bodies' passes the copies take in (the warm start's copy-in integrates the velocities, the
    /// solve pass's copy-out moves the bodies, the relax pass's kicks the packed velocities for the next substep).
    func runWideRods(_ stage: SolverStage, soft: Softness, copyIn: Bool, copyOut: Bool, fusion: PackedFusion = .none) {
        bodies.withColumns { columns in
            guard !rodSolver.batches.isEmpty || !rodSolver.centerBatches.isEmpty else { return }
            let warmStart = stage == .warmStart, useBias = stage.usesBias
            typealias V = SIMD4<Float>
            let pos = columns.position, rot = columns.rotation
            let vel = columns.velocity, angVel = columns.angularVelocity
            let packedVel = rodSolver.velocity.rawBytes, packedPose = rodSolver.pose.rawBytes
            // Poses the solve pass's copy-out packed as it moved the bodies need no copy.
            let copyPoses = rodSolver.geometryStale && !rodSolver.posesPacked
            // Velocities the last relax pass left kicked in the packed state need none either.
            let copyIn = copyIn && !(warmStart && fusion.kicked)
            let kick = warmStart ? fusion.kickIn : 0, gravity = columns.gravity
            // The packed state in and out, in blocks of entries on the workers (each entry is one body's own).
            let copyBlock = WorkerState.bodyBlock, copyMinimum = workers.parallelPackedCopy
            if copyIn || copyPoses {
                rodSolver.bodies.withUnsafeBufferPointer { list in
                    forEachBlock(count: list.count, minimumBlock: copyBlock, parallelMinimum: copyMinimum) { range in
                        @inline(__always) func velocity(_ e: Int, _ s: Int) {
                            let v = vel[s]
                            (packedVel + 16 &* e).storeBytes(of: V(v.x, v.y, angVel[s], 0), as: V.self)
                        }
                        @inline(__always) func pose(_ e: Int, _ s: Int) {
                            let p = pos[s], q = rot[s]
                            (packedPose + 16 &* e).storeBytes(of: V(p.x, p.y, q.c, q.s), as: V.self)
                        }
                        /// The velocity integrated by `kick` on the way in: `integrateVelocities` without damping,
                        /// forces or fields, component by component.
                        @inline(__always) func kicked(_ e: Int, _ s: Int) {
                            let v = vel[s], g = gravity[s]
                            (packedVel + 16 &* e).storeBytes(of: V(v.x + kick * g.x, v.y + kick * g.y, angVel[s], 0), as: V.self)
                        }
                        // One loop per case, so that none tests the flags per body.
                        if kick != 0 && copyIn {
                            if copyPoses {
                                for e in range { let s = Int(list[e]); kicked(e, s); pose(e, s) }
                            } else {
                                for e in range { kicked(e, Int(list[e])) }
                            }
                        } else if copyIn && copyPoses {
                            for e in range { let s = Int(list[e]); velocity(e, s); pose(e, s) }
                        } else if copyIn {
                            for e in range { velocity(e, Int(list[e])) }
                        } else {
                            for e in range { pose(e, Int(list[e])) }
                        }
                    }
                }
            }
            // The geometry depends on positions only: it is computed in its own sweep (independent batches, which the
            // processor overlaps) when positions have moved, and shared by the passes in between.
            let geometry = rodSolver.geometryStale
            rodSolver.geometryStale = false
            rodSolver.posesPacked = false
            rodSolver.centerBatches.withUnsafeMutableBufferPointer { center in
            rodSolver.batches.withUnsafeMutableBufferPointer { general in
                let pass = dk_rod_pass(
                    center: center.baseAddress, centerCount: center.count, general: general.baseAddress,
                    generalCount: general.count,
                    velocity: packedVel.assumingMemoryBound(to: Float.self),
                    pose: UnsafePointer(packedPose.assumingMemoryBound(to: Float.self)),
                    geometry: geometry ? 1 : 0, warmStart: warmStart ? 1 : 0,
                    biasRate: useBias ? soft.biasRate : 0, massScale: useBias ? soft.massScale : 1,
                    impulseScale: useBias ? soft.impulseScale : 0, maxBias: settings.jointPushMaxVelocity)
                let executor = executor(work: center.count + general.count, minimum: WorkerState.parallelRodBatches)
                rodSolver.centerColorEnds.withUnsafeBufferPointer { centerEnds in
                rodSolver.generalColorEnds.withUnsafeBufferPointer { generalEnds in
                withUnsafePointer(to: pass) { pass in
                    let solve = RodPassThenCopy(world: self, executor: executor, pass: pass, centerEnds: centerEnds,
                                                generalEnds: generalEnds)
                    guard copyOut else { solve(0) { _ in }; return }
                    rodSolver.bodies.withUnsafeBufferPointer { list in
                        if stage == .solve && fusion.move != 0 {
                            moveInCopy(columns, list: list, first: 0, velocity: packedVel, pose: packedPose,
                                       h: fusion.move, recordStart: fusion.recordStart, blocks: solve)
                            rodSolver.posesPacked = true
                        } else if stage == .relax && fusion.kickOut != 0 {
                            kickPacked(columns, list: list, first: 0, velocity: packedVel, h: fusion.kickOut, blocks: solve)
                        } else {
                            solve(list.count) { range in
                                for e in range {
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
            }
            }
        }
    }
}

/// A rod pass, then a copy out of the rods' packed state: on the workers both in one task, each participant going on
/// to the copy's blocks once the pass's last stage is finished (one task instead of two, and no gap between them);
/// on one thread the pass, then the copy on its own.
struct RodPassThenCopy: CopyBlocks {
    unowned(unsafe) let world: World
    let executor: StepExecutor?
    let pass: UnsafePointer<dk_rod_pass>
    let centerEnds: UnsafeBufferPointer<Int32>, generalEnds: UnsafeBufferPointer<Int32>

    @inline(__always) func callAsFunction(_ count: Int, _ copy: (Range<Int>) -> Void) {
        guard let executor else {
            dk_rod_pass_run(pass)
            world.copyBlocks(count, copy)
            return
        }
        // Every participant takes blocks of each stage in turn (DynamicsPool.h), then of the copy.
        let progress = world.workers.progress, stages = centerEnds.count + generalEnds.count
        dk_stage_progress_reset(progress, stages + 1, WorkerState.rodBlock, executor.concurrency)
        world.runParticipants(executor) { participant in
            dk_rod_pass_participate(pass, centerEnds.baseAddress, centerEnds.count, generalEnds.baseAddress,
                                    generalEnds.count, progress, participant)
            world.runBlocksAfterStages(progress, stage: stages, count: count, participant: participant, copy)
        }
    }
}

/// The step's rigid distance joints as the wide solver holds them: colored batches of four, the joints solved one
/// by one, the coloring's scratch and the packed state of the rods' bodies.
struct WideRodSolver {
    /// This step's rigid distance joints in colored batches of four, and the awake joints solved one by one
    /// (WideJoints.swift); with the coloring's scratch: color and joint per rod, rods by color, color ends,
    /// and the colors taken at each awake body.
    var batches: [WideRodBatch] = []
    var centerBatches: [CenterRodBatch] = []
    /// Where each color's batches end, of each kind (colors with none of a kind left out): the stages of a pass run
    /// on several workers.
    var centerColorEnds: [Int32] = []
    var generalColorEnds: [Int32] = []
    var scalarJoints: [Int32] = []
    var colored: [UInt64] = []
    var sorted: [Int32] = []
    var colorStart: [Int] = []
    var bodyColors: [UInt64] = []
    /// The rods' awake bodies (slots) in packed-entry order, each awake body's entry (−1 if none), and the packed
    /// state: velocities (vx, vy, ω, 0) and poses (x, y, cos, sin), the bodies' entries then one per fixed side.
    var bodies: [Int32] = []
    var bodyEntry: [Int32] = []
    var velocity = Column<SIMD4<Float>>()
    var pose = Column<SIMD4<Float>>()
    /// Below this many rigid distance joints the scalar path is cheaper than packing their bodies' state (tests set
    /// it to compare the two paths).
    var minimum = 16
    /// Positions have moved since the wide rods' geometry was computed.
    var geometryStale = true { didSet { if geometryStale { posesPacked = false } } }
    /// The packed poses are the bodies' present ones (`World.moveInCopy` packed them as it moved the bodies).
    var posesPacked = false
    /// Whether the solve pass's copy-out may move the bodies, where rods alone hold every awake body (tests turn it
    /// off to compare), and the steps it did (`PackedFusion.move`).
    var moveInCopy = true
    var movedSteps = 0
    /// The wide rods' batches (`buildWideRods`) must be rebuilt: the awake joints or a joint's parameters changed.
    var layoutDirty = true
    /// The wide rods' batches hold impulses the joint records do not have yet (`flushRodImpulses`).
    var impulsesPending = false
    /// This step's constraints are wide rods only (and warm starting is on): see `runWideRods`.
    var alone = false
    /// Whether the warm start may take the velocity integration in (tests turn it off to compare), and the steps it
    /// did (`PackedFusion.kickIn`).
    var kickInCopy = true
    var kickedSteps = 0

    init() {}
}
