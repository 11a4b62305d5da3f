import DynamicsSIMD

extension World {
    /// A box covering this many cells or more is "oversize": it is tested against every candidate instead of
    /// being binned, so one large item among many small ones does not flood the grid.
    static var oversizeCells: Int { 64 }

    /// The key of the cell holding the lower corner of two overlapping boxes' overlap: the one cell of the many
    /// they may share from which their pair is listed.
    @inline(__always) static func cornerCellKey(_ a: AABB, _ b: AABB, inv: Float) -> UInt32 {
        let corner = Vec2(Swift.max(a.lower.x, b.lower.x), Swift.max(a.lower.y, b.lower.y))
        let c = dk_cell_coords(SIMD4(lowHalf: corner, highHalf: corner), inv)
        return cellKey(c.x, c.y)
    }

    @inline(__always) func cellCoord(_ box: AABB, inv: Float) -> GridCoord {
        let c = dk_cell_coords(SIMD4(lowHalf: box.lower, highHalf: box.upper), inv)
        return GridCoord(x0: c.x, y0: c.y, x1: c.z, y1: c.w)
    }

    /// The margin by which a fat box exceeds the swept boxes it was made from, as a fraction of the cell size.
    static var fatMarginFraction: Float { 1.0 / 32 }
    /// How many steps in a row a scene must have been calm (nearly every body slower than the fat margin allows)
    /// before a full search keeps its candidates for the steps after.
    static var calmStepsToKeep: Int { 2 }

    /// Stage 3a: the pairs the narrowphase visits. Fills `pairs` with sorted, unique (lower id << 32 | higher id)
    /// keys, and `pairReach` with how far each can close this step: two awake bodies whose boxes swept in their
    /// common frame overlap and that can reach each other (`World.reach`), and an awake body whose box swept in
    /// the world overlaps a static or sleeping body's box and can reach it.
    ///
    /// While bodies move, every step searches the grid of swept boxes (`exactSearch`). Once a scene is calm (a
    /// settling pile, items at rest), the broadphase keeps candidates between steps instead, as Box2D's enlarged
    /// boxes do for its tree: each awake body gets a fat box, its two swept boxes grown by a margin, and a full
    /// search lists every pair whose fat boxes overlap (`fullSearch`). While a body's swept boxes stay inside its
    /// fat box it needs no search; a body that leaves it gets a fresh one and is searched for against the cells of
    /// the full search (whose other bodies still have the fat boxes placed there) and the bodies searched for
    /// since. The pairs are then filtered from the candidates. A full search runs again when many bodies have moved
    /// since, or when the world changed otherwise (`FatGrid.valid`). Either way the pairs are those of a search of
    /// the swept boxes, to the bit; a settling pile costs a pass over its candidates.
    ///
    /// Items falling together (rain before it lands, a formation thrown as one) are not calm in the world but are in
    /// their common frame: there the fat boxes are kept in that frame (`FatGrid.moving`), each body's box compared
    /// with its fat box once moved back by how far the awake bodies' mean position has gone since the full search.
    /// Moving every box by one vector keeps every overlap, so the candidates still hold every pair; the pairs with
    /// static and sleeping bodies, which do not move with the frame, are searched every step instead.
    func updatePairs(dt: Float) {
        if broadphase.cellSize == 0 { rebuildStaticGrid() }
        // Nothing collides (a swarm driven by fields, a joint grid): no pairs, no work per body, and none of the lists
        // taken out and put back.
        guard collisionFilter.classActive.contains(true) else {
            broadphase.pairs.removeAll(keepingCapacity: true)
            broadphase.pairReach.removeAll(keepingCapacity: true)
            broadphase.candidates.removeAll(keepingCapacity: true)
            broadphase.freshCandidates.removeAll(keepingCapacity: true)
            broadphase.fatGrid.valid = false
            contactSolver.borrowedByBroadphase = (0, 0)
            return
        }
        bodies.withColumns { columns in
            var pairs = self.broadphase.pairs; self.broadphase.pairs = []
            var reaches = self.broadphase.pairReach; self.broadphase.pairReach = []
            var candidates = self.broadphase.candidates; self.broadphase.candidates = []
            var fresh = self.broadphase.freshCandidates; self.broadphase.freshCandidates = []
            var grid = self.broadphase.fatGrid; self.broadphase.fatGrid = FatGrid()
            pairs.removeAll(keepingCapacity: true)
            reaches.removeAll(keepingCapacity: true)
            fresh.removeAll(keepingCapacity: true)
            defer {
                self.broadphase.pairs = pairs; self.broadphase.pairReach = reaches
                self.broadphase.candidates = candidates; self.broadphase.freshCandidates = fresh; self.broadphase.fatGrid = grid
            }
            let n = bodies.awakeCount
            contactSolver.borrowedByBroadphase = (0, 0)
            let frame = sweptFrame(dt: dt, n: n, columns: columns, grid: &grid)
            // Whether the last full search still holds, and which bodies left their fat boxes since.
            var full = !(broadphase.incremental && grid.valid && grid.slotVersion == bodies.slotVersion
                         && grid.version == broadphase.pairCacheVersion && grid.awakeCount == n && grid.count == bodies.count
                         && grid.cellSize == broadphase.cellSize)
            if !full { full = markMovers(frame, grid: &grid, fresh: &fresh) }
            if full && !searchInFull(frame, grid: &grid, candidates: &candidates) {
                exactPairs(frame, pairs: &pairs, reaches: &reaches)
                return
            }
            if !fresh.isEmpty { searchMovers(frame, grid: &grid, candidates: &candidates, fresh: &fresh) }
            filterCandidates(frame, candidates: &candidates, pairs: &pairs, reaches: &reaches)
            if grid.moving { mergeStaticPairs(frame, list: &fresh, pairs: &pairs, reaches: &reaches, columns: columns) }
        }
    }

