/// How deep the awake stacks are: for each awake body, the fewest touching contacts between it and a body that does
/// not move (static, or asleep), counted through awake bodies. A box on the ground is 1 deep, the top of a 100-row
/// pyramid 100; a body that reaches no such body (in flight, or a clump in the air) has no depth.
///
/// The solver passes support up a stack one contact per iteration, and its soft contacts give a little under each
/// item's load: how many substeps a stack needs to stand, and how stiff its contacts must be to hold its top up,
/// grow with its depth.
struct StackDepthScratch {
    /// Per awake slot: the first of its neighbours in `neighbours` (count + 1 entries), its depth, and the
    /// breadth-first queue.
    var start = Column<Int32>()
    var neighbours = Column<Int32>()
    var depth = Column<Int32>()
    var queue = Column<Int32>()

    func free() {
        start.free(count: 0); neighbours.free(count: 0); depth.free(count: 0); queue.free(count: 0)
    }
    mutating func release() {
        start.release(); neighbours.release(); depth.release(); queue.release()
    }
}

extension World {
    /// The depth of the deepest awake stack in this step's contacts (0 when no awake body touches one that does not
    /// move), and the largest acceleration (points/s², gravity and fields) on a body of the stacks. Breadth first
    /// from the awake bodies that touch a static or sleeping one, over the touching contacts between awake bodies;
    /// in slot and contact order, so the same contacts give the same depth. Nothing is searched while the contacts
    /// are too few to make a stack deeper than `deeperThan`.
    ///
    /// With `restingWithin` (seconds) a body counts only while it is slower than its acceleration gives in that time
    /// (a stack stands; a pile being landed on, whose chains of touching items run deeper than it for a moment, does
    /// not).
    func deepestStack(deeperThan minimum: Int, restingWithin time: Float?) -> (depth: Int, gravity: Float) {
        let n = bodies.awakeCount
        let contactCount = contactStore.contacts.count
        guard n > minimum && contactCount > minimum else { return (0, 0) }
        stackDepth.start.reserve(n + 1, count: 0)
        stackDepth.depth.reserve(n, count: 0)
        stackDepth.queue.reserve(n, count: 0)
        stackDepth.neighbours.reserve(2 * contactCount, count: 0)
        let start = stackDepth.start.base, depth = stackDepth.depth.base
        let queue = stackDepth.queue.base, next = stackDepth.neighbours.base
        let grav = bodies.gravity.base, vel = bodies.velocity.base
        let time2 = time.map { $0 * $0 } ?? 0, filtered = time != nil
        /// Whether awake slot s is moving faster than a body resting in the stack.
        @inline(__always) func moving(_ s: Int) -> Bool { filtered && lengthSquared(vel[s]) > time2 * lengthSquared(grav[s]) }
        return contactStore.contacts.withUnsafeBufferPointer { contacts in
            bodies.slot.withUnsafeBufferPointer { slot in
                let unreached = Int32.max
                for s in 0..<n { start[s] = 0; depth[s] = unreached }
                start[n] = 0
                var tail = 0
                // Count each awake body's awake neighbours; seed the bodies that touch one that does not move.
                for c in contacts where c.touching {
                    let sa = Int(slot[Int(c.bodyA)]), sb = Int(slot[Int(c.bodyB)])
                    let awakeA = sa < n, awakeB = sb < n
                    if (awakeA && moving(sa)) || (awakeB && moving(sb)) { continue }
                    if awakeA && awakeB {
                        start[sa] += 1; start[sb] += 1
                    } else if awakeA || awakeB {
                        let s = awakeA ? sa : sb
                        if depth[s] == unreached { depth[s] = 1; queue[tail] = Int32(s); tail += 1 }
                    }
                }
                guard tail > 0 else { return (0, 0) }
                // Prefix sums: start[s] becomes the end of s's neighbours, then moves back to their first as they
                // are written.
                var total: Int32 = 0
                for s in 0..<n { total += start[s]; start[s] = total }
                start[n] = total
                for c in contacts where c.touching {
                    let sa = Int(slot[Int(c.bodyA)]), sb = Int(slot[Int(c.bodyB)])
                    guard sa < n && sb < n && !moving(sa) && !moving(sb) else { continue }
                    start[sa] -= 1; next[Int(start[sa])] = Int32(sb)
                    start[sb] -= 1; next[Int(start[sb])] = Int32(sa)
                }
                var head = 0
                while head < tail {
                    let s = Int(queue[head]); head += 1
                    let d = depth[s] + 1
                    for k in Int(start[s])..<Int(start[s + 1]) {
                        let t = Int(next[k])
                        if depth[t] == unreached { depth[t] = d; queue[tail] = Int32(t); tail += 1 }
                    }
                }
                var gravity: Float = 0
                for k in 0..<tail { gravity = Swift.max(gravity, lengthSquared(grav[Int(queue[k])])) }
                return (Int(depth[Int(queue[tail - 1])]), gravity.squareRoot())
            }
        }
    }
}

