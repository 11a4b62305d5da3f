import DynamicsSIMD
// Islands and sleeping.
//
// Each step, the awake bodies are grouped into islands with a union-find over touching contacts (with points)
// and joints between two awake dynamic bodies; static bodies do not join islands. Union by smaller slot keeps the
// result independent of anything but the input order. An island whose every body has stayed below the sleep
// thresholds for `timeToSleep` moves out of the awake range with its contacts (see `BodyStore`).

extension World {
    /// The rest test of every awake body (the free-motion pass does the same, four lanes at a time). Returns
    /// whether some body has rested long enough to sleep.
    func restTest(dt: Float) -> Bool {
        // How far each body moved over the step where the solve recorded where it started (and no slot moved since),
        // else its velocity alone (nothing constrained it, so it moved by that).
        let moved = islandStore.stepStartRecorded && islandStore.stepStartSlots == bodies.slotVersion
            && islandStore.stepStartPosition.count >= bodies.awakeCount
        islandStore.stepStartRecorded = false
        return islandStore.stepStartPosition.withUnsafeBufferPointer { startPosition in
            islandStore.stepStartRotation.withUnsafeBufferPointer { startRotation in
                bodies.withColumns { columns in
                    restTest(dt: dt, columns: columns, start: moved ? (startPosition.baseAddress!, startRotation.baseAddress!) : nil)
                }
            }
        }
    }

    /// The rest test, judging motion by the step's move from `start` (positions, rotations by slot) when given.
    func restTest(dt: Float, columns: BodyColumns, start: (UnsafePointer<Vec2>, UnsafePointer<Rotation>)?) -> Bool {
        let n = bodies.awakeCount
        let vel = columns.velocity, angVel = columns.angularVelocity, sleepTime = columns.sleepTime
        let invDt = 1 / dt, quarterTurnRate = 0.5 * Float.pi * invDt
        let ext = columns.extent, pos = columns.position, rot = columns.rotation
        let anchor = columns.restAnchor, anchorRot = columns.restAnchorRotation
        let lin = settings.sleepLinearVelocity, ang = settings.sleepAngularVelocity
        let window = settings.timeToSleep
        let maxDrift = lin * window                 // 0.5 pt
        let maxTurn = ang * window                  // 1 degree
        let halfTurn2 = 0.5 * maxTurn * maxTurn, halfDrift2 = 0.5 * maxDrift * maxDrift
        let invWindow = 1 / window
        // Each body writes its own slots only: blocks of them run on the workers, the same bits as one pass.
        return anyInBlocks(count: n, minimumBlock: 2048, parallelMinimum: workers.parallelRestTest) { range in
            var ready = false
            for s in range {
                // At rest: on average slower than about 1 pt/s and 2 degrees/s since the rest window began. A body
                // that vibrates in place (a corner settling in a pile) rests; one drifting or swinging does not. A
                // speed over 4x the thresholds now always restarts the window. Rotation that moves no point of the
                // body more than the linear threshold also counts as rest, so tiny items are not held awake by turns
                // nobody can see.
                //
                // "Now" is by both the velocity the body ends the step with and the step's move: an item jammed
                // between its neighbors can end every step with a velocity it never moves by (the next step's solve
                // takes it back before the move), and one rattling in place moves back and forth within the step
                // while ending each with almost none. Either rests; a body that is moving shows it in both.
                let e = ext[s]
                var fast = lengthSquared(vel[s]) > 16 * lin * lin
                if fast, let (p0, _) = start { fast = lengthSquared(invDt * (pos[s] - p0[s])) > 16 * lin * lin }
                if !fast {
                    let w = abs(angVel[s])
                    fast = w > 4 * ang && w * e > 4 * lin
                    // The turn by its sine, unless the body spins at a quarter turn a step or more, where the sine no
                    // longer tells.
                    if fast && w < quarterTurnRate, let (_, q0) = start {
                        let q = rot[s], a = q0[s]
                        let turn = invDt * abs(a.c * q.s - a.s * q.c)
                        fast = turn > 4 * ang && turn * e > 4 * lin
                    }
                }
                if fast {
                    // Too fast to be resting: the clock reads −1, "not started, anchor stale", so a moving body costs
                    // one store; the first slow step sets the anchor.
                    sleepTime[s] = -1
                    continue
                }
                let before = sleepTime[s]
                let drift = lengthSquared(pos[s] - anchor[s]) > maxDrift * maxDrift
                // Turned more than T = max(maxTurn, maxDrift / extent) since the anchor: 1 − cos Δθ > T²/2, which
                // avoids an atan2 per body (the two agree to 2% for T ≤ 0.5 rad); written without a division.
                let a = anchorRot[s], b = rot[s]
                let oneMinusCos = 1 - (a.c * b.c + a.s * b.s)
                let turnedTooFar = oneMinusCos > halfTurn2 && (e <= 0 || oneMinusCos * (e * e) > halfDrift2)
                if before < 0 || drift || turnedTooFar {
                    sleepTime[s] = 0
                    anchor[s] = pos[s]
                    anchorRot[s] = rot[s]
                } else {
                    // The average is taken over each half second in turn: after a full window at rest the anchor
                    // moves up, so a body waiting for the rest of its island is judged on its recent motion, not on
                    // how far it crept since it first stopped.
                    sleepTime[s] = before + dt
                    if restWindowIndex(sleepTime[s] * invWindow) != restWindowIndex(before * invWindow) {
                        anchor[s] = pos[s]
                        anchorRot[s] = rot[s]
                    }
                    if sleepTime[s] >= window { ready = true }
                }
            }
            return ready
        }
    }

