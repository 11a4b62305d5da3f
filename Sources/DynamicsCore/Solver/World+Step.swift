import DynamicsSIMD

extension World {
    /// Advances the world by `dt` seconds in `substeps` substeps, or more while an awake stack is deeper than
    /// `WorldSettings.tallStackDepth` (`contactStiffness`).
    ///
    /// Runs the stages of `StepStage` in order, each timed into `profile`: forces, broadphase, narrowphase (with
    /// the contact events), solve (the substepped soft solver over the awake bodies, then the continuous pass
    /// against static shapes), islands (sleep). ARCHITECTURE.md names the file of each. Events of this step are in
    /// `contactBeganEvents` / `contactEndedEvents` afterwards; bodies that fell asleep are in `bodiesFallenAsleep`.
    ///
    /// Complexity: O(awake bodies + their contacts and joints); sleeping and static bodies cost nothing.
    ///
    /// Throws a `DynamicsError` (and changes nothing) unless `dt` is from 10 µs to 1 s and `substeps` from 1 to 64:
    /// the range a `Float` step can take (the object API's `timeStep` and `substepCount` have the same one).
    public func step(dt: Float, substeps requested: Int) throws {
        guard dt.isFinite && dt >= 1e-5 && dt <= 1 else { throw DynamicsError("World.step: dt must be between 0.00001 and 1 second, got \(dt)") }
        guard requested >= 1 && requested <= 64 else { throw DynamicsError("World.step: substeps must be between 1 and 64, got \(requested)") }
        // More substeps and stiffer contacts while a stack deeper than `WorldSettings.tallStackDepth` is awake.
        let stiffness = contactStiffness(dt: dt, substeps: requested)
        let substeps = stiffness.substeps
        // The stages' times in nanoseconds of a monotonic clock (`dk_clock_ns`: a clock reading alone, where a
        // `Duration` and its conversion to seconds cost a few hundred instructions each: with them, the timing was
        // about 40% of what a field-driven swarm's step runs on the caller's thread alone).
        let start = dk_clock_ns()
        var stageStart = start
        /// Ends `stage`: its time goes into `profile`.
        func finish(_ stage: StepStage) {
            let now = dk_clock_ns()
            profile[stage] = Double(now - stageStart) / 1e9
            stageStart = now
        }
        let h = dt / Float(substeps)
        if impulseSubstep != h {
            if impulseSubstep > 0 { rescaleWarmStart(by: h / impulseSubstep) }
            impulseSubstep = h
        }

        // Nothing can collide, no joint is awake, every field is a simple kind over every body: the step is one
        // pass over the bodies (World+FreeMotion).
        let free = beginStep()
        if settings.sleepingEnabled { islandStore.reserveSlots(bodies.awakeCount) }
        applyForces(dt: dt, substeps: substeps, h: h, free: free)
        finish(.forces)

        updatePairs(dt: dt)
        finish(.broadphase)

        narrowphase(dt: dt)
        if settings.tallStackDepth > 0 { measureTallStack(dt: dt) }
        finish(.narrowphase)

        let ready = free ? freeMotionPass(dt: dt, h: h, substeps: substeps) : solveStage(dt: dt, h: h, stiffness: stiffness)
        finish(.solve)

        bodiesFallenAsleep.removeAll(keepingCapacity: true)
        if ready && settings.sleepingEnabled { putRestingIslandsToSleep() }
        if jointStore.awakeDirty { refreshAwakeJoints() }
        releaseUnusedScratch()
        finish(.islands)
        profile.onWorkers = Double(workers.parallelNanoseconds) / 1e9
        updateWorkerBackoff(stepNanoseconds: dk_clock_ns() - start)

        stepCount += 1
        profile.total = Double(dk_clock_ns() - start) / 1e9
    }

    /// Scales every stored impulse, awake and asleep, contacts' and joints', by `ratio`, the new substep length over
    /// the one they were accumulated over. An impulse is a force times the substep it acts over: a pile at rest
    /// carries its weight with the same forces at any substep, so warm starting a shorter substep with the longer
    /// one's impulses would push it up, and a longer one with the shorter's would drop it.
    func rescaleWarmStart(by ratio: Float) {
        @inline(__always) func scale(_ contacts: inout [Contact]) {
            for k in contacts.indices {
                contacts[k].manifold.points.0.scaleImpulses(by: ratio)
                contacts[k].manifold.points.1.scaleImpulses(by: ratio)
            }
        }
        scale(&contactStore.contacts)
        for i in islandStore.sleeping.indices where islandStore.sleeping[i].inUse { scale(&islandStore.sleeping[i].contacts) }
        // The wide rods' impulses go back into the records, which rebuild the batches after they are scaled.
        flushRodImpulses()
        rodSolver.layoutDirty = true
        for j in jointStore.records.indices { jointStore.records[j].scaleImpulses(by: ratio) }
    }

    /// Starts a step: last step's events cleared (the ended events held over from between steps kept), and
    /// whether the step can be the free-motion pass.
    func beginStep() -> Bool {
        contactBeganEvents.removeAll(keepingCapacity: true)
        contactEndedEvents.removeAll(keepingCapacity: true)
        if !pendingEnded.isEmpty {
            contactEndedEvents.append(contentsOf: pendingEnded)
            pendingEnded.removeAll(keepingCapacity: true)
        }
        return prepareFreeMotion()
    }