    /// What the phases of one broadphase pass share: the awake bodies' swept boxes and their unswept ones, the sweep,
    /// the fat boxes' margin and the collision filter.
    struct SweptFrame {
        /// Awake bodies (slots 0 ..< n).
        let n: Int
        /// By slot: the awake bodies' boxes swept in the frame of `sweep.shift` (empty for a body that collides with
        /// nothing), then the static and sleeping bodies' binned boxes.
        let boxes: UnsafeBufferPointer<AABB>
        /// The awake bodies' unswept boxes, by slot (borrowed memory, valid for the pass).
        let tight: UnsafeMutablePointer<AABB>
        let sweep: SweepTerms
        let pos: UnsafeMutablePointer<Vec2>
        let bodyIndex: UnsafeMutablePointer<Int32>
        let inv: Float
        /// The fat boxes' margin, and the speed (squared, per step) under which a body is slow enough to get it.
        let fatMargin: Float, slowSpeed2: Float
        /// At most this many bodies may leave their fat boxes in a step for the kept candidates to be worth keeping.
        let movedLimit: Int
        /// The awake bodies' mean position, when a grid kept in their common frame needs it (else zero).
        let center: SIMD2<Double>
        /// The square of the displacement against the common frame (per step) under which a body is slow enough to get
        /// a margin on a moving grid's fat box.
        let slowShift2: Float
        let slotOf: [Int32], classOf: [UInt16], flags: [UInt8], matrix: [Bool], classes: Int
        /// The static grid as the pass found it: whether any body is binned in its cells, and its oversize bodies.
        let staticCells: Bool, oversizeStatics: [Int32]

