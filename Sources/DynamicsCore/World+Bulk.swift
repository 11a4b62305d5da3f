/// Read access to every body's state at once, without a call per body. Valid only inside the closure passed to
/// `World.withBodyStates(_:)`; do not step or change the world from inside it.
public struct BodyStates {
    @usableFromInline let world: World
    @usableFromInline init(world: World) { self.world = world }

    /// Number of bodies (awake first, then sleeping and static).
    @inlinable public var count: Int { world.bodies.count }
    /// Bodies `0 ..< awakeCount` are awake.
    @inlinable public var awakeCount: Int { world.bodies.awakeCount }

    @inlinable public func id(at k: Int) -> BodyID {
        let i = Int(world.bodies.bodyIndex[k])
        return BodyID(index: Int32(i), generation: world.bodies.generation[i])
    }
    /// The body origin (item center), points.
    @inlinable public func origin(at k: Int) -> Vec2 {
        let i = Int(world.bodies.bodyIndex[k])
        return world.bodies.position[k] - world.bodies.rotation[k].rotate(world.bodies.localCenter[i])
    }
    @inlinable public func rotation(at k: Int) -> Rot { world.bodies.rotation[k] }
    @inlinable public func velocity(at k: Int) -> Vec2 { world.bodies.velocity[k] }
    @inlinable public func angularVelocity(at k: Int) -> Float { world.bodies.angularVelocity[k] }
    @inlinable public func userTag(at k: Int) -> Int32 { world.bodies.userTag[Int(world.bodies.bodyIndex[k])] }
    @inlinable public func isStatic(at k: Int) -> Bool { world.bodies.type[Int(world.bodies.bodyIndex[k])] == .static }
}

extension World {
    /// Calls `body` with a view of all body states (see `BodyStates`).
    @inlinable public func withBodyStates<R>(_ body: (BodyStates) throws -> R) rethrows -> R {
        try body(BodyStates(world: self))
    }

    /// Contacts currently touching, as (body A, body B, first point) triples (for drawing and checks).
    public func touchingContacts() -> [(BodyID, BodyID, Vec2)] {
        contacts.filter { $0.touching }.map { c in
            (BodyID(index: c.bodyA, generation: bodies.generation[Int(c.bodyA)]),
             BodyID(index: c.bodyB, generation: bodies.generation[Int(c.bodyB)]), c.manifold.points.0.point)
        }
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
        pairs.map { (Int32(truncatingIfNeeded: $0 >> 32), Int32(truncatingIfNeeded: $0 & 0xFFFF_FFFF)) }
    }
}