    /// The forces stage: the fields' accelerations (the free-motion pass evaluates its own), and the damping
    /// factors of a new substep length.
    func applyForces(dt: Float, substeps: Int, h: Float, free: Bool) {
        if free {
            fieldStore.time += dt
            fieldStore.active = false
            fieldStore.hasVelocityOverride = false
        } else {
            applyFields(dt: dt, substeps: substeps)
            foldFieldAcceleration()
        }
        if h != freeMotion.dampingH || substeps != freeMotion.dampingSubsteps {
            freeMotion.dampingH = h
            freeMotion.dampingSubsteps = substeps
            updateAllDampingFactors()
        }
    }

    /// The solve stage: the substepped solve, the speed limits, the continuous pass against static shapes and the
    /// rest test. Returns whether the awake bodies may be tested for sleep.
    func solveStage(dt: Float, h: Float, stiffness: ContactStiffness) -> Bool {
        if jointStore.awakeDirty { refreshAwakeJoints() }
        let continuous = prepareContinuous(dt: dt)
        solve(h: h, stiffness: stiffness)
        unfoldFieldAcceleration()
        limitSpeeds()
        if continuous { solveContinuous() }
        if jointStore.awakeDirty { refreshAwakeJoints() }
        return restTest(dt: dt)
    }

    /// Bounds every awake body's speed by `WorldSettings.maximumLinearSpeed`, once per step: forces that grow
    /// without bound (an anti-drag field, the core of a radial gravity well) then throw an item at that speed at
    /// most, never into numbers a `Float` cannot hold. (The free-motion pass has no such forces: its kinds are
    /// bounded by their inputs.)
    func limitSpeeds() {
        bodies.withColumns { columns in
            let n = bodies.awakeCount, vel = columns.velocity, angVel = columns.angularVelocity
            let m = settings.maximumLinearSpeed, m2 = m * m, w = settings.maximumAngularSpeed
            @inline(__always) func limit(_ s: Int) {
                let v = vel[s], l2 = lengthSquared(v)
                if l2 > m2 { vel[s] = (m / l2.squareRoot()) * v }
                let spin = angVel[s]
                if Swift.abs(spin) > w { angVel[s] = spin > 0 ? w : -w }
            }
            forEachBlock(count: n, minimumBlock: WorkerState.bodyBlock, parallelMinimum: workers.parallelIntegration) { range in
                // Four bodies at a time, tested together: almost every body is within both limits, and the test of
                // four (their squared speeds by the same operations as `lengthSquared`, then the comparisons) takes
                // about 7 instructions a body against 16 for the scalar test (joint_grid_100's 10,000 bodies). Four
                // with a body over a limit go through the scalar code, body by body, so the results are the same.
                var s = range.lowerBound
                let end = range.upperBound
                let rawVel = UnsafeRawPointer(vel), rawSpin = UnsafeRawPointer(angVel)
                while s + 4 <= end {
                    let v = rawVel.loadUnaligned(fromByteOffset: 8 &* s, as: SIMD8<Float>.self)
                    let squares = v * v
                    let l2 = squares.evenHalf + squares.oddHalf
                    let spin = rawSpin.loadUnaligned(fromByteOffset: 4 &* s, as: SIMD4<Float>.self)
                    // |spin| > w exactly when spin > w or spin < −w (NaN neither).
                    if any((l2 .> m2) .| (spin .> w) .| (spin .< -w)) {
                        for k in s..<(s + 4) { limit(k) }
                    }
                    s += 4
                }
                while s < end { limit(s); s += 1 }
            }
        }
    }