        /// Whether slot s (awake) collides with anything: its swept box is not empty.
        @inline(__always) func isActive(_ s: Int) -> Bool { boxes[s].lower.x <= boxes[s].upper.x }
        /// Slot s's box swept in the world, for meeting static and sleeping bodies (which do not move with the frame).
        @inline(__always) func worldBox(_ s: Int) -> AABB { sweep.swept(tight[s], slot: s, shift: .zero) }
        /// The reach of the pair of slots sa and sb (sa of the lower id): two awake bodies are also tested by their
        /// unswept boxes, a body and a static or sleeping one by their circles only.
        @inline(__always) func reach(_ sa: Int, _ sb: Int) -> (apart: Bool, spin: Float, speculativeReach: Float) {
            World.reach(sa, sb, dt: sweep.dt, margin: sweep.margin, pos: pos, vel: sweep.vel, angVel: sweep.angVel,
                        ext: sweep.ext, grav: sweep.grav, tight: sa < n && sb < n ? UnsafePointer(tight) : nil)
        }
        /// Slot s's fat box: its two swept boxes, grown by the margin if the body is slow (a fast one leaves any
        /// margin at once, and its larger box would only add candidates).
        @inline(__always) func fatBox(_ s: Int) -> AABB {
            let m: Float = lengthSquared(sweep.vel[s]) < slowSpeed2 ? fatMargin : 0
            let box = boxes[s].union(worldBox(s))
            return AABB(lower: box.lower - m, upper: box.upper + m)
        }
        /// Whether slot s's swept boxes left its fat box `f`.
        @inline(__always) func left(_ s: Int, _ f: AABB) -> Bool {
            let m = boxes[s], w = worldBox(s)
            return !(m.lower.x >= f.lower.x && m.lower.y >= f.lower.y && m.upper.x <= f.upper.x && m.upper.y <= f.upper.y
                     && w.lower.x >= f.lower.x && w.lower.y >= f.lower.y && w.upper.x <= f.upper.x && w.upper.y <= f.upper.y)
        }
        /// How far the awake bodies' mean position has gone since a moving grid's full search at `anchor`.
        @inline(__always) func offset(from anchor: SIMD2<Double>) -> Vec2 {
            let d = center - anchor
            return Vec2(Float(d.x), Float(d.y))
        }
        /// Slot s's box swept in the common frame, moved back by `offset` (zero: the box itself, to the bit).
        @inline(__always) func frameBox(_ s: Int, _ offset: Vec2) -> AABB {
            AABB(lower: boxes[s].lower - offset, upper: boxes[s].upper - offset)
        }
        /// Slot s's fat box on a moving grid: its box in the common frame moved back by `offset`, grown by the margin
        /// if the body moves slowly against the frame.
        @inline(__always) func movingFatBox(_ s: Int, _ offset: Vec2) -> AABB {
            let d = (sweep.dt * sweep.vel[s] + (sweep.dt * sweep.dt) * sweep.grav[s]) - sweep.shift
            let m: Float = lengthSquared(d) < slowShift2 ? fatMargin : 0
            let box = frameBox(s, offset)
            return AABB(lower: box.lower - m, upper: box.upper + m)
        }
        /// Whether slot s's box in the common frame, moved back by `offset`, left its fat box `f` on a moving grid.
        @inline(__always) func leftMoving(_ s: Int, _ f: AABB, _ offset: Vec2) -> Bool {
            let m = frameBox(s, offset)
            return !(m.lower.x >= f.lower.x && m.lower.y >= f.lower.y && m.upper.x <= f.upper.x && m.upper.y <= f.upper.y)
        }
    }

    /// The pass's first phase: the awake bodies' unswept and swept boxes, written into borrowed memory and the box
    /// column, and whether the scene is calm (few fast bodies), counted into `grid.calmSteps`, and calm in the awake
    /// bodies' common frame (few moving against it), counted into `grid.calmFrameSteps`.
    ///
    /// Swept boxes: the tight box grown by how far the body can travel this step, in a frame that moves by the
    /// awake bodies' mean displacement `shift`. Two bodies can meet only by their displacement relative to each
    /// other, which is the same in any frame moving uniformly; items falling together thus stay out of each other's
    /// cells, as if at rest. Static and sleeping bodies do not move with that frame: the awake bodies meet them with
    /// their boxes swept in the world (`SweptFrame.worldBox`).
    @inline(__always)
    func sweptFrame(dt: Float, n: Int, columns: BodyColumns, grid: inout FatGrid) -> SweptFrame {
        // The awake bodies' unswept boxes, by slot, live in the buffer of this step's scalar contact constraints,
        // which is rebuilt after the narrowphase: the two passes' temporaries share memory (`StepTable.borrowBytes`).
        let tight = contactSolver.scalar.borrowBytes(n * MemoryLayout<AABB>.stride).bindMemory(to: AABB.self, capacity: n)
        contactSolver.borrowedByBroadphase.constraints = World.elements(n * MemoryLayout<AABB>.stride, of: ContactConstraint.self)
        let vel = columns.velocity, grav = columns.gravity
        let dt2 = dt * dt
        var shift = Vec2.zero
        for s in 0..<n { shift += dt * vel[s] + dt2 * grav[s] }
        shift /= Float(Swift.max(n, 1))
        if !(shift.x.isFinite && shift.y.isFinite) { shift = .zero }
        let sweep = SweepTerms(dt: dt, margin: settings.speculativeDistance, shift: shift, vel: vel,
                               angVel: columns.angularVelocity, ext: columns.extent, grav: grav)
        // Calm: at most `movedLimit` bodies are fast, that is, would leave a fat box at once.
        let fatMargin = broadphase.cellSize * World.fatMarginFraction
        let slowSpeed2 = 0.25 * fatMargin * fatMargin / dt2
        let movedLimit = n / 8 + 16
        let slowShift2 = 0.25 * fatMargin * fatMargin
        let (fast, fastInFrame) = sweepBoxes(n: n, tight: tight, sweep: sweep, slowSpeed2: slowSpeed2, slowShift2: slowShift2)
        grid.calmSteps = fast <= movedLimit ? grid.calmSteps + 1 : 0
        grid.calmFrameSteps = fastInFrame <= movedLimit ? grid.calmFrameSteps + 1 : 0
        // The mean position, summed in double precision (its rounding must stay far below the fat margin however
        // far the items have fallen), when a moving grid is kept or may be made this step.
        var center = SIMD2<Double>.zero
        if n > 0 && ((grid.valid && grid.moving) || grid.calmFrameSteps > World.calmStepsToKeep) {
            let pos = columns.position
            for s in 0..<n { center += SIMD2<Double>(Double(pos[s].x), Double(pos[s].y)) }
            center /= Double(n)
        }
        // The awake slots' swept boxes are written over the first n of the box column; the static and sleeping
        // bodies' binned boxes follow, at their slots.
        return SweptFrame(n: n, boxes: UnsafeBufferPointer(start: columns.box, count: bodies.count), tight: tight, sweep: sweep,
                          pos: columns.position, bodyIndex: columns.bodyIndex, inv: 1 / broadphase.cellSize,
                          fatMargin: fatMargin, slowSpeed2: slowSpeed2, movedLimit: movedLimit, center: center,
                          slowShift2: slowShift2, slotOf: bodies.slot,
                          classOf: bodies.collisionClass, flags: bodies.flags, matrix: collisionFilter.collides,
                          classes: collisionFilter.classCount, staticCells: broadphase.staticGrid.used > 0,
                          oversizeStatics: broadphase.staticGrid.oversize)
    }

