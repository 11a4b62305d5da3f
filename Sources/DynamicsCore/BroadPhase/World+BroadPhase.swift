import DynamicsSIMD

extension World {
    /// A box covering this many cells or more is "oversize": it is tested against every candidate instead of
    /// being binned, so one large item among many small ones does not flood the grid.
    @usableFromInline static var oversizeCells: Int { 64 }

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

    /// The tight box of a body's shapes at its current transform.
    @inline(__always) func bodyBox(id i: Int, slot s: Int) -> AABB {
        shapeStore.records.withUnsafeBufferPointer { sh in
            shapeStore.polygonVertices.withUnsafeBufferPointer { pv in
                bodyBox(id: i, slot: s, shapes: sh.baseAddress!, vertices: pv.baseAddress)
            }
        }
    }

    /// `bodyBox(id:slot:)` over the shape and vertex tables' storage (a loop over many bodies takes them once).
    @inline(__always) func bodyBox(id i: Int, slot s: Int, shapes sh: UnsafePointer<ShapeRecord>,
                                   vertices pv: UnsafePointer<Vec2>?) -> AABB {
        World.tightBox(position: bodies.position[s], rotation: bodies.rotation[s], shapes: sh + Int(bodies.shapeStart[i]),
                       count: Int(bodies.shapeCount[i]), vertices: pv)
    }

    /// The tight box of the `count` shapes at `shapes` placed at (p, q).
    @inline(__always) static func tightBox(position p: Vec2, rotation q: Rotation, shapes sh: UnsafePointer<ShapeRecord>,
                                           count n: Int, vertices pv: UnsafePointer<Vec2>?) -> AABB {
        var lo = Vec2(repeating: .greatestFiniteMagnitude), hi = Vec2(repeating: -.greatestFiniteMagnitude)
        for k in 0..<n {
            let shape = sh[k]
            switch shape.kind {
            case .circle:
                let c = p + q.rotate(shape.p0)
                lo = minimum(lo, c - shape.radius); hi = maximum(hi, c + shape.radius)
            case .segment:
                let a = p + q.rotate(shape.p0), b = p + q.rotate(shape.p1)
                lo = minimum(lo, minimum(a, b)); hi = maximum(hi, maximum(a, b))
            case .polygon:
                let vs = Int(shape.vertexStart)
                for v in vs..<(vs + Int(shape.vertexCount)) {
                    let w = p + q.rotate(pv![v])
                    lo = minimum(lo, w); hi = maximum(hi, w)
                }
            }
        }
        return AABB(lower: lo, upper: hi)
    }

    /// Picks the grid cell size from the typical body: twice the median extent of the awake bodies.
    func chooseCellSize() {
        if settings.gridCellSize > 0 { broadphase.cellSize = settings.gridCellSize; return }
        var extents: [Float] = []
        let n = bodies.awakeCount
        let stride = Swift.max(1, n / 1024)
        var s = 0
        while s < n { extents.append(bodies.extent[s]); s += stride }
        if extents.isEmpty {
            for s in 0..<bodies.count where bodies.type(Int(bodies.bodyIndex[s])) == .dynamic { extents.append(bodies.extent[s]) }
        }
        extents.sort()
        let median = extents.isEmpty ? 10 : extents[extents.count / 2]
        broadphase.cellSize = Swift.max(2 * median * 2, 4)
    }

    /// Puts a static or sleeping body into the static grid.
    func bin(id i: Int) {
        precondition(!bodies.isBinned(i))
        broadphase.pairCacheVersion &+= 1
        if broadphase.cellSize == 0 { bodies.setBinned(i, false); return } // binned when the grid is first sized
        let s = Int(bodies.slot[i])
        var box = bodyBox(id: i, slot: s)
        let m = settings.speculativeDistance
        box.lower -= m; box.upper += m
        bodies.box[s] = box
        bodies.setBinned(i, true)
        let c = cellCoord(box, inv: 1 / broadphase.cellSize)
        if c.cellCount >= World.oversizeCells {
            broadphase.staticGrid.oversize.append(Int32(i))
            return
        }
        for y in c.y0...c.y1 { for x in c.x0...c.x1 { broadphase.staticGrid.insert(body: Int32(i), key: cellKey(x, y)) } }
    }

    func unbin(id i: Int) {
        precondition(bodies.isBinned(i))
        broadphase.pairCacheVersion &+= 1
        bodies.setBinned(i, false)
        let c = cellCoord(bodies.box[Int(bodies.slot[i])], inv: 1 / broadphase.cellSize)
        if c.cellCount >= World.oversizeCells {
            if let k = broadphase.staticGrid.oversize.firstIndex(of: Int32(i)) { broadphase.staticGrid.oversize.remove(at: k) }
            return
        }
        for y in c.y0...c.y1 { for x in c.x0...c.x1 { broadphase.staticGrid.remove(body: Int32(i), key: cellKey(x, y)) } }
    }