    /// Gives back scratch capacity after a transient peak (a landing wave can need four times the contacts of the
    /// pile that follows, and a pile that falls asleep needs none). The contact lists, constraints, wide batches
    /// and cell entries are sized each step for what it needs, with an eighth to spare, growing at least twofold
    /// (`grownCapacity`); a table holding more than twice the need and its eighth (and past a floor) is given back and
    /// sized afresh by the next step, so a steady step never reallocates and a count must halve before its table
    /// shrinks. Pairs, the broadphase's candidates and the
    /// coloring's lists, which grow by appending, are given back below a quarter of their capacity.
    func releaseUnusedScratch() {
        if bodies.awakeCount == 0 && jointStore.awake.isEmpty { releaseScratchAtRest(); return }
        @inline(__always) func spare(_ n: Int) -> Int { n + n / 8 }
        @inline(__always) func oversized(_ capacity: Int, need: Int, floor: Int) -> Bool {
            capacity > floor && capacity > 2 * spare(need)
        }
        let used = contactStore.contacts.count, pairCount = broadphase.pairs.count
        /// Moves a live list into a buffer of `capacity`.
        @inline(__always) func refit<T>(_ a: inout [T], capacity: Int) {
            var fresh: [T] = []
            fresh.reserveCapacity(capacity)
            fresh.append(contentsOf: a)
            a = fresh
        }
        // The contacts are live: copied into a table sized as the narrowphase sizes them.
        if oversized(contactStore.contacts.capacity, need: Swift.max(used, pairCount), floor: 4096) {
            refit(&contactStore.contacts, capacity: spare(Swift.max(used, pairCount)))
        }
        if oversized(contactStore.history.capacity, need: used, floor: 4096) { contactStore.history = [] }
        // These two also hold the broadphase's scratch (`StepTable.borrowBytes`).
        if oversized(contactSolver.scalar.capacity, need: Swift.max(contactSolver.scalar.count, contactSolver.borrowedByBroadphase.constraints), floor: 4096) { contactSolver.scalar.release() }
        if oversized(contactSolver.wide.capacity, need: Swift.max(used / 4 + 64, contactSolver.borrowedByBroadphase.wide), floor: 1024) { contactSolver.wide.release() }
        if oversized(broadphase.cellEntries.capacity, need: broadphase.cellEntries.count, floor: 4096) { broadphase.cellEntries = [] }
        if contactSolver.colored.capacity > 4096 && used * 4 < contactSolver.colored.capacity { contactSolver.colored = [] }
        if contactSolver.sorted.count > 4096 && used * 4 < contactSolver.sorted.count { contactSolver.sorted = [] }
        if contactSolver.bodyColors.count > 4096 && used * 8 < contactSolver.bodyColors.count { contactSolver.bodyColors = [] }
        if broadphase.pairs.capacity > 4096 && pairCount * 4 < broadphase.pairs.capacity { broadphase.pairs = []; broadphase.pairReach = [] }
        let candidateCount = broadphase.candidates.count
        if broadphase.candidates.capacity > 4096 && candidateCount * 4 < broadphase.candidates.capacity { refit(&broadphase.candidates, capacity: spare(candidateCount)) }
        if broadphase.freshCandidates.capacity > 4096 && candidateCount * 4 < broadphase.freshCandidates.capacity { broadphase.freshCandidates = [] }
        // The kept grid's cells, sized by its last full search (kept, as the steps after search them).
        if broadphase.fatGrid.slots.capacity > 4096 && broadphase.fatGrid.slots.count * 4 < broadphase.fatGrid.slots.capacity {
            refit(&broadphase.fatGrid.slots, capacity: broadphase.fatGrid.slots.count)
        }
        if broadphase.fatGrid.ends.capacity > 4096 && broadphase.fatGrid.ends.count * 4 < broadphase.fatGrid.ends.capacity {
            refit(&broadphase.fatGrid.ends, capacity: broadphase.fatGrid.ends.count)
        }
        // This step's events are the caller's to read: a list a landing wave grew is copied into a small one.
        @inline(__always) func shrink<T>(_ a: inout [T]) {
            if a.capacity > 1024 && a.count * 4 < a.capacity { refit(&a, capacity: a.count) }
        }
        shrink(&contactBeganEvents); shrink(&contactEndedEvents); shrink(&bodiesFallenAsleep)
        let entryCount = broadphase.cellEntries.count + contactSolver.borrowedByBroadphase.wide * MemoryLayout<WideContactBatch>.stride / 4
        if broadphase.sortScratch.count > 4096 && (entryCount + pairCount) * 4 < broadphase.sortScratch.count { broadphase.sortScratch = [] }
        if broadphase.bucketCounts.count > 4096 && (entryCount + pairCount) * 16 < broadphase.bucketCounts.count { broadphase.bucketCounts = [] }
        if broadphase.placeCounts.count > 4096 && (entryCount + pairCount) * 64 < broadphase.placeCounts.count { broadphase.placeCounts = [] }
    }

    /// With every body asleep or static, nothing the step computes per awake body or per contact is needed until
    /// something wakes: a resting world keeps its bodies, the static grid and the sleeping islands only. (The
    /// tables grow back, once, on the step that wakes a body.) This step's events and fallen-asleep list are kept
    /// for the caller to read.
    func releaseScratchAtRest() {
        /// Empties a list that is empty already (its capacity only).
        @inline(__always) func release<T>(_ a: inout [T]) { if a.capacity > 0 && a.isEmpty { a = [] } }
        release(&contactStore.contacts); release(&pendingEnded)
        release(&contactBeganEvents); release(&contactEndedEvents); release(&bodiesFallenAsleep)
        // Per-step tables: the narrowphase's twin of the contact list and reference poses, this step's constraints (their impulses
        // are stored in the contacts), coloring, packed state, candidate pairs, cell entries, sort and island scratch.
        contactStore.history = []; contactSolver.scalar.release(); contactSolver.wide.release(); contactSolver.colored = []; contactSolver.sorted = []; contactSolver.bodies = []
        contactSolver.bodyColors = []; contactSolver.bodyEntry = []; contactSolver.colorEnds = []; contactSolver.uncovered = []
        contactSolver.velocity.release(); contactSolver.pose.release()
        contactStore.referencePose.release(); contactStore.referenceMoved.release(); contactStore.referenceState.valid = false
        broadphase.pairs = []; broadphase.pairReach = []; broadphase.awakeOversize = []; islandStore.wakeList = []
        broadphase.cellEntries = []; broadphase.sortScratch = []; broadphase.sortCounts = []; broadphase.bucketCounts = []; broadphase.placeCounts = []
        broadphase.candidates = []; broadphase.freshCandidates = []; broadphase.fatGrid = FatGrid()
        broadphase.fatBoxes.release(); stackDepth.release()
        islandStore.unionParent = []; islandStore.rootReady = []; islandStore.rootIndex = []; islandStore.roots = []; islandStore.members = []
        islandStore.jointIslands.valid = false
        islandStore.stepStartPosition = []; islandStore.stepStartRotation = []
    }