    /// The pairs of awake slot s, whose box (swept in the world, or its fat box) is `box`, with the static and
    /// sleeping bodies whose boxes overlap it: those in the static grid's cells (every binned body once, for a huge
    /// box) and the oversize ones.
    @inline(__always)
    func staticPairs(_ s: Int, _ box: AABB, _ list: inout [UInt64], _ frame: SweptFrame) {
        let i = Int(frame.bodyIndex[s])
        let row = Int(frame.classOf[i]) * frame.classes
        if frame.staticCells {
            let c = cellCoord(box, inv: frame.inv)
            if c.cellCount >= World.oversizeCells && c.cellCount > 4096 {
                for t in frame.n..<frame.boxes.count {
                    let j = Int(frame.bodyIndex[t])
                    if frame.flags[j] & BodyStore.binnedBit != 0 && box.overlaps(frame.boxes[t]) && frame.matrix[row + Int(frame.classOf[j])] {
                        list.append(World.pairKey(i, j))
                    }
                }
            } else {
                queryStaticGrid(box: box, coord: c, body: i, inv: frame.inv, classOf: frame.classOf, boxes: frame.boxes,
                                slotOf: frame.slotOf, into: &list)
            }
        }
        for so in frame.oversizeStatics {
            let j = Int(so)
            guard box.overlaps(frame.boxes[Int(frame.slotOf[j])]), frame.matrix[row + Int(frame.classOf[j])] else { continue }
            list.append(World.pairKey(i, j))
        }
    }

    /// The bodies that left their fat boxes since the last full search. Returns whether to search in full: more
    /// bodies have left their boxes since then than `movedLimit` (then `fresh` is left empty); otherwise each mover
    /// has a fresh fat box, is recorded in `grid.moved`, and its slot is listed in `fresh`.
    ///
    /// The movers are listed in slot order, each with its fresh box, in blocks on the workers for many bodies; a
    /// block stops once it lists more than the limit (the search is then in full whatever the others find). A
    /// box written for a search in full is harmless: that search writes every fat box again or leaves the grid
    /// invalid, and no box of an invalid grid is read.
    @inline(__always)
    func markMovers(_ frame: SweptFrame, grid: inout FatGrid, fresh: inout [UInt64]) -> Bool {
        let fat = broadphase.fatBoxes, n = frame.n, limit = frame.movedLimit
        let moving = grid.moving, offset = moving ? frame.offset(from: grid.anchor) : .zero
        /// Lists the movers of `range` into `list`, giving each its fresh fat box, up to one past the limit.
        @inline(__always) func listMovers(_ range: Range<Int>, into list: inout [UInt64]) {
            var listed = 0
            for s in range where frame.isActive(s) && (moving ? frame.leftMoving(s, fat[s], offset) : frame.left(s, fat[s])) {
                fat[s] = moving ? frame.movingFatBox(s, offset) : frame.fatBox(s)
                list.append(UInt64(s))
                listed += 1
                if listed > limit { break }
            }
        }
        if let executor = executor(work: n, minimum: workers.parallelSweep) {
            let blocks = Swift.max(2, Swift.min(WorkerState.maximumBlocks, n / workers.sweepBlock))
            fillBlockPairs(executor, blocks: blocks) { k, list in listMovers(World.block(k, of: blocks, count: n), into: &list) }
            appendBlockPairs(blocks, to: &fresh)
        } else {
            listMovers(0..<n, into: &fresh)
        }
        // The bodies that have left their boxes since the full search: those recorded, and the movers not among
        // them. (More movers than the limit make more than the limit either way.)
        var newlyMoved = 0
        if fresh.count <= limit {
            grid.movedFlag.withUnsafeBufferPointer { moved in
                for s in fresh where !moved[Int(s)] { newlyMoved += 1 }
            }
        }
        if fresh.count > limit || grid.moved.count + newlyMoved > limit {
            fresh.removeAll(keepingCapacity: true)
            return true
        }
        for s in fresh where !grid.movedFlag[Int(s)] { grid.movedFlag[Int(s)] = true; grid.moved.append(Int32(s)) }
        return false
    }

