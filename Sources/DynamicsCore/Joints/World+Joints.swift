extension World {
    /// Creates a joint. Anchors are relative to the body origins (item centers) in body frames; a joint to the
    /// world takes its anchor B as a world point. Refuses stale bodies, non-finite values, an empty or inverted
    /// range, negative lengths, frequencies, damping or torque.
    @discardableResult
    public func createJoint(_ def: JointDefinition) throws -> JointID {
        guard bodies.isValid(def.bodyA) else { throw DynamicsError("joint body A \(def.bodyA) is stale or was never created") }
        if let b = def.bodyB {
            guard bodies.isValid(b) else { throw DynamicsError("joint body B \(b) is stale or was never created") }
            if b == def.bodyA { throw DynamicsError("a joint cannot attach \(b) to itself") }
        }
        try requireFinite(def.localAnchorA, "joint anchor A"); try requireFinite(def.localAnchorB, "joint anchor B")
        for (name, v) in [("length", def.length), ("min length", def.minLength), ("frequency", def.hertz),
                          ("damping", def.dampingRatio), ("friction torque", def.maxFrictionTorque)] {
            if !(v.isFinite && v >= 0) { throw DynamicsError("joint \(name) must be finite and not negative, got \(v)") }
        }
        if !(def.maxLength >= def.minLength) || def.maxLength.isNaN {
            throw DynamicsError("joint max length (\(def.maxLength)) must be at least its min length (\(def.minLength))")
        }
        if def.enableLimit {
            if def.lowerLimit.isNaN || def.upperLimit.isNaN || def.lowerLimit > 0 || def.upperLimit < 0 {
                throw DynamicsError("joint range \(def.lowerLimit)...\(def.upperLimit) must contain 0")
            }
        }
        try requireFinite(def.localAxisA, "joint axis")
        if def.kind == .prismatic && length(def.localAxisA) < 1e-6 { throw DynamicsError("a sliding joint needs a non-zero axis") }

        let ia = Int(def.bodyA.index)
        let ib = def.bodyB.map { Int($0.index) } ?? -1
        let sa = Int(bodies.slot[ia])
        let qA = bodies.rotation[sa]
        var qB = Rotation.identity
        var localB = def.localAnchorB
        if ib >= 0 {
            localB = def.localAnchorB - bodies.localCenter[ib]
            qB = bodies.rotation[Int(bodies.slot[ib])]
        }
        let axis = normalized(def.localAxisA)
        let jr = JointRecord(
            kind: def.kind, bodyA: Int32(ia), bodyB: Int32(ib),
            localA: def.localAnchorA - bodies.localCenter[ia], localB: localB,
            length: def.length, minLength: def.minLength, maxLength: def.maxLength,
            hertz: def.hertz, dampingRatio: def.dampingRatio, enableLimit: def.enableLimit,
            lower: def.lowerLimit, upper: def.upperLimit, maxFrictionTorque: def.maxFrictionTorque,
            localAxisA: axis == .zero ? Vec2(1, 0) : axis, referenceAngle: relativeAngle(qA, qB))
        let index: Int
        if let f = jointStore.freeIndices.popLast() {
            index = Int(f)
            jointStore.records[index] = jr
        } else {
            index = jointStore.records.count
            jointStore.records.append(jr); jointStore.generation.append(0); jointStore.alive.append(false)
            jointStore.edgeNext.append(-1); jointStore.edgeNext.append(-1)
        }
        jointStore.generation[index] &+= 1
        jointStore.alive[index] = true
        attachEdge(Int32(2 * index), to: ia)
        if ib >= 0 { attachEdge(Int32(2 * index + 1), to: ib) }
        wakeBody(ia)
        if ib >= 0 { wakeBody(ib) }
        jointStore.awakeDirty = true
        return JointID(index: Int32(index), generation: jointStore.generation[index])
    }

    public func isValid(_ id: JointID) -> Bool {
        let i = Int(id.index)
        return i >= 0 && i < jointStore.records.count && jointStore.alive[i] && jointStore.generation[i] == id.generation
    }

    public func destroyJoint(_ id: JointID) throws {
        guard isValid(id) else { throw DynamicsError("cannot destroy \(id): it is stale or was never created") }
        destroyJointUnchecked(Int(id.index))
    }

    func destroyJointUnchecked(_ j: Int) {
        // A later flush must not write this joint's impulse into the record's next owner.
        flushRodImpulses()
        let jr = jointStore.records[j]
        for (side, b) in [jr.bodyA, jr.bodyB].enumerated() where b >= 0 {
            wakeBody(Int(b))
            detachEdge(Int32(2 * j + side), from: Int(b))
        }
        jointStore.alive[j] = false
        jointStore.freeIndices.append(Int32(j))
        jointStore.awakeDirty = true
    }

    /// The joints attached to body `i` (indices), in the order they were attached.
    func jointsAttached(to i: Int) -> [Int32] {
        var list: [Int32] = []
        var e = bodies.jointHead[i]
        while e >= 0 {
            list.append(e >> 1)
            e = jointStore.edgeNext[Int(e)]
        }
        return list
    }

    /// Links a joint edge at the end of body `i`'s list.
    func attachEdge(_ edge: Int32, to i: Int) {
        jointStore.edgeNext[Int(edge)] = -1
        var e = bodies.jointHead[i]
        if e < 0 { bodies.jointHead.set(i, edge, ids: bodies.idCapacity); return }
        while jointStore.edgeNext[Int(e)] >= 0 { e = jointStore.edgeNext[Int(e)] }
        jointStore.edgeNext[Int(e)] = edge
    }

    /// Unlinks a joint edge from body `i`'s list.
    func detachEdge(_ edge: Int32, from i: Int) {
        var e = bodies.jointHead[i]
        if e == edge { bodies.jointHead.set(i, jointStore.edgeNext[Int(edge)], ids: bodies.idCapacity); return }
        while e >= 0 {
            let next = jointStore.edgeNext[Int(e)]
            if next == edge { jointStore.edgeNext[Int(e)] = jointStore.edgeNext[Int(edge)]; return }
            e = next
        }
    }

    /// The index of a joint a change names; throws for a stale id.
    @inline(__always) func validJoint(_ id: JointID, _ what: String) throws -> Int {
        guard isValid(id) else { throw DynamicsError("\(what): \(id) is stale or was never created") }
        return Int(id.index)
    }

    @inline(__always) func checkedJoint(_ id: JointID) -> Int {
        precondition(isValid(id), "\(id) is stale or was never created")
        return Int(id.index)
    }

    /// Moves the world anchor of a joint to the world (or a snap target); wakes the body: this is how a drag is made.
    public func setWorldAnchor(_ id: JointID, _ point: Vec2) throws {
        try requireFinite(point, "\(id) anchor")
        let j = try validJoint(id, "setWorldAnchor")
        guard jointStore.records[j].bodyB < 0 else { throw DynamicsError("\(id) is attached to a body, not to a world point") }
        if jointStore.records[j].localB == point { return }
        if jointStore.records[j].anchorShift == .zero { jointStore.movedAnchors.append(Int32(j)) }
        let shift = jointStore.records[j].anchorShift + (point - jointStore.records[j].localB)
        jointStore.records[j].anchorShift = shift
        jointStore.records[j].localB = point
        rodSolver.layoutDirty = true
        wakeBody(Int(jointStore.records[j].bodyA))
    }

    /// Updates the tunable values of a joint (length and range, spring, friction); wakes its bodies.
    public func setJointParameters(_ id: JointID, length: Float, minLength: Float, maxLength: Float, hertz: Float,
                                   dampingRatio: Float, maxFrictionTorque: Float) throws {
        for (name, v) in [("length", length), ("min length", minLength), ("frequency", hertz), ("damping", dampingRatio),
                          ("friction torque", maxFrictionTorque)] {
            if !(v.isFinite && v >= 0) { throw DynamicsError("\(id) \(name) must be finite and not negative, got \(v)") }
        }
        if !(maxLength >= minLength) { throw DynamicsError("\(id) max length must be at least its min length") }
        let j = try validJoint(id, "setJointParameters")
        var jr = jointStore.records[j]
        if jr.length == length && jr.minLength == minLength && jr.maxLength == maxLength && jr.hertz == hertz
            && jr.dampingRatio == dampingRatio && jr.maxFrictionTorque == maxFrictionTorque { return }
        jr.length = length; jr.minLength = minLength; jr.maxLength = maxLength
        jr.hertz = hertz; jr.dampingRatio = dampingRatio; jr.maxFrictionTorque = maxFrictionTorque
        jointStore.records[j] = jr
        rodSolver.layoutDirty = true
        wakeBody(Int(jr.bodyA))
        if jr.bodyB >= 0 { wakeBody(Int(jr.bodyB)) }
    }

    /// World positions of a joint's two anchors (for drawing and checks).
    public func jointAnchors(_ id: JointID) -> (a: Vec2, b: Vec2) {
        let j = checkedJoint(id)
        let jr = jointStore.records[j]
        let sa = Int(bodies.slot[Int(jr.bodyA)])
        let a = bodies.position[sa] + bodies.rotation[sa].rotate(jr.localA)
        var b = jr.localB
        if jr.bodyB >= 0 {
            let sb = Int(bodies.slot[Int(jr.bodyB)])
            b = bodies.position[sb] + bodies.rotation[sb].rotate(jr.localB)
        }
        return (a, b)
    }

    /// The joint's current relative angle (B − A − reference), radians.
    public func jointAngle(_ id: JointID) -> Float {
        let j = checkedJoint(id)
        let jr = jointStore.records[j]
        let qA = bodies.rotation[Int(bodies.slot[Int(jr.bodyA)])]
        let qB = jr.bodyB >= 0 ? bodies.rotation[Int(bodies.slot[Int(jr.bodyB)])] : Rotation.identity
        return unwind(relativeAngle(qA, qB) - jr.referenceAngle)
    }
}