    /// The substepped solve: `stiffness.substeps` substeps of `h`, contacts at `stiffness` (`contactStiffness`).
    func solve(h: Float, stiffness: ContactStiffness) {
        let substeps = stiffness.substeps
        let soft = contactSoftness(h: h, stiffness)
        bodies.withColumns { columns in
            updateAnchorVelocities(dt: h * Float(substeps))
            prepareContacts(soft: soft)
            prepareJoints(h: h)
            // Nothing constrains the awake bodies (a field-driven swarm, bodies in flight): the substeps reduce to
            // integration, done in one pass per body with the same operations in the same order.
            if contactStore.contacts.isEmpty && jointStore.awake.isEmpty && !(fieldStore.active && fieldStore.hasVelocityOverride) && !fieldStore.motion.active {
                integrateUnconstrained(h: h, substeps: substeps)
                return
            }
            let invH = 1 / h
            // Wide batches, scalar constraints, or both (the coloring's overflow, solved first in every pass).
            let wide = !contactSolver.wide.isEmpty, scalar = !contactSolver.scalar.isEmpty
            rodSolver.alone = contactStore.contacts.isEmpty && rodSolver.scalarJoints.isEmpty && settings.warmStarting
            // Without joints or scalar contacts, nothing but the wide passes changes the velocities between a substep's
            // velocity integration and the next: the packed state carries them from the warm start to the solve, and
            // from the solve (which stores them for the position integration, which only reads them) to the relax pass.
            let packedKept = jointStore.awake.isEmpty && !scalar
            // Where welds and contacts meet, the welds between two moving bodies are solved again after the contacts, at
            // the velocity level only, so that the velocities each pass leaves hold them: a welded pair landing on one
            // corner would otherwise bend for a frame (the contact stops one part within the pass, after the weld was
            // solved). Other joints are not, nor do welds correct their position there: after the contacts a joint
            // that cannot be satisfied inside the walls (a rod to an item far outside, an anchor beyond the edge) would
            // drag its item through them.
            let jointsLast = (wide || scalar) && rodSolver.scalarJoints.contains { jointStore.records[Int($0)].kind == .weld }
            let warm = settings.warmStarting
            let bounces = bodies.anyRestitution
            if bounces { recordRestitutionStart() }
            /// One stage of every constraint: joints, then the scalar contacts (the coloring's overflow), then the wide
            /// batches, their copies taking in the bodies' passes of `rods` and `contacts`.
            func solveConstraints(_ stage: SolverStage, rods: PackedFusion, contacts: PackedFusion) {
                switch stage {
                case .warmStart:
                    warmStartJoints(fusion: rods)
                    if scalar { warmStartContacts() }
                    if wide { runWideContacts(.warmStart, invH: invH, soft: soft, store: !packedKept, fusion: contacts) }
                case .solve, .relax:
                    solveJoints(h: h, stage, fusion: rods)
                    if scalar { solveContacts(invH: invH, stage) }
                    if wide {
                        // The packed velocities are the bodies' when only wide passes ran since the last one.
                        let current = packedKept && (stage == .relax || warm)
                        runWideContacts(stage, invH: invH, soft: soft, load: !current, fusion: contacts)
                    }
                    if jointsLast { solveJoints(h: h, .relax, weldsOnly: true) }
                }
            }
            // Rods alone over every awake body, and gravity all that changes the velocities between substeps: on the
            // workers, the velocity integration (v + h·g, the same operations) rides in the warm start's copy of the
            // velocities into the rods' packed state, on the thread that solves those bodies next, instead of a pass
            // of its own (joint_grid_100 on two workers 2% faster). Nothing reads the bodies' velocity columns before
            // the solve pass writes them back. On one thread the pass streaming through the columns is faster.
            let rodKick: Float = rodSolver.kickInCopy && rodSolver.alone && rodSolver.bodies.count == bodies.awakeCount
                && executor(work: rodSolver.bodies.count, minimum: workers.parallelPackedCopy) != nil
                && gravityAlone(columns) ? h : 0
            if rodKick != 0 { rodSolver.kickedSteps &+= 1 }
            // Rods alone over every awake body: the solve pass's copy-out also moves the bodies and packs their poses
            // for the relax pass, and with the kick the relax pass's copy-out is the next substep's kick, in place
            // (`PackedFusion`): one sweep over the bodies instead of three, and on the workers two a substep instead
            // of five, each a pass of its own. The same operations on each body give the same results.
            let rodsMove = rodSolver.moveInCopy && rodSolver.alone && rodSolver.bodies.count == bodies.awakeCount
                && !jointStore.awake.isEmpty && (!rodSolver.batches.isEmpty || !rodSolver.centerBatches.isEmpty)
            if rodsMove { rodSolver.movedSteps &+= 1 }
            // So for wide contacts alone whose bodies are every awake body (a pile at rest, a standing stack): the
            // solve pass's copy-out moves them and packs their poses for the relax pass (`moveInCopy`).
            let contactsMove = contactSolver.moveInCopy && wide && packedKept && !fieldStore.motion.active
                && contactSolver.awakeEntries + contactSolver.uncovered.count == bodies.awakeCount
            if contactsMove { contactSolver.movedSteps &+= 1 }
            let moveInCopy = rodsMove || contactsMove
            // And with gravity all that changes their velocities between substeps, the relax pass's copy-out is the
            // next substep's velocity integration, in place.
            let contactsKick = contactsMove && warm && gravityAlone(columns)
            if contactsKick { contactSolver.kickedSteps &+= 1 }
            for substep in 0..<substeps {
                jointStore.anchorTimeLeft = jointStore.anchorsInMotion.isEmpty ? 0 : Float(substeps - substep) * h
                let recordStart = substep == 0 && settings.sleepingEnabled
                let last = substep + 1 == substeps
                // What each packed state's copies take in this substep (the kick out is the next substep's).
                var rods = PackedFusion(kickIn: rodKick)
                if rodsMove {
                    rods.move = h
                    rods.recordStart = recordStart
                    rods.kickOut = last ? 0 : rodKick // zero on one thread
                    rods.kicked = substep > 0 && rodKick != 0
                }
                var contacts = PackedFusion.none
                if contactsMove {
                    contacts.move = h
                    contacts.recordStart = recordStart
                    contacts.kickOut = contactsKick && !last ? h : 0
                    contacts.kicked = contactsKick && substep > 0
                }
                // Springs integrated by velocity Verlet: half a kick in the first substep, half after the last.
                if rodKick == 0 && !contacts.kicked {
                    integrateVelocities(h: h, springWeight: substep == 0 ? 0.5 : 1)
                }
                if warm { solveConstraints(.warmStart, rods: rods, contacts: contacts) }
                solveConstraints(.solve, rods: rods, contacts: contacts)
                if !moveInCopy { integratePositions(h: h, recordStart: recordStart) }
                if !jointStore.anchorsInMotion.isEmpty { jointStore.anchorTimeLeft = Float(substeps - substep - 1) * h }
                solveConstraints(.relax, rods: rods, contacts: contacts)
            }
            if fieldStore.motion.active {
                fieldStore.motion.kick(h: h, weight: 0.5, velocity: columns.velocity, position: columns.position,
                                 count: bodies.awakeCount)
            }
            // Restitution in contact order, over both, bounded in energy per group of bodies it joins; then the
            // impulses kept for the next step's warm start.
            if wide { applyWideRestitution() } else { applyRestitution() }
            if bounces { boundRestitutionEnergy(dt: h * Float(substeps)) }
            if wide { storeWideContactImpulses() }
            if scalar { storeContactImpulses() }
            // The rods' impulses stay in their batches, which the next step reuses; the joint records get them when
            // the batches are rebuilt or a joint is destroyed (`flushRodImpulses`).
            if !rodSolver.batches.isEmpty || !rodSolver.centerBatches.isEmpty { rodSolver.impulsesPending = true }
        }
    }

