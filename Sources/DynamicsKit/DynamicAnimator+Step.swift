import DynamicsSIMD

extension DynamicAnimator {
    /// Advances one fixed step of `timeStep` if the animator is running; returns whether it stepped.
    ///
    /// The stages: compile changed behaviors, the engine step (forces, broadphase, narrowphase, solver, islands),
    /// write `center`/`transform` back to the items that moved, collision delegate callbacks (all began, then all
    /// ended), `action` blocks in tree order, then the pause check. An animator with no behavior left pauses
    /// instead of stepping. Calling it from inside an `action`, a delegate callback or a step observer is a
    /// contract violation and changes nothing.
    @discardableResult
    public func step() -> Bool {
        guard isRunning else { return false }
        guard require(!inCallbacks, "DynamicAnimator: step() cannot be called from inside an action, delegate callback or step observer; the step in progress finishes first") else { return false }
        // Timed on a monotonic clock in nanoseconds (`dk_clock_ns`, as the world times its stages).
        let t0 = dk_clock_ns()
        compileIfNeeded()
        if behaviors.isEmpty {
            pause()
            return false
        }
        let t1 = dk_clock_ns()
        do { try world.step(dt: Float(timeStep), substeps: substepCount) } catch {
            // (`timeStep` and `substepCount` are held to the same ranges, so this does not happen.)
            ContractViolation.report("DynamicAnimator: \(error)")
            return false
        }
        elapsedTime += timeStep
        let t2 = dk_clock_ns()
        writeBack()
        let t3 = dk_clock_ns()
        for warning in world.takeWarnings() { warningHandler(warning) }
        inCallbacks = true
        dispatchContactEvents()
        for b in compiledActions { b.action?() }
        for observe in stepObservers { observe(self) }
        inCallbacks = false
        let t4 = dk_clock_ns()
        retired.removeAll(keepingCapacity: true)
        // Pause when nothing moves and no change is waiting, or when no behavior is left.
        if behaviors.isEmpty || (world.awakeBodyCount == 0 && !needsCompile) { pause() }
        lastStepTimings = AnimatorTimings(compile: Double(t1 - t0) / 1e9, engine: world.profile, writeBack: Double(t3 - t2) / 1e9,
                                          callbacks: Double(t4 - t3) / 1e9)
        return true
    }

    /// Stops running and tells the delegate, once per pause.
    func pause() {
        guard isRunning else { return }
        isRunning = false
        inPauseCallback = true
        delegate?.dynamicAnimatorDidPause(self)
        inPauseCallback = false
        // Removals made by the delegate (the usual clean-up) leave the animator paused unless they leave
        // something moving.
        if !isRunning && needsCompile { applyRemovalsWhilePaused() }
    }

    /// Calls `observer` after every step, once the items are written back and after the `action` blocks (like an
    /// action, it may read anything but not step the animator). For tools that watch a simulation without being
    /// part of its behavior tree, such as a recorder; a DynamicsKit addition.
    public func addStepObserver(_ observer: @escaping (DynamicAnimator) -> Void) {
        stepObservers.append(observer)
    }

    /// Advances by `time` seconds of wall-clock time scaled by `speed`, in as many fixed steps as fit; the
    /// remainder carries over to the next call. Stops early if the animator pauses.
    public func advance(by time: TimeInterval) {
        guard require(time.isFinite && time >= 0, "DynamicAnimator: advance(by:) needs a finite, non-negative time, got \(time)"),
              require((remainder + time * speed) / timeStep <= Double(SupportedRange.stepsPerCall),
                      "DynamicAnimator: advance(by: \(time)) asks for more than 1,000,000 steps of \(timeStep) s at speed \(speed); advance in smaller parts")
        else { return }
        guard isRunning else { remainder = 0; return }
        remainder += time * speed
        while remainder >= timeStep {
            remainder -= timeStep
            if !step() { remainder = 0; break }
        }
    }

    /// Steps until the animator pauses or `timeout` simulated seconds have passed. Returns true when it paused.
    @discardableResult
    public func runUntilPaused(timeout: TimeInterval) -> Bool {
        guard require(timeout.isFinite && timeout >= 0, "DynamicAnimator: timeout must be finite and not negative, got \(timeout)"),
              require(timeout / timeStep <= Double(SupportedRange.stepsPerCall),
                      "DynamicAnimator: runUntilPaused(timeout: \(timeout)) asks for more than 1,000,000 steps of \(timeStep) s; run it in parts")
        else { return !isRunning }
        var t: TimeInterval = 0
        while isRunning && t < timeout {
            if !step() { break }
            t += timeStep
        }
        return !isRunning
    }