    /// Groups the awake slots `0 ..< n` by their island in `unionParent` (each slot's entry its island's root),
    /// keeping the islands whose root `keep` accepts: per island its root and its range in `members`, which gets the
    /// slots (counting sort; islands in the order of their first slot, each one's slots in order). Uses
    /// `IslandStore.rootIndex`, −1 for every slot between calls.
    @inline(__always)
    func groupSlotsByIsland(_ n: Int, keep: (Int) -> Bool, into groups: inout [(root: Int32, start: Int, count: Int)],
                            members: inout [Int32]) {
        if islandStore.rootIndex.count < n { islandStore.rootIndex.append(contentsOf: repeatElement(-1, count: n - islandStore.rootIndex.count)) }
        groups.removeAll(keepingCapacity: true)
        members.removeAll(keepingCapacity: true)
        for s in 0..<n {
            let r = Int(islandStore.unionParent[s])
            guard keep(r) else { continue }
            if islandStore.rootIndex[r] < 0 { islandStore.rootIndex[r] = Int32(groups.count); groups.append((Int32(r), 0, 0)) }
            groups[Int(islandStore.rootIndex[r])].count += 1
        }
        guard !groups.isEmpty else { return }
        var offset = 0
        for k in 0..<groups.count { groups[k].start = offset; offset += groups[k].count; groups[k].count = 0 }
        members.append(contentsOf: repeatElement(0, count: offset))
        for s in 0..<n {
            let k = islandStore.rootIndex[Int(islandStore.unionParent[s])]
            guard k >= 0 else { continue }
            members[groups[Int(k)].start + groups[Int(k)].count] = Int32(s)
            groups[Int(k)].count += 1
        }
        // Leave the root index all −1 for the next call.
        for g in groups { islandStore.rootIndex[Int(g.root)] = -1 }
    }

