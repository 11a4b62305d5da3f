extension World {
    /// Advances the world by `dt` seconds in `substeps` substeps.
    ///
    /// Stages (DESIGN.md): forces, broadphase, narrowphase and contact events, the substepped soft solver over
    /// the awake bodies, islands and sleep. Events of this step are in `contactBeganEvents` /
    /// `contactEndedEvents` afterwards; bodies that fell asleep are in `bodiesFallenAsleep`.
    ///
    /// Complexity: O(awake bodies + their contacts and joints); sleeping and static bodies cost nothing.
    public func step(dt: Float, substeps: Int) {
        precondition(dt.isFinite && dt > 0, "time step must be positive and finite, got \(dt)")
        precondition(substeps >= 1, "substep count must be at least 1, got \(substeps)")
        let clock = ContinuousClock()
        let t0 = clock.now
        contactBeganEvents.removeAll(keepingCapacity: true)
        contactEndedEvents.removeAll(keepingCapacity: true)
        if !pendingEnded.isEmpty {
            contactEndedEvents.append(contentsOf: pendingEnded)
            pendingEnded.removeAll(keepingCapacity: true)
        }
        applyFields(dt: dt)
        let h = dt / Float(substeps)
        if h != dampingH {
            dampingH = h
            for s in 0..<bodies.count { updateDampingFactors(slot: s, id: Int(bodies.bodyIndex[s])) }
        }
        let t1 = clock.now

        updatePairs(dt: dt)
        let t2 = clock.now
        narrowphase(dt: dt)
        let t3 = clock.now

        if awakeJointsDirty { refreshAwakeJoints() }
        solve(h: h, substeps: substeps)
        let t4 = clock.now

        if awakeJointsDirty { refreshAwakeJoints() }
        updateSleep(dt: dt)
        if awakeJointsDirty { refreshAwakeJoints() }
        releaseUnusedScratch()
        let t5 = clock.now
        stepCount += 1

        func seconds(_ d: Duration) -> Double {
            Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
        }
        profile.forces = seconds(t1 - t0)
        profile.broadphase = seconds(t2 - t1)
        profile.narrowphase = seconds(t3 - t2)
        profile.solve = seconds(t4 - t3)
        profile.islands = seconds(t5 - t4)
        profile.total = seconds(t5 - t0)
    }

    /// Gives back scratch capacity after a transient peak (a landing wave can need ten times the contacts of the
    /// pile that follows). Only when the count is below an eighth of the capacity, so a steady step never
    /// reallocates.
    func releaseUnusedScratch() {
        @inline(__always) func shrink<T>(_ a: inout [T], _ used: Int) {
            if a.capacity > 4096 && used * 8 < a.capacity {
                var fresh: [T] = []
                fresh.reserveCapacity(Swift.max(used * 2, 1024))
                fresh.append(contentsOf: a)
                a = fresh
            }
        }
        shrink(&contacts, contacts.count)
        if newContacts.capacity > 4096 && contacts.count * 8 < newContacts.capacity { newContacts = [] }
        if constraints.capacity > 4096 && contacts.count * 8 < constraints.capacity { constraints = [] }
        if pairs.capacity > 4096 && pairs.count * 8 < pairs.capacity { pairs = [] }
        if cellEntries.capacity > 4096 && cellEntries.count * 8 < cellEntries.capacity { cellEntries = [] }
        if sortScratch.count > 4096 && cellEntries.count * 8 < sortScratch.count { sortScratch = [] }
    }

    func solve(h: Float, substeps: Int) {
        prepareContacts(h: h)
        prepareJoints(h: h)
        let invH = 1 / h
        for _ in 0..<substeps {
            integrateVelocities(h: h)
            if settings.warmStarting {
                warmStartJoints()
                warmStartContacts()
            }
            solveJoints(h: h, useBias: true)
            solveContacts(invH: invH, useBias: true)
            integratePositions(h: h)
            solveJoints(h: h, useBias: false)
            solveContacts(invH: invH, useBias: false)
        }
        applyRestitution()
        storeContactImpulses()
    }

    /// v ← (v + h·(g + F/m)) · e^(−c·h), ω ← (ω + h·τ/I) · e^(−c_ω·h), over the awake range.
    func integrateVelocities(h: Float) {
        let n = bodies.awakeCount
        let vel = bodies.velocity.base, angVel = bodies.angularVelocity.base, rot = bodies.rotation.base
        let grav = bodies.gravity.base, force = bodies.force.base, invMass = bodies.invMass.base
        let invI = bodies.invInertia.base, tA = bodies.torqueA.base, tB = bodies.torqueB.base
        let linDamp = bodies.linearDampingFactor.base, angDamp = bodies.angularDampingFactor.base
        guard fieldsActive else {
            for s in 0..<n {
                let q = rot[s]
                let torque = q.c * tA[s] - q.s * tB[s]
                vel[s] = (vel[s] + h * (grav[s] + invMass[s] * force[s])) * linDamp[s]
                angVel[s] = (angVel[s] + h * invI[s] * torque) * angDamp[s]
            }
            return
        }
        let overrides = hasVelocityOverride
        // Bodies woken after the field pass (by the narrowphase) have no field entry this step.
        let covered = Swift.min(n, fieldsCoveredCount)
        fieldForce.withUnsafeBufferPointer { fieldForce in
        velocityOverride.withUnsafeBufferPointer { velocityOverride in
            for s in covered..<n {
                let q = rot[s]
                let torque = q.c * tA[s] - q.s * tB[s]
                vel[s] = (vel[s] + h * (grav[s] + invMass[s] * force[s])) * linDamp[s]
                angVel[s] = (angVel[s] + h * invI[s] * torque) * angDamp[s]
            }
            for s in 0..<covered {
                let q = rot[s]
                let torque = q.c * tA[s] - q.s * tB[s]
                vel[s] = (vel[s] + h * (grav[s] + invMass[s] * (force[s] + fieldForce[s]))) * linDamp[s]
                angVel[s] = (angVel[s] + h * invI[s] * torque) * angDamp[s]
                // A velocity field sets the velocity outright, whatever else pushes.
                if overrides, !velocityOverride[s].x.isNaN { vel[s] = velocityOverride[s] }
            }
        }
        }
    }

    func integratePositions(h: Float) {
        let n = bodies.awakeCount
        let pos = bodies.position.base, rot = bodies.rotation.base
        let vel = bodies.velocity.base, angVel = bodies.angularVelocity.base
        for s in 0..<n {
            pos[s] += h * vel[s]
            let w = angVel[s]
            if w != 0 { rot[s] = rot[s].integrated(by: h * w) }
        }
    }
}