/// The deepest awake stack in the last search's contacts and the largest acceleration on its bodies (`deepestStack`).
struct TallStackState {
    var depth = 0
    var gravity: Float = 0
}

/// What the step's contacts are solved with: the world's settings, or those a tall stack needs (`tallStack`).
struct ContactStiffness: Equatable {
    var substeps: Int
    var hertz: Float
    var dampingRatio: Float
}

extension World {
    /// The substeps and contact stiffness this step solves with (`WorldSettings.tallStackDepth`): the caller's and
    /// the settings' while no awake stack is deeper than `tallStackDepth`; for a deeper one, of depth D under an
    /// acceleration g, contacts stiff enough that the stack sinks about `tallStackSink` under its weight, and
    /// the substeps that keep them at an eighth of the substep rate, up to `tallStackMaximumSubsteps`.
    ///
    /// A contact carrying the weight of k items (each of mass m, on one of the same) compresses until its spring,
    /// of stiffness (m/2)·ω², holds k·m·g: by 2k·g/ω². A pyramid's row k from the top carries about k/2 items on
    /// each contact, so the stack sinks about D²·g/(2ω²) in all, and ω = D·√(g / (2·sink)) holds it to the sink
    /// (a single column sinks twice that). A contact that stiff needs the substeps: the soft step rings and stacks
    /// fall past a quarter of the substep rate, and at an eighth a deep stack comes to rest soonest, at damping
    /// ratio 10 (pyramid_100: 24 substeps at 180 Hz asleep at step 56; at 12 substeps and 180 Hz it never rests).
    func contactStiffness(dt: Float, substeps: Int) -> ContactStiffness {
        let base = ContactStiffness(substeps: substeps, hertz: settings.contactHertz, dampingRatio: settings.contactDampingRatio)
        let depth = tallStack.depth
        guard tallStackTakenUp else { return base }
        let omega = Float(depth) * (tallStack.gravity / (2 * settings.tallStackSink)).squareRoot()
        let needed = omega / (2 * .pi)
        let wanted = (8 * needed * dt).rounded(.up)
        let most = Swift.max(settings.tallStackMaximumSubsteps, substeps)
        let stackSubsteps = wanted < Float(most) ? Swift.max(substeps, Int(wanted)) : most
        // At the most substeps, the stack's contacts at most at an eighth of their rate; never softer than the
        // settings' (a world set up for its tall stack, as the pyramid_100 profile is, keeps its own).
        let held = Swift.min(needed, Float(stackSubsteps) / (8 * dt))
        return ContactStiffness(substeps: stackSubsteps, hertz: Swift.max(held, settings.contactHertz),
                                dampingRatio: Swift.max(settings.contactDampingRatio, 10))
    }
}

extension World {
    static let tallStackSearchInterval = 8

    /// Whether the last search found an awake stack deeper than `WorldSettings.tallStackDepth`, which the steps
    /// then solve as a tall stack (`contactStiffness`).
    var tallStackTakenUp: Bool {
        settings.tallStackDepth > 0 && tallStack.depth > settings.tallStackDepth && tallStack.gravity > 0
    }

    /// After the narrowphase: the deepest awake stack, for the next steps' `contactStiffness`. A stack is taken up
    /// while it rests (its bodies slower than three steps of their acceleration give) and kept while it stays
    /// deeper than `tallStackDepth`, moving or not, so a stack shaken while it is solved as one does not drop back to
    /// the pile's settings. The search reads every contact (run every step, 4% of a pile's), so it runs every
    /// `tallStackSearchInterval` steps, from the first: a stack built at once is taken up on the second step, one
    /// built item by item within that many steps of passing the depth, and one that falls or is knocked down is let
    /// go as soon (at once when too few bodies are awake to make it).
    func measureTallStack(dt: Float) {
        if bodies.awakeCount <= settings.tallStackDepth { tallStack.depth = 0; tallStack.gravity = 0; return }
        if stepCount % World.tallStackSearchInterval != 0 { return }
        let found = deepestStack(deeperThan: settings.tallStackDepth, restingWithin: tallStackTakenUp ? nil : 3 * dt)
        tallStack.depth = found.depth
        tallStack.gravity = found.gravity
    }
}
