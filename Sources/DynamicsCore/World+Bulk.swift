/// Read access to every body's state at once, without a call per body. Valid only inside the closure passed to
/// `World.withBodyStates(_:)`; do not step or change the world from inside it.
///
/// It reads the columns through pointers taken once for the closure: a read is a load, with none of the access
/// checks of going through the world object (a write-back of 10,000 items reads 10,000 of each).
public struct BodyStates {
    /// Number of bodies (awake first, then sleeping and static).
    public let count: Int
    /// Bodies `0 ..< awakeCount` are awake.
    public let awakeCount: Int
    @usableFromInline let position: UnsafePointer<Vec2>, rotations: UnsafePointer<Rotation>
    @usableFromInline let velocities: UnsafePointer<Vec2>, angularVelocities: UnsafePointer<Float>
    @usableFromInline let bodyIndex: UnsafePointer<Int32>
    /// Per body id (the id arrays; empty when the world has no body yet, and `localCenter` while every body's
    /// center of mass is at its origin).
    @usableFromInline let generation: UnsafeBufferPointer<UInt32>, localCenter: UnsafeBufferPointer<Vec2>
    @usableFromInline let userTags: UnsafeBufferPointer<Int32>, flags: UnsafeBufferPointer<UInt8>

    @usableFromInline init(count: Int, awakeCount: Int, position: UnsafePointer<Vec2>, rotations: UnsafePointer<Rotation>,
                           velocities: UnsafePointer<Vec2>, angularVelocities: UnsafePointer<Float>,
                           bodyIndex: UnsafePointer<Int32>, generation: UnsafeBufferPointer<UInt32>,
                           localCenter: UnsafeBufferPointer<Vec2>, userTags: UnsafeBufferPointer<Int32>,
                           flags: UnsafeBufferPointer<UInt8>) {
        self.count = count; self.awakeCount = awakeCount
        self.position = position; self.rotations = rotations
        self.velocities = velocities; self.angularVelocities = angularVelocities
        self.bodyIndex = bodyIndex; self.generation = generation
        self.localCenter = localCenter; self.userTags = userTags; self.flags = flags
    }

    @inlinable public func id(at k: Int) -> BodyID {
        let i = Int(bodyIndex[k])
        return BodyID(index: Int32(i), generation: generation[i])
    }
    /// The body origin (item center), points.
    @inlinable public func origin(at k: Int) -> Vec2 {
        position[k] - rotations[k].rotate(localCenter.isEmpty ? .zero : localCenter[Int(bodyIndex[k])])
    }
    @inlinable public func rotation(at k: Int) -> Rotation { rotations[k] }
    @inlinable public func velocity(at k: Int) -> Vec2 { velocities[k] }
    @inlinable public func angularVelocity(at k: Int) -> Float { angularVelocities[k] }
    @inlinable public func userTag(at k: Int) -> Int32 { userTags[Int(bodyIndex[k])] }
    @inlinable public func isStatic(at k: Int) -> Bool { flags[Int(bodyIndex[k])] & BodyStore.staticBit != 0 }
}

extension World {
    /// Calls `body` with a view of all body states (see `BodyStates`).
    @inlinable public func withBodyStates<R>(_ body: (BodyStates) throws -> R) rethrows -> R {
        return try bodies.withColumns { columns in
            let b = bodies
            return try b.localCenter.withUnsafeBufferPointer { lc in
                try b.userTag.withUnsafeBufferPointer { tags in
                    try b.generation.withUnsafeBufferPointer { gen in
                        try b.flags.withUnsafeBufferPointer { flags in
                            try body(BodyStates(count: b.count, awakeCount: b.awakeCount,
                                                position: UnsafePointer(columns.position), rotations: UnsafePointer(columns.rotation),
                                                velocities: UnsafePointer(columns.velocity),
                                                angularVelocities: UnsafePointer(columns.angularVelocity),
                                                bodyIndex: UnsafePointer(columns.bodyIndex), generation: gen,
                                                localCenter: lc, userTags: tags, flags: flags))
                        }
                    }
                }
            }
        }
    }