    /// A solve pass's copy-out that is also the substep's position update, where one packed state holds the awake
    /// bodies (rods alone, or wide contacts alone): each awake body's velocities written back from `velocity`, its move
    /// (`integratePositions`' operations, body by body, so the same results) and its new pose packed into `pose`
    /// for the relax pass, in one sweep over the entries from `first` instead of three passes. Entries of other
    /// bodies (static or asleep) keep their poses. The awake bodies the packed state lacks (`others`: a few items in
    /// flight beside a pile) move by their own velocities. `blocks` runs the pass this copies out of (here the solve
    /// pass), then the sweep over the entries (`RodPassThenCopy`, `ContactPassThenCopy`: on the workers, in one task).
    @inline(never)
    func moveInCopy<Blocks: CopyBlocks>(_ columns: BodyColumns, list: UnsafeBufferPointer<Int32>, first: Int,
                    velocity packedVel: UnsafeMutableRawPointer, pose packedPose: UnsafeMutableRawPointer,
                    others: UnsafeBufferPointer<Int32>? = nil, h: Float, recordStart: Bool, blocks: Blocks) {
        typealias V = SIMD4<Float>
        let pos = columns.position, rot = columns.rotation
        let vel = columns.velocity, angVel = columns.angularVelocity
        let awake = bodies.awakeCount
        let maxTurn = World.maximumSpin(h: h)
        rodSolver.geometryStale = true
        contactSolver.posesStale = true
        @inline(__always) func sweep(_ p0: UnsafeMutablePointer<Vec2>?, _ q0: UnsafeMutablePointer<Rotation>?) {
            // (Written out twice: one inlined helper shared by the two loops cost the sweep about 30% more instructions.)
            blocks(list.count - first) { range in
                for e in (range.lowerBound + first)..<(range.upperBound + first) {
                    let s = Int(list[e])
                    if s >= awake { continue }
                    let v = (packedVel + 16 &* e).load(as: V.self)
                    let linear = Vec2(v[0], v[1])
                    vel[s] = linear
                    var w = v[2]
                    if Swift.abs(w) > maxTurn { w = w > 0 ? maxTurn : -maxTurn }
                    angVel[s] = w
                    let p = pos[s], q = rot[s]
                    if let p0 { p0[s] = p }
                    if let q0 { q0[s] = q }
                    let moved = p + h * linear
                    let turned = w != 0 ? q.integrated(by: h * w) : q
                    pos[s] = moved
                    rot[s] = turned
                    (packedPose + 16 &* e).storeBytes(of: V(moved.x, moved.y, turned.c, turned.s), as: V.self)
                }
            }
            guard let others else { return }
            for s in others {
                let s = Int(s)
                var w = angVel[s]
                if Swift.abs(w) > maxTurn { w = w > 0 ? maxTurn : -maxTurn; angVel[s] = w }
                let p = pos[s], q = rot[s]
                if let p0 { p0[s] = p }
                if let q0 { q0[s] = q }
                pos[s] = p + h * vel[s]
                if w != 0 { rot[s] = q.integrated(by: h * w) }
            }
        }
        guard recordStart else { sweep(nil, nil); return }
        prepareStepStart()
        islandStore.stepStartPosition.withUnsafeMutableBufferPointer { startPosition in
            islandStore.stepStartRotation.withUnsafeMutableBufferPointer { startRotation in
                sweep(startPosition.baseAddress!, startRotation.baseAddress!)
            }
        }
    }