    /// Writes center and transform to every item whose body moved this step (awake, or fallen asleep now).
    func writeBack() {
        let records = self.records
        world.withBodyStates { states in
            for k in 0..<states.awakeCount {
                let tag = Int(states.userTag(at: k))
                guard tag >= 0, let r = records[tag] else { continue }
                write(r, tag: tag, origin: states.origin(at: k), rotation: states.rotation(at: k))
            }
        }
        for id in world.bodiesFallenAsleep where world.isValid(id) {
            let tag = Int(world.userTag(of: id))
            guard tag >= 0, let r = records[tag] else { continue }
            write(r, tag: tag, origin: world.origin(of: id), rotation: world.rotation(of: id))
        }
    }

    @inline(__always)
    func write(_ r: ItemRecord, tag: Int, origin: Vec2, rotation q: Rotation) {
        if !r.isGroup {
            r.item.center = CGPoint(x: CGFloat(origin.x), y: CGFloat(origin.y))
            r.item.transform = CGAffineTransform(a: CGFloat(q.c), b: CGFloat(q.s), c: CGFloat(-q.s), d: CGFloat(q.c), tx: 0, ty: 0)
            return
        }
        r.item.center = CGPoint(origin)
        r.item.transform = CGAffineTransform(a: CGFloat(q.c), b: CGFloat(q.s), c: CGFloat(-q.s), d: CGFloat(q.c), tx: 0, ty: 0)
        for m in groupMembers[tag] ?? [] {
            m.item.center = CGPoint(origin + q.rotate(m.offset))
            m.item.transform = CGAffineTransform(rotationAngle: CGFloat(q.angle + m.angle))
        }
    }

    /// What body `id` stands for in a contact event: present in the world, or removed during this step.
    func contactParty(of id: BodyID) -> ContactParty? {
        if world.isValid(id) {
            let tag = Int(world.userTag(of: id))
            if tag >= 0, let r = records[tag] { return .item(r.item) }
            if let owner = boundaryOwner[id] { return .boundary(owner.0, owner.1) }
            return nil
        }
        return retired[id]
    }

    /// Collision delegate calls for the step's contact events: all began, then all ended.
    func dispatchContactEvents() {
        guard !world.contactBeganEvents.isEmpty || !world.contactEndedEvents.isEmpty, anyCollisionDelegate else { return }
        /// The collision behaviors holding an item, from the compiled membership (no search of item lists).
        func collisionsHolding(_ item: DynamicItem) -> [CollisionBehavior] {
            let id = ObjectIdentifier(item)
            if let tag = tagOf.tag(id, records), let r = records[tag] {
                if r.collisionList >= 0 { return collisionLists[Int(r.collisionList)] }
                if let k = leftCollisionLists[tag] { return previousCollisionLists[Int(k)] }
                return []
            }
            if let k = removedCollisionLists[id] { return previousCollisionLists[Int(k)] }
            return []
        }
        /// Behaviors holding both items; for a pair where one item has just left, those holding either.
        func behaviorsFor(_ a: DynamicItem, _ b: DynamicItem, fallbackToEither: Bool) -> [CollisionBehavior] {
            let ca = collisionsHolding(a), cb = collisionsHolding(b)
            let both = ca.filter { c in cb.contains { $0 === c } }
            if !both.isEmpty || !fallbackToEither { return both }
            return ca + cb.filter { c in !ca.contains { $0 === c } }
        }
        for e in world.contactBeganEvents {
            let point = CGPoint(e.point)
            switch (contactParty(of: e.bodyA), contactParty(of: e.bodyB)) {
            case let (.item(a)?, .item(b)?):
                for c in behaviorsFor(a, b, fallbackToEither: false) { c.collisionDelegate?.collisionBehavior(c, beganContactFor: a, with: b, at: point) }
            case let (.item(a)?, .boundary(c, id)?), let (.boundary(c, id)?, .item(a)?):
                c.collisionDelegate?.collisionBehavior(c, beganContactFor: a, withBoundaryIdentifier: id?.copying, at: point)
            default: break
            }
        }
        for e in world.contactEndedEvents {
            switch (contactParty(of: e.bodyA), contactParty(of: e.bodyB)) {
            case let (.item(a)?, .item(b)?):
                // An item just removed from its behavior still reports the end of its contact to that behavior.
                for c in behaviorsFor(a, b, fallbackToEither: true) { c.collisionDelegate?.collisionBehavior(c, endedContactFor: a, with: b) }
            case let (.item(a)?, .boundary(c, id)?), let (.boundary(c, id)?, .item(a)?):
                c.collisionDelegate?.collisionBehavior(c, endedContactFor: a, withBoundaryIdentifier: id?.copying)
            default: break
            }
        }
    }
}