    /// A 64-bit digest of every body's state (center of mass, rotation, velocity, angular velocity, to the bit), in id
    /// order: equal digests mean equal worlds, for checking that runs are bit-identical (across worker counts,
    /// machines, or a recording and its re-simulation).
    public func stateHash() -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        @inline(__always) func mix(_ v: Float) {
            var x = UInt64(v.bitPattern)
            for _ in 0..<4 { h = (h ^ (x & 0xFF)) &* 0x100_0000_01b3; x >>= 8 }
        }
        for i in 0..<bodies.slot.count where bodies.slot[i] >= 0 {
            let s = Int(bodies.slot[i])
            let p = bodies.position[s], q = bodies.rotation[s], v = bodies.velocity[s]
            mix(p.x); mix(p.y); mix(q.c); mix(q.s); mix(v.x); mix(v.y); mix(bodies.angularVelocity[s])
        }
        return h
    }

    /// Every contact whose shapes touch, the ones a sleeping island keeps included (items resting on a floor still
    /// touch it): the awake ones by body pair, then each sleeping island's. Each gives both bodies, the normal, both
    /// points with their separations and the impulses of the last step that solved them.
    public func touchingContacts() -> [TouchingContact] {
        var out: [TouchingContact] = []
        out.reserveCapacity(allTouchingContactCount)
        func add(_ c: Contact, sleeping: Bool) {
            guard c.touching else { return }
            out.append(TouchingContact(
                bodyA: BodyID(index: c.bodyA, generation: bodies.generation[Int(c.bodyA)]),
                bodyB: BodyID(index: c.bodyB, generation: bodies.generation[Int(c.bodyB)]),
                normal: c.manifold.normal, pointCount: c.manifold.pointCount, points: c.manifold.points,
                isSleeping: sleeping))
        }
        for c in contactStore.contacts { add(c, sleeping: false) }
        for island in islandStore.sleeping where island.inUse {
            for c in island.contacts { add(c, sleeping: true) }
        }
        return out
    }

    /// How many awake bodies have been at rest long enough to sleep; an island sleeps when all its bodies are.
    public var awakeBodiesReadyToSleep: Int {
        var n = 0
        for s in 0..<bodies.awakeCount where bodies.sleepTime[s] >= settings.timeToSleep { n += 1 }
        return n
    }

    /// Seconds each awake body has been at rest (for diagnosing what keeps a scene awake), by body id.
    public func restTimes() -> [(BodyID, Float)] {
        (0..<bodies.awakeCount).map { s in
            let i = Int(bodies.bodyIndex[s])
            // −1 marks a body too fast to have started resting (`restTest`): it has rested for 0 s.
            return (BodyID(index: Int32(i), generation: bodies.generation[i]), Swift.max(0, bodies.sleepTime[s]))
        }
    }

    /// Candidate pairs of the last broadphase (lower id index first), for tests of the broadphase contract.
    public var lastCandidatePairs: [(Int32, Int32)] {
        broadphase.pairs.map { (Int32(truncatingIfNeeded: $0 >> 32), Int32(truncatingIfNeeded: $0 & 0xFFFF_FFFF)) }
    }
}

/// A contact whose shapes touch (`World.touchingContacts()`).
public struct TouchingContact: Sendable {
    /// The two bodies (a boundary is a static body), A the one with the lower id index.
    public var bodyA: BodyID
    public var bodyB: BodyID
    /// The unit normal, from A to B.
    public var normal: Vec2
    /// 1 or 2: the points in use of `points`.
    public var pointCount: Int
    /// The contact points: each its world point, separation (negative when overlapping, points) and the normal and
    /// tangent impulses (mass·points/s) the last step that solved it applied there.
    public var points: (ManifoldPoint, ManifoldPoint)
    /// Whether the contact waits in a sleeping island (its impulses are those of the step before it fell asleep).
    public var isSleeping: Bool
}