    /// A relax pass's copy-out that is the next substep's velocity integration (gravity alone changing the
    /// velocities), where one packed state holds the awake bodies: each awake body's packed velocity from `first`
    /// kicked in place by h·g (`integrateVelocities`' operations, so the same results; the warm start then copies
    /// nothing), and the awake bodies the packed state lacks (`others`) kicked in their columns. Entries of other
    /// bodies (static or asleep, of no mass in the batches) keep the velocities the copy-in gave them, which no pass
    /// changes. `blocks` as for `moveInCopy` (here the relax pass).
    @inline(never)
    func kickPacked<Blocks: CopyBlocks>(_ columns: BodyColumns, list: UnsafeBufferPointer<Int32>, first: Int,
                    velocity packedVel: UnsafeMutableRawPointer, others: UnsafeBufferPointer<Int32>? = nil, h: Float,
                    blocks: Blocks) {
        typealias V = SIMD4<Float>
        let vel = columns.velocity, gravity = columns.gravity
        let awake = bodies.awakeCount
        blocks(list.count - first) { range in
            for e in (range.lowerBound + first)..<(range.upperBound + first) {
                let s = Int(list[e])
                if s >= awake { continue }
                let v = (packedVel + 16 &* e).load(as: V.self), g = gravity[s]
                (packedVel + 16 &* e).storeBytes(of: V(v[0] + h * g.x, v[1] + h * g.y, v[2], 0), as: V.self)
            }
        }
        guard let others else { return }
        for s in others { let s = Int(s); vel[s] = vel[s] + h * gravity[s] }
    }

    /// The fastest spin a position update of substep length h turns a body by: at most a quarter turn a substep
    /// (Box2D v3's bound). An item turning faster than that outruns the contact points its step's manifold follows,
    /// and sinks into what it spins against.
    @inline(__always) static func maximumSpin(h: Float) -> Float { 0.25 * .pi / h }

    /// Whether gravity alone changes the awake bodies' velocities in `integrateVelocities` (v + h·g): no force,
    /// torque, damping or field.
    @inline(__always) func gravityAlone(_ columns: BodyColumns) -> Bool {
        columns.force == nil && columns.linearDampingFactor == nil && columns.torqueA == nil
            && columns.angularDampingFactor == nil && !fieldStore.active && !fieldStore.motion.active
    }

    /// Sizes the step's start poses for the awake bodies and marks them recorded: the first substep's position
    /// update fills them (the rest test measures the step's move from them).
    func prepareStepStart() {
        let n = bodies.awakeCount
        if islandStore.stepStartPosition.count < n {
            let more = n - islandStore.stepStartPosition.count
            islandStore.stepStartPosition.append(contentsOf: repeatElement(.zero, count: more))
            islandStore.stepStartRotation.append(contentsOf: repeatElement(.identity, count: more))
        }
        islandStore.stepStartRecorded = true
        islandStore.stepStartSlots = bodies.slotVersion
    }

    /// v ← (v + h·(g + a_field + (F + F_field)/m)) · e^(−c·h), ω ← (ω + h·τ/I) · e^(−c_ω·h), over the awake range.
    ///
    /// The linear part runs elementwise over the 2n floats of the velocity column, two bodies per 4-wide vector
    /// (each body's inverse mass and damping factor spread over its two components); the angular part is a
    /// separate loop.
    func integrateVelocities(h: Float, springWeight: Float) {
        bodies.withColumns { columns in
            let n = bodies.awakeCount
            let vel = columns.velocity, angVel = columns.angularVelocity, rot = columns.rotation
            if fieldStore.active { prepareFieldColumns(count: n) }
            // Each body on its own: in blocks on the workers for many bodies (each block's components start at a
            // multiple of 4, as one pass groups them, though every component's arithmetic is its own anyway).
            withLinearTerms(count: n) { a4, a1, d in
                let v = floats(vel)
                @inline(__always) func run<D: LinearDamping>(_ d: D, _ range: Range<Int>) {
                    var k = 2 * range.lowerBound
                    let end = 2 * range.upperBound
                    while k + 4 <= end {
                        store4(d.apply(load4(v, k) + h * a4(k), d.factor4(k)), v, k)
                        k += 4
                    }
                    while k < end {
                        v[k] = d.apply(v[k] + h * a1(k), d.factor1(k))
                        k += 1
                    }
                }
                forEachBlock(count: n, minimumBlock: WorkerState.bodyBlock, parallelMinimum: workers.parallelIntegration) { range in
                    if let d { run(DampingColumn(factors: d), range) } else { run(NoDamping(), range) }
                }
            }
            // Torque and angular damping where their columns are present (a zero term and a factor of 1 left out).
            let invI = columns.invInertia
            let angDamp = columns.angularDampingFactor
            if let tA = columns.torqueA, let tB = columns.torqueB {
                @inline(__always) func torqued(_ s: Int) -> Float {
                    let q = rot[s]
                    return angVel[s] + h * invI[s] * (q.c * tA[s] - q.s * tB[s])
                }
                forEachBlock(count: n, minimumBlock: WorkerState.bodyBlock, parallelMinimum: workers.parallelIntegration) { range in
                    if let angDamp {
                        for s in range { angVel[s] = torqued(s) * angDamp[s] }
                    } else {
                        for s in range { angVel[s] = torqued(s) }
                    }
                }
            } else if let angDamp {
                forEachBlock(count: n, minimumBlock: WorkerState.bodyBlock, parallelMinimum: workers.parallelIntegration) { range in
                    for s in range { angVel[s] = angVel[s] * angDamp[s] }
                }
            }
            if fieldStore.motion.active {
                fieldStore.motion.apply(h: h, springWeight: springWeight, velocity: vel, position: columns.position, count: n)
            }
            // A velocity field sets the velocity outright, whatever else pushes.
            if fieldStore.active && fieldStore.hasVelocityOverride {
                let covered = Swift.min(n, fieldStore.coveredCount)
                fieldStore.velocityOverride.withUnsafeBufferPointer { o in
                    for s in 0..<covered where !o[s].x.isNaN { vel[s] = o[s] }
                }
            }
        }
    }