    /// A full search. In a scene calm for some steps (whose cells span a small rectangle) it lists the candidates,
    /// every pair whose fat boxes overlap, and keeps the grid for the steps after; returns false otherwise, having
    /// listed none. A scene calm in the world keeps its grid there, with the pairs with static and sleeping bodies
    /// among the candidates; one calm only in the awake bodies' common frame keeps it in that frame (`FatGrid.moving`).
    @inline(__always)
    func searchInFull(_ frame: SweptFrame, grid: inout FatGrid, candidates: inout [UInt64]) -> Bool {
        let n = frame.n
        broadphase.fullSearchCount += 1
        grid.valid = false
        candidates.removeAll(keepingCapacity: true)
        var kept = false
        let calmInWorld = grid.calmSteps > World.calmStepsToKeep
        let moving = !calmInWorld && grid.calmFrameSteps > World.calmStepsToKeep
        if broadphase.incremental && (calmInWorld || moving) {
            broadphase.fatBoxes.reserve(n, count: 0)
            let fat = broadphase.fatBoxes
            let empty = AABB(lower: Vec2(1, 1), upper: Vec2(-1, -1))
            if moving {
                for s in 0..<n { fat[s] = frame.isActive(s) ? frame.movingFatBox(s, .zero) : empty }
            } else {
                for s in 0..<n { fat[s] = frame.isActive(s) ? frame.fatBox(s) : empty }
            }
            kept = fullSearch(n: n, grid: &grid, candidates: &candidates, fat: fat)
            if kept {
                if !moving { for s in 0..<n where frame.isActive(s) { staticPairs(s, fat[s], &candidates, frame) } }
                sortPairs(&candidates)
                dropRepeats(&candidates)
            }
        }
        guard kept else {
            candidates.removeAll(keepingCapacity: true)
            return false
        }
        grid.slotVersion = bodies.slotVersion; grid.version = broadphase.pairCacheVersion
        grid.awakeCount = n; grid.count = bodies.count; grid.cellSize = broadphase.cellSize
        grid.moving = moving; grid.anchor = frame.center
        grid.moved.removeAll(keepingCapacity: true)
        grid.movedFlag.removeAll(keepingCapacity: true)
        grid.movedFlag.append(contentsOf: repeatElement(false, count: n))
        grid.valid = true
        return true
    }

    /// The search of a scene that is not calm: the exact search of the swept boxes, then each pair's reach, for the
    /// narrowphase. The pairs with static and sleeping bodies out of reach by their circles are dropped here. (The
    /// unswept boxes are gone; they do not change a reach's distances, and the awake pairs are within reach.)
    @inline(__always)
    func exactPairs(_ frame: SweptFrame, pairs: inout [UInt64], reaches: inout [PairReach]) {
        exactSearch(n: frame.n, pairs: &pairs, boxes: frame.boxes, tight: frame.tight, sweep: frame.sweep)
        keepWithinReach(frame, &pairs, reaches: &reaches)
    }