    /// Re-sizes the grid and re-bins every static and sleeping body.
    func rebuildStaticGrid() {
        broadphase.pairCacheVersion &+= 1
        chooseCellSize()
        broadphase.staticGrid.removeAll()
        for i in 0..<bodies.idCapacity where bodies.slot[i] >= 0 { bodies.setBinned(i, false) }
        for s in bodies.awakeCount..<bodies.count { bin(id: Int(bodies.bodyIndex[s])) }
    }

    /// The margin by which a fat box exceeds the swept boxes it was made from, as a fraction of the cell size.
    @usableFromInline static var fatMarginFraction: Float { 1.0 / 32 }
    /// How many steps in a row a scene must have been calm (nearly every body slower than the fat margin allows)
    /// before a full search keeps its candidates for the steps after.
    @usableFromInline static var calmStepsToKeep: Int { 2 }

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
    func updatePairs(dt: Float) {
        bodies.withColumns { columns in
            if broadphase.cellSize == 0 { rebuildStaticGrid() }
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
            // Nothing collides (a swarm driven by fields, a joint grid): no pairs, no work per body.
            guard collisionFilter.classActive.contains(true) else {
                candidates.removeAll(keepingCapacity: true)
                grid.valid = false
                return
            }
            // The awake bodies' unswept boxes, by slot, live in the buffer of this step's scalar contact constraints,
            // which is rebuilt after the narrowphase: the two passes' temporaries share memory (`StepTable.borrowBytes`).
            let tight = contactSolver.scalar.borrowBytes(n * MemoryLayout<AABB>.stride).bindMemory(to: AABB.self, capacity: n)
            contactSolver.borrowedByBroadphase.constraints = World.elements(n * MemoryLayout<AABB>.stride, of: ContactConstraint.self)
            let inv = 1 / broadphase.cellSize
            let margin = settings.speculativeDistance
            let vel = columns.velocity, angVel = columns.angularVelocity, ext = columns.extent
            let grav = columns.gravity, bodyIndex = columns.bodyIndex, pos = columns.position
            let classOf = bodies.collisionClass
            // The awake slots' swept boxes are written over the first n of the box column; the static and sleeping
            // bodies' binned boxes follow, at their slots.
            let boxBuffer = UnsafeMutableBufferPointer(start: columns.box, count: bodies.count)
            let boxes = UnsafeBufferPointer(boxBuffer)
            let slotOf = bodies.slot
            let oversizeLimit = World.oversizeCells

            // Swept boxes: the tight box grown by how far the body can travel this step, in a frame that moves by the
            // awake bodies' mean displacement `shift`. Two bodies can meet only by their displacement relative to each
            // other, which is the same in any frame moving uniformly; items falling together thus stay out of each
            // other's cells, as if at rest. Static and sleeping bodies do not move with that frame: the awake bodies
            // meet them with their boxes swept in the world (`worldBox`).
            let dt2 = dt * dt
            var shift = Vec2.zero
            for s in 0..<n { shift += dt * vel[s] + dt2 * grav[s] }
            shift /= Float(Swift.max(n, 1))
            if !(shift.x.isFinite && shift.y.isFinite) { shift = .zero }
            let sweep = SweepTerms(dt: dt, margin: margin, shift: shift, vel: vel, angVel: angVel, ext: ext, grav: grav)
            // Calm: at most `movedLimit` bodies are fast, that is, would leave a fat box at once.
            let fatMargin = broadphase.cellSize * World.fatMarginFraction
            let slowSpeed2 = 0.25 * fatMargin * fatMargin / dt2
            let movedLimit = n / 8 + 16
            let fast = sweepBoxes(n: n, tight: tight, sweep: sweep, slowSpeed2: slowSpeed2)
            grid.calmSteps = fast <= movedLimit ? grid.calmSteps + 1 : 0
            /// Whether slot s (awake) collides with anything: its swept box is not empty.
            @inline(__always) func isActive(_ s: Int) -> Bool { boxes[s].lower.x <= boxes[s].upper.x }
            @inline(__always) func worldBox(_ s: Int) -> AABB { sweep.swept(tight[s], slot: s, shift: .zero) }
            let tightBoxes = UnsafePointer(tight)
            /// The reach of the pair of slots sa and sb (sa of the lower id): two awake bodies are also tested by their
            /// unswept boxes, a body and a static or sleeping one by their circles only.
            @inline(__always) func reach(_ sa: Int, _ sb: Int) -> (apart: Bool, spin: Float, speculativeReach: Float) {
                World.reach(sa, sb, dt: dt, margin: margin, pos: pos, vel: vel, angVel: angVel, ext: ext, grav: grav,
                            tight: sa < n && sb < n ? tightBoxes : nil)
            }

            let oversizeStatics = broadphase.staticGrid.oversize, staticCells = broadphase.staticGrid.used > 0
            let flags = bodies.flags, matrix = collisionFilter.collides, classes = collisionFilter.classCount
            /// The pairs of awake slot s, whose box (swept in the world, or its fat box) is `box`, with the static and
            /// sleeping bodies whose boxes overlap it: those in the static grid's cells (every binned body once, for a
            /// huge box) and the oversize ones.
            @inline(__always) func staticPairs(_ s: Int, _ box: AABB, _ list: inout [UInt64]) {
                let i = Int(bodyIndex[s])
                let row = Int(classOf[i]) * classes
                if staticCells {
                    let c = cellCoord(box, inv: inv)
                    if c.cellCount >= oversizeLimit && c.cellCount > 4096 {
                        for t in n..<boxes.count {
                            let j = Int(bodyIndex[t])
                            if flags[j] & BodyStore.binnedBit != 0 && box.overlaps(boxes[t]) && matrix[row + Int(classOf[j])] {
                                list.append(World.pairKey(i, j))
                            }
                        }
                    } else {
                        queryStaticGrid(box: box, coord: c, body: i, inv: inv, classOf: classOf, boxes: boxes, slotOf: slotOf, into: &list)
                    }
                }
                for so in oversizeStatics {
                    let j = Int(so)
                    guard box.overlaps(boxes[Int(slotOf[j])]), matrix[row + Int(classOf[j])] else { continue }
                    list.append(World.pairKey(i, j))
                }
            }

            /// Slot s's fat box: its two swept boxes, grown by the margin if the body is slow (a fast one leaves any
            /// margin at once, and its larger box would only add candidates).
            @inline(__always) func fatBox(_ s: Int) -> AABB {
                let m: Float = lengthSquared(vel[s]) < slowSpeed2 ? fatMargin : 0
                let box = boxes[s].union(worldBox(s))
                return AABB(lower: box.lower - m, upper: box.upper + m)
            }

            // Whether the last full search still holds, and which bodies left their fat boxes since: counted first (and
            // only up to the limit), so a step in which many move searches in full at once.
            var full = !(broadphase.incremental && grid.valid && grid.slotVersion == bodies.slotVersion
                         && grid.version == broadphase.pairCacheVersion && grid.awakeCount == n && grid.count == bodies.count
                         && grid.cellSize == broadphase.cellSize)
            if !full {
                let fat = broadphase.fatBoxes
                @inline(__always) func left(_ s: Int) -> Bool {
                    let f = fat[s], m = boxes[s], w = worldBox(s)
                    return !(m.lower.x >= f.lower.x && m.lower.y >= f.lower.y && m.upper.x <= f.upper.x && m.upper.y <= f.upper.y
                             && w.lower.x >= f.lower.x && w.lower.y >= f.lower.y && w.upper.x <= f.upper.x && w.upper.y <= f.upper.y)
                }
                var movers = 0, newlyMoved = 0
                grid.movedFlag.withUnsafeBufferPointer { moved in
                    for s in 0..<n where isActive(s) && left(s) {
                        movers += 1
                        if !moved[s] { newlyMoved += 1 }
                        if movers > movedLimit { break }
                    }
                }
                if grid.moved.count + newlyMoved > movedLimit {
                    full = true
                } else if movers > 0 {
                    for s in 0..<n where isActive(s) && left(s) {
                        fat[s] = fatBox(s)
                        if !grid.movedFlag[s] { grid.movedFlag[s] = true; grid.moved.append(Int32(s)) }
                        fresh.append(UInt64(s))   // this step's movers, for now
                    }
                }
            }
            if full {
                broadphase.fullSearchCount += 1
                grid.valid = false
                candidates.removeAll(keepingCapacity: true)
                // Keep candidates only in a scene calm for some steps (and whose cells span a small rectangle).
                var kept = false
                if broadphase.incremental && grid.calmSteps > World.calmStepsToKeep {
                    broadphase.fatBoxes.reserve(n, count: 0)
                    let fat = broadphase.fatBoxes
                    for s in 0..<n { fat[s] = isActive(s) ? fatBox(s) : AABB(lower: Vec2(1, 1), upper: Vec2(-1, -1)) }
                    kept = fullSearch(n: n, grid: &grid, candidates: &candidates, fat: fat)
                    if kept {
                        for s in 0..<n where isActive(s) { staticPairs(s, fat[s], &candidates) }
                        sortPairs(&candidates)
                        dropRepeats(&candidates)
                    }
                }
                if kept {
                    grid.slotVersion = bodies.slotVersion; grid.version = broadphase.pairCacheVersion
                    grid.awakeCount = n; grid.count = bodies.count; grid.cellSize = broadphase.cellSize
                    grid.moved.removeAll(keepingCapacity: true)
                    grid.movedFlag.removeAll(keepingCapacity: true)
                    grid.movedFlag.append(contentsOf: repeatElement(false, count: n))
                    grid.valid = true
                } else {
                    candidates.removeAll(keepingCapacity: true)
                    exactSearch(n: n, pairs: &pairs, boxes: boxes, tight: tight, sweep: sweep)
                    // Each pair's reach, for the narrowphase; the pairs with static and sleeping bodies out of reach by
                    // their circles are dropped here. (The unswept boxes are gone; they do not change a reach's
                    // distances, and the awake pairs are within reach.)
                    let kept = pairs.withUnsafeMutableBufferPointer { pb -> Int in
                        var w = 0
                        slotOf.withUnsafeBufferPointer { slotOf in
                            for r in 0..<pb.count {
                                let pair = pb[r]
                                let (sa, sb) = World.slots(of: pair, slotOf)
                                let reach = World.reach(sa, sb, dt: dt, margin: margin, pos: pos, vel: vel, angVel: angVel,
                                                        ext: ext, grav: grav, tight: nil)
                                if reach.apart { continue }
                                pb[w] = pair; w += 1
                                reaches.append(PairReach(spin: reach.spin, speculativeReach: reach.speculativeReach))
                            }
                        }
                        return w
                    }
                    pairs.removeLast(pairs.count - kept)
                    return
                }
            }
            let fat = broadphase.fatBoxes
            if !fresh.isEmpty {
                // Each body that left its fat box against the cells of the full search (but the bodies that have moved
                // since, whose entries there are stale), the oversize bodies, every body moved since, and the static and
                // sleeping bodies.
                let movers = fresh.count
                for k in 0..<movers {
                    let s = Int(fresh[k])
                    let f = fat[s]
                    let i = Int(bodyIndex[s])
                    let row = Int(classOf[i]) * classes
                    @inline(__always) func consider(_ t: Int, into list: inout [UInt64]) {
                        guard t != s, isActive(t), f.overlaps(fat[t]) else { return }
                        let j = Int(bodyIndex[t])
                        guard matrix[row + Int(classOf[j])] else { return }
                        list.append(World.pairKey(i, j))
                    }
                    let c = cellCoord(f, inv: inv)
                    if c.cellCount >= oversizeLimit {
                        for t in 0..<n { consider(t, into: &fresh) }
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
                                        let j = Int(bodyIndex[t])
                                        guard matrix[row + Int(classOf[j])] else { continue }
                                        fresh.append(World.pairKey(i, j))
                                    }
                                }
                            }
                        }
                        }
                        }
                        for t in grid.oversize where !grid.movedFlag[Int(t)] { consider(Int(t), into: &fresh) }
                        for t in grid.moved { consider(Int(t), into: &fresh) }
                    }
                    staticPairs(s, f, &fresh)
                }
                // The movers' own entries (slots) lead the list; the rest are candidates, to be merged in.
                fresh.removeFirst(movers)
                if !fresh.isEmpty {
                    sortPairs(&fresh)
                    mergeCandidates(&candidates, fresh)
                }
            }

            // The pairs, filtered from the candidates in order (so sorted and unique), with their reach; candidates
            // whose fat boxes no longer overlap are dropped on the way (they are found again if either body's fat box
            // comes back).
            let kept = candidates.withUnsafeMutableBufferPointer { cb -> Int in
                var w = 0
                slotOf.withUnsafeBufferPointer { slotOf in
                    for r in 0..<cb.count {
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
                            guard worldBox(s).overlaps(boxes[t]) else { continue }
                        }
                        let r = reach(sa, sb)
                        if r.apart { continue }
                        pairs.append(pair)
                        reaches.append(PairReach(spin: r.spin, speculativeReach: r.speculativeReach))
                    }
                }
                return w
            }
            candidates.removeLast(candidates.count - kept)
        }
    }

    /// The awake bodies' tight boxes (into `tight`) and their boxes swept in the frame of `sweep.shift` (into the
    /// box column), by slot; a body whose class collides with nothing gets an empty swept box. Returns how many of
    /// the others are fast: their speed squared at least `slowSpeed2`. (A loop over local buffers: the tables are
    /// read once.)
    func sweepBoxes(n: Int, tight: UnsafeMutablePointer<AABB>, sweep: SweepTerms, slowSpeed2: Float) -> Int {
        return bodies.withColumns { columns in
            var fast = 0
            let bodyIndex = columns.bodyIndex, pos = columns.position, rot = columns.rotation
            let box = columns.box
            bodies.collisionClass.withUnsafeBufferPointer { classOf in
            collisionFilter.classActive.withUnsafeBufferPointer { active in
            bodies.shapeStart.withUnsafeBufferPointer { shapeStart in
            bodies.shapeCount.withUnsafeBufferPointer { shapeCount in
            shapeStore.records.withUnsafeBufferPointer { sh in
            shapeStore.polygonVertices.withUnsafeBufferPointer { pv in
                for s in 0..<n {
                    let i = Int(bodyIndex[s])
                    if !active[Int(classOf[i])] {
                        box[s] = AABB(lower: Vec2(1, 1), upper: Vec2(-1, -1))
                        continue
                    }
                    let tightBox = World.tightBox(position: pos[s], rotation: rot[s], shapes: sh.baseAddress! + Int(shapeStart[i]),
                                                  count: Int(shapeCount[i]), vertices: pv.baseAddress)
                    tight[s] = tightBox
                    box[s] = sweep.swept(tightBox, slot: s, shift: sweep.shift)
                    if lengthSquared(sweep.vel[s]) >= slowSpeed2 { fast += 1 }
                }
            }
            }
            }
            }
            }
            }
            return fast
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

    /// The search of every step while bodies move: the grid of the awake bodies' swept boxes (`boxes`, in their
    /// common frame), each pair of overlapping boxes whose bodies can reach each other (`World.reach`, given their
    /// unswept boxes `tight`), then each awake body against the static and sleeping bodies with its box swept in
    /// the world, written over its unswept box. `pairs` ends sorted and unique.
    func exactSearch(n: Int, pairs: inout [UInt64], boxes: UnsafeBufferPointer<AABB>, tight: UnsafeMutablePointer<AABB>,
                     sweep: SweepTerms) {
        // The search runs in a function of its own rather than in the closure: inside the closure the pairs list
        // (captured inout) costs 1.3% more instructions per rain_1000 step.
        bodies.withColumns { columns in
            exactSearch(n: n, pairs: &pairs, boxes: boxes, tight: tight, sweep: sweep, columns: columns)
        }
    }

    @inline(never)
    func exactSearch(n: Int, pairs: inout [UInt64], boxes: UnsafeBufferPointer<AABB>, tight: UnsafeMutablePointer<AABB>,
                     sweep: SweepTerms, columns: BodyColumns) {
        let pos = columns.position
        let tightBoxes = UnsafePointer(tight)
        searchGrid(n: n, boxes: boxes, bodyIndex: columns.bodyIndex, into: &pairs) { sa, sb, ia, ib in
            // The narrowphase's first test, done here so a pair out of reach is not sorted.
            let (lo, hi) = ia < ib ? (sa, sb) : (sb, sa)
            return !World.reach(lo, hi, dt: sweep.dt, margin: sweep.margin, pos: pos, vel: sweep.vel, angVel: sweep.angVel,
                                ext: sweep.ext, grav: sweep.grav, tight: tightBoxes).apart
        }
        // From here the awake bodies meet static and sleeping ones, which do not move with the sweeping frame: each
        // awake tight box becomes its box swept in the world (the unswept boxes are not needed past this point).
        for s in 0..<n where boxes[s].lower.x <= boxes[s].upper.x { tight[s] = sweep.swept(tight[s], slot: s, shift: .zero) }
        let worldBoxes = UnsafeBufferPointer(start: tightBoxes, count: n)
        let inv = 1 / broadphase.cellSize
        let bodyIndex = columns.bodyIndex
        let classOf = bodies.collisionClass, flags = bodies.flags, slotOf = bodies.slot
        let matrix = collisionFilter.collides, classes = collisionFilter.classCount
        let allBoxes = UnsafeBufferPointer(start: UnsafePointer(columns.box), count: bodies.count)
        // Awake against static and sleeping bodies (none binned in cells: only the oversize ones, below).
        for s in 0..<(broadphase.staticGrid.used > 0 ? n : 0) {
            guard boxes[s].lower.x <= boxes[s].upper.x else { continue }
            let box = worldBoxes[s]
            let i = Int(bodyIndex[s])
            let c = cellCoord(box, inv: inv)
            if c.cellCount >= World.oversizeCells && c.cellCount > 4096 {
                // Huge: test every binned body once.
                for t in n..<bodies.count {
                    let j = Int(bodyIndex[t])
                    if flags[j] & BodyStore.binnedBit != 0 && box.overlaps(allBoxes[t]) && matrix[Int(classOf[i]) * classes + Int(classOf[j])] {
                        pairs.append(World.pairKey(i, j))
                    }
                }
                continue
            }
            queryStaticGrid(box: box, coord: c, body: i, inv: inv, classOf: classOf, boxes: allBoxes, slotOf: slotOf, into: &pairs)
        }
        // Oversize static bodies (long boundaries) against every awake body, the few of them in the outer loop.
        // (These two loops list the pairs `updatePairs`'s `staticPairs` lists for the kept candidates; listing them
        // body by body, as it does, measured 7% more instructions here on rain_1000's first 120 steps.)
        for so in broadphase.staticGrid.oversize {
            let j = Int(so)
            let boxB = allBoxes[Int(slotOf[j])]
            let row = Int(classOf[j]) * classes
            for s in 0..<n {
                guard boxes[s].lower.x <= boxes[s].upper.x, worldBoxes[s].overlaps(boxB) else { continue }
                let i = Int(bodyIndex[s])
                guard matrix[row + Int(classOf[i])] else { continue }
                pairs.append(World.pairKey(i, j))
            }
        }
        sortPairs(&pairs)
        dropRepeats(&pairs)
    }

    /// The full search of a calm scene: every pair of awake bodies whose fat boxes (`fat`) overlap, appended to
    /// `candidates` (unsorted; the caller adds the static pairs and sorts). The bodies are placed into `grid`'s cells
    /// for the steps after to search. Returns false, having listed nothing, when the cells in use do not span a small
    /// rectangle (sparse clusters): such a scene is searched every step.
    @inline(__always)
    func fullSearch(n: Int, grid: inout FatGrid, candidates: inout [UInt64], fat: Column<AABB>) -> Bool {
        let fatBoxes = fat.buffer(count: n)
        grid.oversize.removeAll(keepingCapacity: true)
        return bodies.withColumns { columns in
            searchGrid(n: n, boxes: fatBoxes, bodyIndex: columns.bodyIndex, into: &candidates, keep: &grid, accept: { _, _, _, _ in true })
        }
    }

    /// Pairs of awake bodies whose boxes (`boxes`, by slot; empty for a body that collides with nothing) overlap and
    /// whose classes collide, for which `accept(sa, sb, ia, ib)` holds, appended to `list` (unsorted; a pair of two
    /// oversize bodies twice). The boxes are placed by cell: when the cells in use span a small rectangle (the
    /// usual case) the entries are slots, placed straight into cell order (a counting sort with no second buffer)
    /// in the wide batches' borrowed buffer, or, with `keep`, in its cells, kept for the steps after (its corner,
    /// size and oversize bodies too); else the entries are cell key << 32 | slot, listed in slot order and radix
    /// sorted. A pair of boxes is listed from the cell holding the lower corner of their overlap only. Returns
    /// false, having listed nothing, when `keep` is given and the rectangle is not small.
    @discardableResult @inline(__always)
    func searchGrid(n: Int, boxes: UnsafeBufferPointer<AABB>, bodyIndex: UnsafeMutablePointer<Int32>, into list: inout [UInt64],
                    keep: UnsafeMutablePointer<FatGrid>? = nil, accept: (Int, Int, Int, Int) -> Bool) -> Bool {
        let inv = 1 / broadphase.cellSize
        let oversizeLimit = World.oversizeCells
        let classOf = bodies.collisionClass
        let matrix = collisionFilter.collides
        let classes = collisionFilter.classCount
        let boxBytes = UnsafeRawPointer(boxes.baseAddress!)
        var oversize = broadphase.awakeOversize; broadphase.awakeOversize = []
        oversize.removeAll(keepingCapacity: true)
        defer { broadphase.awakeOversize = oversize }
        // The rectangle of cells in use and the number of cell entries.
        var cx0 = Int32.max, cx1 = Int32.min, cy0 = Int32.max, cy1 = Int32.min
        var entryTotal = 0
        for s in 0..<n {
            let box = boxes[s]
            guard box.lower.x <= box.upper.x else { continue }
            let c = cellCoord(box, inv: inv)
            if c.cellCount >= oversizeLimit {
                oversize.append(Int32(s))
                continue
            }
            cx0 = Swift.min(cx0, c.x0); cx1 = Swift.max(cx1, c.x1)
            cy0 = Swift.min(cy0, c.y0); cy1 = Swift.max(cy1, c.y1)
            entryTotal += c.cellCount
        }
        let width = Int(cx1) - Int(cx0) + 1, height = Int(cy1) - Int(cy0) + 1
        let bucketed = entryTotal >= 128 && width > 0 && height > 0 && width * height <= 4 * entryTotal + 1024
        if keep != nil && !bucketed { return false }
        /// Slot s's rectangle of cells, computed again from its box as above (cheaper than keeping it), if it is
        /// placed in cells: it collides with something (else its box is empty) and it is not oversize.
        @inline(__always) func cells(_ s: Int) -> GridCoord? {
            let box = boxes[s]
            guard box.lower.x <= box.upper.x else { return nil }
            let c = cellCoord(box, inv: inv)
            return c.cellCount < oversizeLimit ? c : nil
        }
        /// Pairs within one cell (key `key`), whose slots are `slotAt(start ..< end)`. (`list` is passed, not
        /// captured: a captured local costs a run-time exclusivity check per access.)
        @inline(__always) func pairsWithin(_ key: UInt32, _ start: Int, _ end: Int, _ slotAt: (Int) -> Int,
                                           to list: inout [UInt64]) {
            for a in start..<(end - 1) {
                let sa = slotAt(a)
                let boxA = boxes[sa]
                let ia = Int(bodyIndex[sa])
                let rowA = Int(classOf[ia]) * classes
                // `boxA.overlaps(boxB)` in one comparison of four lanes (boxes hold no NaN): B's lower corner at
                // most A's upper, and A's lower at most B's upper.
                let inf = Float.infinity
                let upperA = SIMD4(boxA.upper.x, boxA.upper.y, inf, inf), lowerA = SIMD4(-inf, -inf, boxA.lower.x, boxA.lower.y)
                for b in (a + 1)..<end {
                    let sb = slotAt(b)
                    let b4 = boxBytes.loadUnaligned(fromByteOffset: sb &* MemoryLayout<AABB>.stride, as: SIMD4<Float>.self)
                    guard all((b4 .<= upperA) .& (lowerA .<= b4)) else { continue }
                    let ib = Int(bodyIndex[sb])
                    guard matrix[rowA + Int(classOf[ib])] else { continue }
                    guard World.cornerCellKey(boxA, boxes[sb], inv: inv) == key else { continue }
                    guard accept(sa, sb, ia, ib) else { continue }
                    list.append(World.pairKey(ia, ib))
                }
            }
        }
        if bucketed {
            // Within the rectangle, a cell's offsets from its corner are exact modulo 2¹⁶ (the width and height are
            // far below), so the 16-bit ranges give the cell (row-major) and the key alike.
            let x0 = UInt16(truncatingIfNeeded: cx0), y0 = UInt16(truncatingIfNeeded: cy0)
            let buckets = width * height
            /// Places the slots by cell into `entries`, counting in `next` (buckets + 1), then lists each cell's
            /// pairs; cell b's run then ends at next[b].
            @inline(__always) func place(_ next: UnsafeMutablePointer<Int32>, _ entries: UnsafeMutablePointer<UInt32>,
                                         into list: inout [UInt64]) {
                next.update(repeating: 0, count: buckets + 1)
                /// Slot s's cells as column and row ranges from the rectangle's corner, if placed.
                @inline(__always) func offsets(_ s: Int) -> (bx: Int, ex: Int, by: Int, ey: Int)? {
                    guard let c = cells(s) else { return nil }
                    let bx = Int(UInt16(truncatingIfNeeded: c.x0) &- x0), by = Int(UInt16(truncatingIfNeeded: c.y0) &- y0)
                    return (bx, bx + Int(c.x1 - c.x0), by, by + Int(c.y1 - c.y0))
                }
                for s in 0..<n {
                    guard let (bx, ex, by, ey) = offsets(s) else { continue }
                    for y in by...ey {
                        let row = y * width + 1
                        for x in bx...ex { next[row + x] += 1 }
                    }
                }
                for b in 0..<buckets { next[b + 1] += next[b] }
                for s in 0..<n {
                    guard let (bx, ex, by, ey) = offsets(s) else { continue }
                    for y in by...ey {
                        let row = y * width
                        for x in bx...ex {
                            let b = row + x
                            entries[Int(next[b])] = UInt32(truncatingIfNeeded: s)
                            next[b] += 1
                        }
                    }
                }
                // Cell b's run ends where the placement left its count, and starts where cell b − 1's ends.
                var start = 0
                for b in 0..<buckets {
                    let end = Int(next[b])
                    if end - start > 1 {
                        let y = b / width, x = b - y * width
                        let key = UInt32(UInt16(truncatingIfNeeded: y) &+ y0) << 16 | UInt32(UInt16(truncatingIfNeeded: x) &+ x0)
                        pairsWithin(key, start, end, { Int(entries[$0]) }, to: &list)
                    }
                    start = end
                }
            }
            if let grid = keep {
                grid.pointee.x0 = x0; grid.pointee.y0 = y0; grid.pointee.width = width; grid.pointee.height = height
                grid.pointee.ends.removeAll(keepingCapacity: true)
                grid.pointee.ends.append(contentsOf: repeatElement(0, count: buckets + 1))
                grid.pointee.slots.removeAll(keepingCapacity: true)
                grid.pointee.slots.append(contentsOf: repeatElement(0, count: entryTotal))
                grid.pointee.ends.withUnsafeMutableBufferPointer { cb in
                    grid.pointee.slots.withUnsafeMutableBufferPointer { eb in
                        place(cb.baseAddress!, eb.baseAddress!, into: &list)
                    }
                }
                grid.pointee.oversize = oversize
            } else {
                if broadphase.bucketCounts.count < buckets + 1 {
                    broadphase.bucketCounts.append(contentsOf: repeatElement(0, count: buckets + 1 - broadphase.bucketCounts.count))
                }
                let entries = contactSolver.wide.borrowBytes(entryTotal * 4).bindMemory(to: UInt32.self, capacity: entryTotal)
                contactSolver.borrowedByBroadphase.wide = World.elements(entryTotal * 4, of: WideContactBatch.self)
                broadphase.bucketCounts.withUnsafeMutableBufferPointer { cb in place(cb.baseAddress!, entries, into: &list) }
            }
        } else {
            var cellEntries = self.broadphase.cellEntries; self.broadphase.cellEntries = []
            cellEntries.removeAll(keepingCapacity: true)
            defer { self.broadphase.cellEntries = cellEntries }
            if cellEntries.capacity < entryTotal { cellEntries.reserveCapacity(entryTotal + entryTotal / 8) }
            for s in 0..<n {
                guard let c = cells(s) else { continue }
                for y in c.y0...c.y1 {
                    for x in c.x0...c.x1 { cellEntries.append(UInt64(cellKey(x, y)) << 32 | UInt64(s)) }
                }
            }
            radixSort(&cellEntries, scratch: &broadphase.sortScratch, counts: &broadphase.sortCounts)
            cellEntries.withUnsafeBufferPointer { entries in
                var start = 0
                let total = entries.count
                while start < total {
                    let key = UInt32(truncatingIfNeeded: entries[start] >> 32)
                    var end = start + 1
                    while end < total && UInt32(truncatingIfNeeded: entries[end] >> 32) == key { end += 1 }
                    if end - start > 1 {
                        pairsWithin(key, start, end, { Int(entries[$0] & 0xFFFF_FFFF) }, to: &list)
                    }
                    start = end
                }
            }
        }
        // Oversize bodies against all other awake bodies.
        for so in oversize {
            let sa = Int(so)
            let boxA = boxes[sa]
            let ia = Int(bodyIndex[sa])
            for sb in 0..<n where sb != sa {
                let boxB = boxes[sb]
                guard boxB.lower.x <= boxB.upper.x, boxA.overlaps(boxB) else { continue }
                let ib = Int(bodyIndex[sb])
                guard matrix[Int(classOf[ia]) * classes + Int(classOf[ib])] else { continue }
                guard accept(sa, sb, ia, ib) else { continue }
                list.append(World.pairKey(ia, ib))
            }
        }
        return true
    }

    /// Sorts pair keys: a counting sort by the lower id when there are fewer ids than about four pairs each, then
    /// each id's few pairs in order; else a radix sort.
    func sortPairs(_ list: inout [UInt64]) {
        if list.count >= 128 && bodies.idCapacity <= 4 * list.count + 1024 {
            bucketSort(&list, counts: &broadphase.bucketCounts, bucketCount: bodies.idCapacity) { p in
                Int(truncatingIfNeeded: p >> 32)
            }
        } else {
            radixSort(&list, scratch: &broadphase.sortScratch, counts: &broadphase.sortCounts)
        }
    }

    /// Drops repeated keys from a sorted list.
    func dropRepeats(_ list: inout [UInt64]) {
        let kept = list.withUnsafeMutableBufferPointer { b -> Int in
            var w = 0
            for r in 0..<b.count where r == 0 || b[r] != b[w - 1] { b[w] = b[r]; w += 1 }
            return w
        }
        list.removeLast(list.count - kept)
    }

    /// Merges the sorted `fresh` pairs (repeats allowed) into the sorted, unique `candidates`, keeping them unique:
    /// in place, from the back, so no second list is kept.
    func mergeCandidates(_ candidates: inout [UInt64], _ fresh: [UInt64]) {
        let oldCount = candidates.count
        candidates.append(contentsOf: repeatElement(0, count: fresh.count))
        let kept = candidates.withUnsafeMutableBufferPointer { a -> Int in
            fresh.withUnsafeBufferPointer { b -> Int in
                var i = oldCount - 1, j = b.count - 1, w = a.count - 1
                while j >= 0 {
                    let next: UInt64
                    if i >= 0 && a[i] >= b[j] {
                        next = a[i]
                        if a[i] == b[j] { j -= 1 }
                        i -= 1
                    } else {
                        next = b[j]; j -= 1
                    }
                    if w + 1 < a.count && a[w + 1] == next { continue }   // a repeat of the one written last
                    a[w] = next; w -= 1
                }
                // The candidates below i are in place; the merged run starts at w + 1, leaving a gap if repeats were
                // dropped: close it.
                let gap = w - i
                if gap > 0 {
                    for k in (w + 1)..<a.count { a[k - gap] = a[k] }
                }
                return a.count - gap
            }
        }
        candidates.removeLast(candidates.count - kept)
    }

    @inline(__always) func queryStaticGrid(box: AABB, coord c: GridCoord, body i: Int, inv: Float, classOf: [UInt16],
                                           boxes: UnsafeBufferPointer<AABB>, slotOf: [Int32], into pairs: inout [UInt64]) {
        let row = Int(classOf[i]) * collisionFilter.classCount
        for y in c.y0...c.y1 {
            for x in c.x0...c.x1 {
                let key = cellKey(x, y)
                var e = broadphase.staticGrid.head(key)
                while e >= 0 {
                    let j = Int(broadphase.staticGrid.entryBody[Int(e)])
                    e = broadphase.staticGrid.entryNext[Int(e)]
                    let sb = boxes[Int(slotOf[j])]
                    guard box.overlaps(sb), collisionFilter.collides[row + Int(classOf[j])] else { continue }
                    guard World.cornerCellKey(box, sb, inv: inv) == key else { continue }
                    pairs.append(World.pairKey(i, j))
                }
            }
        }
    }
}