    /// Calls `body` with the acceleration of each velocity component k of the awake range (4-wide from k, and
    /// one at k) — gravity, the fields' acceleration, and the constant and field forces over the mass, each where
    /// present — and the per-body linear damping factor column if present. Each combination is its own loop.
    @inline(__always)
    func withLinearTerms(count n: Int, _ body: ((Int) -> SIMD4<Float>, (Int) -> Float, UnsafeMutablePointer<Float>?) -> Void) {
        bodies.withColumns { columns in
            let g = floats(columns.gravity), inverseMass = columns.invMass
            let d = columns.linearDampingFactor
            let force = columns.force.map { floats($0) }
            if fieldStore.active {
                fieldStore.force.withUnsafeMutableBufferPointer { ffb in
                fieldStore.acceleration.withUnsafeMutableBufferPointer { fab in
                    let ff = floats(ffb.baseAddress!), fa = floats(fab.baseAddress!)
                    if let f = force {
                        body({ k in load4(g, k) + load4(fa, k) + spread(inverseMass, k >> 1) * (load4(f, k) + load4(ff, k)) },
                             { k in g[k] + fa[k] + inverseMass[k >> 1] * (f[k] + ff[k]) }, d)
                    } else {
                        body({ k in load4(g, k) + load4(fa, k) + spread(inverseMass, k >> 1) * load4(ff, k) },
                             { k in g[k] + fa[k] + inverseMass[k >> 1] * ff[k] }, d)
                    }
                }
                }
            } else if let f = force {
                body({ k in load4(g, k) + spread(inverseMass, k >> 1) * load4(f, k) }, { k in g[k] + inverseMass[k >> 1] * f[k] }, d)
            } else {
                body({ k in load4(g, k) }, { k in g[k] }, d)
            }
        }
    }

    /// Field columns cover exactly the awake range: entries of bodies woken after the field pass are zero.
    func prepareFieldColumns(count n: Int) {
        if fieldStore.force.count < n { fieldStore.force.append(contentsOf: repeatElement(.zero, count: n - fieldStore.force.count)) }
        if fieldStore.acceleration.count < n { fieldStore.acceleration.append(contentsOf: repeatElement(.zero, count: n - fieldStore.acceleration.count)) }
        let covered = Swift.min(n, fieldStore.coveredCount)
        if covered < n {
            fieldStore.force.withUnsafeMutableBufferPointer { UnsafeMutableBufferPointer(rebasing: $0[covered..<n]).update(repeating: .zero) }
            fieldStore.acceleration.withUnsafeMutableBufferPointer { UnsafeMutableBufferPointer(rebasing: $0[covered..<n]).update(repeating: .zero) }
        }
    }

    /// All substeps of `integrateVelocities` and `integratePositions` for bodies that no constraint touches, fused:
    /// each body's values stay in registers across the substeps, and the result is bit-identical.
    func integrateUnconstrained(h: Float, substeps: Int) {
        bodies.withColumns { columns in
            let n = bodies.awakeCount
            let v = floats(columns.velocity), x = floats(columns.position)
            if fieldStore.active { prepareFieldColumns(count: n) }
            // Four floats (two bodies) per SSE register; the substeps run on registers. Elementwise IEEE operations in
            // the same order as the scalar path, so the results are the same to the bit.
            withLinearTerms(count: n) { a4, a1, d in
                @inline(__always) func run<D: LinearDamping>(_ d: D) {
                    let count = 2 * n
                    var k = 0
                    while k + 4 <= count {
                        let a = a4(k), dk = d.factor4(k)
                        var vk = load4(v, k)
                        var xk = load4(x, k)
                        for _ in 0..<substeps {
                            vk = d.apply(vk + h * a, dk)
                            xk += h * vk
                        }
                        store4(vk, v, k)
                        store4(xk, x, k)
                        k += 4
                    }
                    while k < count {
                        let a = a1(k), dk = d.factor1(k)
                        var vk = v[k], xk = x[k]
                        for _ in 0..<substeps {
                            vk = d.apply(vk + h * a, dk)
                            xk += h * vk
                        }
                        v[k] = vk
                        x[k] = xk
                        k += 1
                    }
                }
                if let d { run(DampingColumn(factors: d)) } else { run(NoDamping()) }
            }
            let angVel = columns.angularVelocity
            if let tA = columns.torqueA, let tB = columns.torqueB {
                for s in 0..<n where angVel[s] != 0 || tA[s] != 0 || tB[s] != 0 {
                    integrateSpin(slot: s, h: h, substeps: substeps)
                }
            } else {
                for s in 0..<n where angVel[s] != 0 { integrateSpin(slot: s, h: h, substeps: substeps) }
            }
        }
    }