    /// Keeps the pairs of `pairs` (sorted) that can close within the step, in place, appending each one's reach to
    /// `reaches` (by the bodies' circles: the unswept boxes are gone by now; they do not change a reach's distances).
    @inline(__always)
    func keepWithinReach(_ frame: SweptFrame, _ pairs: inout [UInt64], reaches: inout [PairReach]) {
        let sweep = frame.sweep, pos = frame.pos
        let count = pairs.count
        var none: [UInt64] = []
        let kept = pairs.withUnsafeMutableBufferPointer { pb -> Int in
            frame.slotOf.withUnsafeBufferPointer { slotOf -> Int in
                // The pairs that can close within the step, kept in place with their reaches.
                keepInBlocks(pb, pairs: &none, reaches: &reaches) { range, _, reaches in
                    var w = range.lowerBound
                    for r in range {
                        let pair = pb[r]
                        let (sa, sb) = World.slots(of: pair, slotOf)
                        let reach = World.reach(sa, sb, dt: sweep.dt, margin: sweep.margin, pos: pos, vel: sweep.vel,
                                                angVel: sweep.angVel, ext: sweep.ext, grav: sweep.grav, tight: nil)
                        if reach.apart { continue }
                        pb[w] = pair; w += 1
                        reaches.append(PairReach(spin: reach.spin, speculativeReach: reach.speculativeReach))
                    }
                    return w - range.lowerBound
                }
            }
        }
        pairs.removeLast(count - kept)
    }

    /// Each body that left its fat box against the cells of the full search (but the bodies that have moved since,
    /// whose entries there are stale), the oversize bodies, every body moved since, and the static and sleeping
    /// bodies; the new candidates are merged into `candidates`. `fresh` holds the movers' slots on entry.
    @inline(__always)
    func searchMovers(_ frame: SweptFrame, grid: inout FatGrid, candidates: inout [UInt64], fresh: inout [UInt64]) {
        let fat = broadphase.fatBoxes, n = frame.n, inv = frame.inv
        let movers = fresh.count
        /// Mover `s`'s candidate pairs, appended to `list`.
        func search(_ s: Int, into list: inout [UInt64]) {
            let f = fat[s]
            let i = Int(frame.bodyIndex[s])
            let row = Int(frame.classOf[i]) * frame.classes
            @inline(__always) func consider(_ t: Int, into list: inout [UInt64]) {
                guard t != s, frame.isActive(t), f.overlaps(fat[t]) else { return }
                let j = Int(frame.bodyIndex[t])
                guard frame.matrix[row + Int(frame.classOf[j])] else { return }
                list.append(World.pairKey(i, j))
            }
            let c = cellCoord(f, inv: inv)
            if c.cellCount >= World.oversizeCells {
                for t in 0..<n { consider(t, into: &list) }
            } else {
                grid.ends.withUnsafeBufferPointer { ends in
                grid.slots.withUnsafeBufferPointer { slots in
                grid.movedFlag.withUnsafeBufferPointer { moved in
                    for y in c.y0...c.y1 {
                        let by = Int(UInt16(truncatingIfNeeded: y) &- grid.y0)
                        guard by < grid.height else { continue }
                        for x in c.x0...c.x1 {
                            let bx = Int(UInt16(truncatingIfNeeded: x) &- grid.x0)
                            guard bx < grid.width else { continue }
                            let b = by * grid.width + bx
                            let cell = cellKey(x, y)
                            for e in Int(b == 0 ? 0 : ends[b - 1])..<Int(ends[b]) {
                                let t = Int(slots[e])
                                guard !moved[t] else { continue }
                                let g = fat[t]
                                guard f.overlaps(g), World.cornerCellKey(f, g, inv: inv) == cell else { continue }
                                let j = Int(frame.bodyIndex[t])
                                guard frame.matrix[row + Int(frame.classOf[j])] else { continue }
                                list.append(World.pairKey(i, j))
                            }
                        }
                    }
                }
                }
                }
                for t in grid.oversize where !grid.movedFlag[Int(t)] { consider(Int(t), into: &list) }
                for t in grid.moved { consider(Int(t), into: &list) }
            }
            if !grid.moving { staticPairs(s, f, &list, frame) }
        }
        if let executor = executor(work: movers, minimum: workers.parallelMovers) {
            // On the workers: blocks of movers, each listing its pairs into a list of its own, joined in block order
            // after the movers (the candidates are sorted before use, so any order gives the same list).
            let blocks = Swift.max(2, Swift.min(WorkerState.maximumBlocks, movers / workers.moverBlock))
            fresh.withUnsafeBufferPointer { moverSlots in
                fillBlockPairs(executor, blocks: blocks) { k, list in
                    for m in World.block(k, of: blocks, count: movers) { search(Int(moverSlots[m]), into: &list) }
                }
            }
            appendBlockPairs(blocks, to: &fresh)
        } else {
            for k in 0..<movers { search(Int(fresh[k]), into: &fresh) }
        }
        // The movers' own entries (slots) lead the list; the rest are candidates, to be merged in.
        fresh.removeFirst(movers)
        if !fresh.isEmpty {
            sortPairs(&fresh)
            mergeCandidates(&candidates, fresh)
        }
    }