    /// Groups the `n` awake slots by island (`IslandStore.jointGroupSlots`) for the islands the joints alone make,
    /// unless they are grouped already for the islands as they stand (`IslandStore.jointIslands`).
    func groupJointIslands(_ n: Int) {
        let version = (islandStore.jointIslands.slots, islandStore.jointIslands.joints, islandStore.jointIslands.count)
        if let made = islandStore.jointGroupsOf, made == version { return }
        var groups = islandStore.jointGroups, slots = islandStore.jointGroupSlots
        islandStore.jointGroups = []; islandStore.jointGroupSlots = []
        groupSlotsByIsland(n, keep: { _ in true }, into: &groups, members: &slots)
        islandStore.jointGroups = groups; islandStore.jointGroupSlots = slots
        islandStore.jointGroupsOf = version
    }

    /// Whether some island of the grouped joint islands (`groupJointIslands`) has every member at rest for `window`
    /// seconds, with `IslandStore.rootReady` set for each island's root: each island's members are read until the
    /// first still moving.
    func jointIslandsReady(sleepTime: UnsafeMutablePointer<Float>, window: Float) -> Bool {
        islandStore.jointGroupSlots.withUnsafeBufferPointer { slots in
            islandStore.jointGroups.withUnsafeBufferPointer { groups in
                islandStore.rootReady.withUnsafeMutableBufferPointer { ready -> Bool in
                    var any = false
                    for g in groups {
                        var all = true
                        for k in g.start..<(g.start + g.count) where sleepTime[Int(slots[k])] < window { all = false; break }
                        ready[Int(g.root)] = all
                        any = any || all
                    }
                    return any
                }
            }
        }
    }