    /// x ← x + h·v elementwise (vectorized), then the rotation of the bodies that turn.
    /// `recordStart`: also keep the poses before the move (`IslandStore.stepStartPosition`), in the step's first
    /// substep, for the rest test.
    func integratePositions(h: Float, recordStart: Bool = false) {
        if recordStart { prepareStepStart() }
        bodies.withColumns { columns in
            rodSolver.geometryStale = true
            contactSolver.posesStale = true
            let n = bodies.awakeCount
            let pos = columns.position, rot = columns.rotation
            let vel = columns.velocity, angVel = columns.angularVelocity
            // The speed limits, before every substep's move, for the bodies of scalar joints (Box2D v3 clamps in its
            // substeps too): joints that cannot be satisfied (a weld whose anchor is far from a light item) could
            // otherwise multiply a velocity within one step beyond anything a `Float` holds. (Contacts and the rods'
            // batches cannot; every other body is held to the limits once per step, `limitSpeeds`.)
            if !rodSolver.scalarJoints.isEmpty {
                let m = settings.maximumLinearSpeed, m2 = m * m, wMax = settings.maximumAngularSpeed
                @inline(__always) func limit(_ slot: Int32) {
                    guard slot >= 0 else { return }
                    let s = Int(slot), v = vel[s], l2 = lengthSquared(v)
                    if l2 > m2 { vel[s] = (m / l2.squareRoot()) * v }
                    let w = angVel[s]
                    if Swift.abs(w) > wMax { angVel[s] = w > 0 ? wMax : -wMax }
                }
                jointStore.records.withUnsafeBufferPointer { js in
                    for j in rodSolver.scalarJoints { limit(js[Int(j)].slotA); limit(js[Int(j)].slotB) }
                }
            }
            let maxTurn = World.maximumSpin(h: h)
            let p = floats(pos), v = floats(vel)
            /// Moves the bodies of `range`, keeping each pose before the move in `p0` and `q0` where given.
            @inline(__always) func move(_ range: Range<Int>, _ p0: UnsafeMutablePointer<Float>?, _ q0: UnsafeMutablePointer<Rotation>?) {
                for k in (2 * range.lowerBound)..<(2 * range.upperBound) {
                    let pk = p[k]
                    if let p0 { p0[k] = pk }
                    p[k] = pk + h * v[k]
                }
                for s in range {
                    var w = angVel[s]
                    if Swift.abs(w) > maxTurn { w = w > 0 ? maxTurn : -maxTurn; angVel[s] = w }
                    let q = rot[s]
                    if let q0 { q0[s] = q }
                    if w != 0 { rot[s] = q.integrated(by: h * w) }
                }
            }
            // Each body on its own: in blocks on the workers from 2,048 bodies (about 15 instructions a body with
            // its turn; rain_4000's 4,000 bodies moved 740 times on the caller's thread while the helper waited).
            guard recordStart else {
                forEachBlock(count: n, minimumBlock: WorkerState.bodyBlock, parallelMinimum: 2048) { move($0, nil, nil) }
                return
            }
            islandStore.stepStartPosition.withUnsafeMutableBufferPointer { startPosition in
                islandStore.stepStartRotation.withUnsafeMutableBufferPointer { startRotation in
                    let p0 = floats(startPosition.baseAddress!), q0 = startRotation.baseAddress!
                    forEachBlock(count: n, minimumBlock: WorkerState.bodyBlock, parallelMinimum: 2048) { move($0, p0, q0) }
                }
            }
        }
    }
}

/// Four floats from `p + k`.
@inline(__always) func load4(_ p: UnsafeMutablePointer<Float>, _ k: Int) -> SIMD4<Float> {
    UnsafeRawPointer(p + k).loadUnaligned(as: SIMD4<Float>.self)
}

@inline(__always) func store4(_ value: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>, _ k: Int) {
    UnsafeMutableRawPointer(p + k).storeBytes(of: value, as: SIMD4<Float>.self)
}

/// The linear damping of the integrators over velocity components (k: a component of the 2n floats, two per
/// body): a factor per body, or none, in which case the multiplication is left out (not done by 1).
protocol LinearDamping {
    /// The factors of the four components from k (two bodies), and of component k.
    func factor4(_ k: Int) -> SIMD4<Float>
    func factor1(_ k: Int) -> Float
    func apply(_ v: SIMD4<Float>, _ factor: SIMD4<Float>) -> SIMD4<Float>
    func apply(_ v: Float, _ factor: Float) -> Float
}

/// Per-body damping factors (`BodyStore.linearDampingFactor`).
struct DampingColumn: LinearDamping {
    let factors: UnsafeMutablePointer<Float>
    @inline(__always) func factor4(_ k: Int) -> SIMD4<Float> { spread(factors, k >> 1) }
    @inline(__always) func factor1(_ k: Int) -> Float { factors[k >> 1] }
    @inline(__always) func apply(_ v: SIMD4<Float>, _ factor: SIMD4<Float>) -> SIMD4<Float> { v * factor }
    @inline(__always) func apply(_ v: Float, _ factor: Float) -> Float { v * factor }
}

/// No body is damped: the column is not present.
struct NoDamping: LinearDamping {
    @inline(__always) func factor4(_ k: Int) -> SIMD4<Float> { .zero }
    @inline(__always) func factor1(_ k: Int) -> Float { 0 }
    @inline(__always) func apply(_ v: SIMD4<Float>, _ factor: SIMD4<Float>) -> SIMD4<Float> { v }
    @inline(__always) func apply(_ v: Float, _ factor: Float) -> Float { v }
}

/// A column of (x, y) pairs as 2n floats (Vec2 is two Floats, stride 8).
@inline(__always) func floats(_ p: UnsafeMutablePointer<Vec2>) -> UnsafeMutablePointer<Float> {
    UnsafeMutableRawPointer(p).assumingMemoryBound(to: Float.self)
}

/// The per-body values of bodies s and s + 1, each over its two (x, y) components: (p[s], p[s], p[s+1], p[s+1]).
@inline(__always) func spread(_ p: UnsafeMutablePointer<Float>, _ s: Int) -> SIMD4<Float> {
    let m = UnsafeRawPointer(p + s).loadUnaligned(as: SIMD2<Float>.self)
    return SIMD4(lowHalf: SIMD2(repeating: m.x), highHalf: SIMD2(repeating: m.y))
}

/// A stored impulse carried to a substep `ratio` times as long; none where the product leaves `Float`'s range (a
/// warm start is only a guess). `World.rescaleWarmStart` applies it to every stored impulse.
@inline(__always) func warmStartImpulse(_ impulse: Float, scaledBy ratio: Float) -> Float {
    let x = impulse * ratio
    return x.isFinite ? x : 0
}