    /// The pairs, filtered from the candidates in order (so sorted and unique), with their reach; candidates whose
    /// fat boxes no longer overlap are dropped on the way (they are found again if either body's fat box comes back).
    @inline(__always)
    func filterCandidates(_ frame: SweptFrame, candidates: inout [UInt64], pairs: inout [UInt64], reaches: inout [PairReach]) {
        let fat = broadphase.fatBoxes, n = frame.n, boxes = frame.boxes
        let count = candidates.count
        let kept = candidates.withUnsafeMutableBufferPointer { cb -> Int in
            frame.slotOf.withUnsafeBufferPointer { slotOf -> Int in
                // The candidates whose fat boxes still overlap kept in place; of those, the pairs whose boxes overlap
                // and that can close within the step listed with their reaches.
                keepInBlocks(cb, pairs: &pairs, reaches: &reaches) { range, pairs, reaches in
                    // The lists are grown by the most the range can add and written through their buffers (an append
                    // per pair would check each list's uniqueness and capacity), then cut to what was found.
                    let base = pairs.count
                    pairs.append(contentsOf: repeatElement(0, count: range.count))
                    reaches.append(contentsOf: repeatElement(PairReach(spin: 0, speculativeReach: 0), count: range.count))
                    var w = range.lowerBound, found = base
                    pairs.withUnsafeMutableBufferPointer { pb in
                        reaches.withUnsafeMutableBufferPointer { rb in
                            for r in range {
                                let pair = cb[r]
                                let (sa, sb) = World.slots(of: pair, slotOf)
                                if sa < n && sb < n {
                                    guard fat[sa].overlaps(fat[sb]) else { continue }
                                    cb[w] = pair; w += 1
                                    guard boxes[sa].overlaps(boxes[sb]) else { continue }
                                } else {
                                    let (s, t) = sa < n ? (sa, sb) : (sb, sa)
                                    guard fat[s].overlaps(boxes[t]) else { continue }
                                    cb[w] = pair; w += 1
                                    guard frame.worldBox(s).overlaps(boxes[t]) else { continue }
                                }
                                let r = frame.reach(sa, sb)
                                if r.apart { continue }
                                pb[found] = pair
                                rb[found] = PairReach(spin: r.spin, speculativeReach: r.speculativeReach)
                                found += 1
                            }
                        }
                    }
                    pairs.removeLast(base + range.count - found)
                    reaches.removeLast(base + range.count - found)
                    return w - range.lowerBound
                }
            }
        }
        candidates.removeLast(count - kept)
    }

    /// The pairs of the awake bodies with static and sleeping ones on a moving grid (which holds none of them: those
    /// bodies do not move with the frame), searched as the exact search does, with each awake body's box swept in
    /// the world (written over its unswept box), and merged with their reaches into `pairs` (sorted) and `reaches`.
    /// `list` is scratch.
    @inline(__always)
    func mergeStaticPairs(_ frame: SweptFrame, list: inout [UInt64], pairs: inout [UInt64], reaches: inout [PairReach],
                          columns: BodyColumns) {
        list.removeAll(keepingCapacity: true)
        // (The candidates are filtered: the unswept boxes are not needed past this point.)
        appendStaticPairs(n: frame.n, boxes: frame.boxes, tight: frame.tight, sweep: frame.sweep, columns: columns, to: &list)
        guard !list.isEmpty else { return }
        sortPairs(&list)
        dropRepeats(&list)
        var found = broadphase.staticReaches; broadphase.staticReaches = []
        defer { broadphase.staticReaches = found }
        found.removeAll(keepingCapacity: true)
        keepWithinReach(frame, &list, reaches: &found)
        let kept = list.count
        guard kept > 0 else { return }
        // Merged from the back, in place (no key is in both lists: the candidates pair awake bodies only).
        let old = pairs.count
        pairs.append(contentsOf: repeatElement(0, count: kept))
        reaches.append(contentsOf: repeatElement(PairReach(spin: 0, speculativeReach: 0), count: kept))
        pairs.withUnsafeMutableBufferPointer { pb in
            reaches.withUnsafeMutableBufferPointer { rb in
                list.withUnsafeBufferPointer { lb in
                    found.withUnsafeBufferPointer { fb in
                        var i = old - 1, j = kept - 1, w = old + kept - 1
                        while j >= 0 {
                            if i >= 0 && pb[i] > lb[j] {
                                pb[w] = pb[i]; rb[w] = rb[i]; i -= 1
                            } else {
                                pb[w] = lb[j]; rb[w] = fb[j]; j -= 1
                            }
                            w -= 1
                        }
                    }
                }
            }
        }
    }