    /// Puts to sleep every island whose bodies have all rested for `timeToSleep`.
    func putRestingIslandsToSleep() {
        bodies.withColumns { columns in
            let n = bodies.awakeCount
            let sleepTime = columns.sleepTime

            // Union-find over awake slots, unless the joints alone join them and nothing changed since the last one.
            let jointsOnly = contactStore.contacts.isEmpty
            let unchanged = jointsOnly && islandStore.jointIslands == (true, bodies.slotVersion, jointStore.awakeVersion, n)
                && islandStore.unionParent.count >= n
            islandStore.jointIslands = (jointsOnly, bodies.slotVersion, jointStore.awakeVersion, n)
            islandStore.reserveSlots(n)
            if !unchanged { islandStore.unionParent.withUnsafeMutableBufferPointer { parent in
                for s in 0..<n { parent[s] = Int32(s) }
                let table = parent.baseAddress!
                let contactCount = contactStore.contacts.count
                if let executor = executor(work: contactCount, minimum: workers.parallelUnion) {
                    // On the workers: blocks of contacts joined at once (DynamicsUnion.h), then the joints here, then
                    // blocks of slots pointed at their roots: each root the smallest slot of its group, as below.
                    let blocks = Swift.max(2, Swift.min(WorkerState.maximumBlocks / 4, contactCount / 4096))
                    contactStore.contacts.withUnsafeBufferPointer { cs in
                        bodies.slot.withUnsafeBufferPointer { slot in
                            runParallel(executor, blocks) { k in
                                for c in World.block(k, of: blocks, count: contactCount) where cs[c].manifold.pointCount > 0 {
                                    let sa = slot[Int(cs[c].bodyA)], sb = slot[Int(cs[c].bodyB)]
                                    if Int(sa) < n && Int(sb) < n { dk_union_join(table, sa, sb) }
                                }
                            }
                        }
                    }
                    for j in jointStore.awake {
                        let jr = jointStore.records[Int(j)]
                        guard jr.bodyA >= 0, jr.bodyB >= 0 else { continue }
                        let sa = bodies.slot[Int(jr.bodyA)], sb = bodies.slot[Int(jr.bodyB)]
                        if Int(sa) < n && Int(sb) < n { dk_union_join(table, sa, sb) }
                    }
                    runParallel(executor, blocks) { k in
                        let range = World.block(k, of: blocks, count: n)
                        dk_union_flatten(table, range.lowerBound, range.upperBound)
                    }
                    return
                }
                @inline(__always) func union(_ a: Int32, _ b: Int32) { UnionFind.join(table, a, b) }
                for c in contactStore.contacts where c.manifold.pointCount > 0 {
                    let sa = bodies.slot[Int(c.bodyA)], sb = bodies.slot[Int(c.bodyB)]
                    if Int(sa) < n && Int(sb) < n { union(sa, sb) }
                }
                for j in jointStore.awake {
                    let jr = jointStore.records[Int(j)]
                    guard jr.bodyA >= 0, jr.bodyB >= 0 else { continue }
                    let sa = bodies.slot[Int(jr.bodyA)], sb = bodies.slot[Int(jr.bodyB)]
                    if Int(sa) < n && Int(sb) < n { union(sa, sb) }
                }
                for s in 0..<n { _ = UnionFind.root(table, Int32(s)) }
            } }
            // Per root: whether all its members are ready. Islands the joints alone make, standing since the last
            // step, are asked island by island, each up to its first member still moving (`jointIslandsReady`).
            // Others: a member not ready clears its root's flag: stores only, no chain of loads and stores through
            // one root's entry. Over local buffers: most steps of a moving scene find no island ready and stop after
            // these two passes.
            let window = settings.timeToSleep
            if unchanged { groupJointIslands(n) }
            let anyReady = unchanged
                ? jointIslandsReady(sleepTime: sleepTime, window: window)
                : islandStore.unionParent.withUnsafeBufferPointer { parent in
                    islandStore.rootReady.withUnsafeMutableBufferPointer { ready -> Bool in
                        for s in 0..<n { ready[s] = true }
                        for s in 0..<n where sleepTime[s] < window { ready[Int(parent[s])] = false }
                        for s in 0..<n where parent[s] == Int32(s) && ready[s] { return true }
                        return false
                    }
                }
            guard anyReady else { return }
            // Collect the members of the islands ready to sleep, grouped by root (counting sort; roots in slot order).
            // The three lists are kept between calls: a pile in which one body rests while its neighbor still moves
            // comes here every step.
            var roots = islandStore.roots, members = islandStore.members
            islandStore.roots = []; islandStore.members = []
            let rootReady = islandStore.rootReady
            groupSlotsByIsland(n, keep: { rootReady[$0] }, into: &roots, members: &members)
            // Their bodies, before any is put to sleep (which moves slots).
            for k in members.indices { members[k] = bodies.bodyIndex[Int(members[k])] }
            islandStore.roots = roots; islandStore.members = members
            guard !roots.isEmpty else { return }
            for root in roots { // in slot order of their first member: deterministic
                let islandBodies = Array(members[root.start..<(root.start + root.count)])
                let k: Int32
                if let f = islandStore.freeIndices.popLast() { k = f } else { k = Int32(islandStore.sleeping.count); islandStore.sleeping.append(SleepingIsland()) }
                islandStore.sleeping[Int(k)] = SleepingIsland(bodies: islandBodies, contacts: [], inUse: true)
                for b in islandBodies {
                    let i = Int(b)
                    bodies.sleepingIsland[i] = k
                    let s = Int(bodies.slot[i])
                    bodies.velocity[s] = .zero
                    bodies.angularVelocity[s] = 0
                    bodies.makeNotAwake(slot: s)
                    bin(id: i)
                    bodiesFallenAsleep.append(BodyID(index: b, generation: bodies.generation[i]))
                }
            }
            // Move the islands' contacts out of the active list.
            var kept = 0
            for c in 0..<contactStore.contacts.count {
                let contact = contactStore.contacts[c]
                let ka = bodies.sleepingIsland[Int(contact.bodyA)], kb = bodies.sleepingIsland[Int(contact.bodyB)]
                let k = ka >= 0 ? ka : kb
                if k >= 0 {
                    if contact.manifold.pointCount > 0 { islandStore.sleeping[Int(k)].contacts.append(contact) }
                    continue
                }
                contactStore.contacts[kept] = contact; kept += 1
            }
            contactStore.contacts.removeLast(contactStore.contacts.count - kept)
            jointStore.awakeDirty = true
        }
    }
}