    /// Keeps keys of `keys` in place by `filter`, which is given a range of them and the lists to append what it
    /// finds to, moves the keys it keeps to the range's start, and returns how many it kept; returns how many were
    /// kept in all (they lead `keys`). On the workers (from `parallelCandidates` keys): blocks of keys, each filtered
    /// with lists of its own, then joined in block order (the same keys, pairs and reaches in the same order as one
    /// pass).
    func keepInBlocks(_ keys: UnsafeMutableBufferPointer<UInt64>, pairs: inout [UInt64], reaches: inout [PairReach],
                      _ filter: (Range<Int>, inout [UInt64], inout [PairReach]) -> Int) -> Int {
        let count = keys.count
        guard let executor = executor(work: count, minimum: workers.parallelCandidates) else {
            return filter(0..<count, &pairs, &reaches)
        }
        let perBlock = Swift.max(workers.candidateBlock, (count + WorkerState.maximumBlocks - 1) / WorkerState.maximumBlocks)
        let blocks = (count + perBlock - 1) / perBlock
        if broadphase.blockPairs.count < blocks {
            broadphase.blockPairs.append(contentsOf: repeatElement([], count: blocks - broadphase.blockPairs.count))
        }
        if broadphase.blockReaches.count < blocks {
            broadphase.blockReaches.append(contentsOf: repeatElement([], count: blocks - broadphase.blockReaches.count))
        }
        let keptCounts = workers.blockCounts
        return broadphase.blockPairs.withUnsafeMutableBufferPointer { pairLists in
            broadphase.blockReaches.withUnsafeMutableBufferPointer { reachLists in
                runParallel(executor, blocks) { k in
                    // The block's lists are taken out while it fills them: appended to in place, each append would
                    // store the list back into `pairLists`, whose neighbouring entries the other threads write too
                    // (the cache line would pass between the cores at every pair).
                    var blockPairs = pairLists[k], blockReaches = reachLists[k]
                    pairLists[k] = []; reachLists[k] = []
                    blockPairs.removeAll(keepingCapacity: true)
                    blockReaches.removeAll(keepingCapacity: true)
                    let from = k * perBlock
                    keptCounts[k] = filter(from..<Swift.min(from + perBlock, count), &blockPairs, &blockReaches)
                    pairLists[k] = blockPairs; reachLists[k] = blockReaches
                }
                var w = 0
                for k in 0..<blocks {
                    let from = k * perBlock, keptHere = keptCounts[k]
                    if w != from, keptHere > 0 { (keys.baseAddress! + w).update(from: keys.baseAddress! + from, count: keptHere) }
                    w += keptHere
                    pairs.append(contentsOf: pairLists[k])
                    reaches.append(contentsOf: reachLists[k])
                }
                return w
            }
        }
    }

    /// What sweeping a tight box takes (`swept`).
    struct SweepTerms {
        let dt: Float, margin: Float, shift: Vec2
        let vel: UnsafeMutablePointer<Vec2>, angVel: UnsafeMutablePointer<Float>, ext: UnsafeMutablePointer<Float>
        let grav: UnsafeMutablePointer<Vec2>

        /// Slot s's tight box grown by how far the body can travel this step, less the frame's displacement
        /// `shift` (`.zero`: swept in the world; subtracting zero changes no bit).
        @inline(__always) func swept(_ tightBox: AABB, slot s: Int, shift: Vec2) -> AABB {
            var box = tightBox
            let d = (dt * vel[s] + (dt * dt) * grav[s]) - shift
            let spin = abs(angVel[s]) * ext[s] * dt
            box.lower += minimum(d, .zero) - (margin + spin)
            box.upper += maximum(d, .zero) + (margin + spin)
            return box
        }
    }

    /// The slots of a pair key's two bodies (lower id first).
    @inline(__always) static func slots(of pair: UInt64, _ slotOf: UnsafeBufferPointer<Int32>) -> (Int, Int) {
        (Int(slotOf[Int(truncatingIfNeeded: pair >> 32)]), Int(slotOf[Int(truncatingIfNeeded: pair & 0xFFFF_FFFF)]))
    }

    @inline(__always) static func pairKey(_ ia: Int, _ ib: Int) -> UInt64 {
        ia < ib ? UInt64(ia) << 32 | UInt64(ib) : UInt64(ib) << 32 | UInt64(ia)
    }

    @inline(__always) static func elements<T>(_ bytes: Int, of: T.Type) -> Int {
        (bytes + MemoryLayout<T>.stride - 1) / MemoryLayout<T>.stride
    }
}
