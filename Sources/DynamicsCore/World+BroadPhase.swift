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
        shapes.withUnsafeBufferPointer { sh in
            polygonVertices.withUnsafeBufferPointer { pv in
                bodyBox(id: i, slot: s, shapes: sh.baseAddress!, vertices: pv.baseAddress)
            }
        }
    }

    /// `bodyBox(id:slot:)` over the shape and vertex tables' storage (a loop over many bodies takes them once).
    @inline(__always) func bodyBox(id i: Int, slot s: Int, shapes sh: UnsafePointer<ShapeRecord>,
                                   vertices pv: UnsafePointer<Vec2>?) -> AABB {
        let p = bodies.position[s], q = bodies.rotation[s]
        var lo = Vec2(repeating: .greatestFiniteMagnitude), hi = Vec2(repeating: -.greatestFiniteMagnitude)
        let start = Int(bodies.shapeStart[i]), n = Int(bodies.shapeCount[i])
        for k in start..<(start + n) {
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
        if settings.gridCellSize > 0 { cellSize = settings.gridCellSize; return }
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
        cellSize = Swift.max(2 * median * 2, 4)
    }

    /// Puts a static or sleeping body into the static grid.
    func bin(id i: Int) {
        precondition(!bodies.isBinned(i))
        if cellSize == 0 { bodies.setBinned(i, false); return } // binned when the grid is first sized
        let s = Int(bodies.slot[i])
        var box = bodyBox(id: i, slot: s)
        let m = settings.speculativeDistance
        box.lower -= m; box.upper += m
        bodies.box[s] = box
        bodies.setBinned(i, true)
        let c = cellCoord(box, inv: 1 / cellSize)
        if c.cellCount >= World.oversizeCells {
            staticGrid.oversize.append(Int32(i))
            return
        }
        for y in c.y0...c.y1 { for x in c.x0...c.x1 { staticGrid.insert(body: Int32(i), key: cellKey(x, y)) } }
    }

    func unbin(id i: Int) {
        precondition(bodies.isBinned(i))
        bodies.setBinned(i, false)
        let c = cellCoord(bodies.box[Int(bodies.slot[i])], inv: 1 / cellSize)
        if c.cellCount >= World.oversizeCells {
            if let k = staticGrid.oversize.firstIndex(of: Int32(i)) { staticGrid.oversize.remove(at: k) }
            return
        }
        for y in c.y0...c.y1 { for x in c.x0...c.x1 { staticGrid.remove(body: Int32(i), key: cellKey(x, y)) } }
    }

    /// Re-sizes the grid and re-bins every static and sleeping body.
    func rebuildStaticGrid() {
        chooseCellSize()
        staticGrid.removeAll()
        for i in 0..<bodies.idCapacity where bodies.slot[i] >= 0 { bodies.setBinned(i, false) }
        for s in bodies.awakeCount..<bodies.count { bin(id: Int(bodies.bodyIndex[s])) }
    }

    /// Stage 3a: candidate pairs. Fills `pairs` with sorted, unique (lower id << 32 | higher id) keys.
    func updatePairs(dt: Float) {
        if cellSize == 0 { rebuildStaticGrid() }
        var pairs = self.pairs; self.pairs = []
        var cellEntries = self.cellEntries; self.cellEntries = []
        pairs.removeAll(keepingCapacity: true)
        cellEntries.removeAll(keepingCapacity: true)
        awakeOversize.removeAll(keepingCapacity: true)
        defer {
            self.pairs = pairs; self.cellEntries = cellEntries
        }
        let n = bodies.awakeCount
        broadphaseBorrowed = (0, 0)
        // Nothing collides (a swarm driven by fields, a joint grid): no pairs, no work per body.
        guard classActive.contains(true) else { return }
        // The awake bodies' unswept boxes, by slot, and below the bucketed cell entries, live in the buffers of this
        // step's scalar contact constraints and wide contact batches, which are rebuilt after the narrowphase: the
        // two passes' temporaries share memory (`StepTable.borrowBytes`). The cell entries, the larger scratch, go
        // to the wide batches, the table a step with many contacts fills.
        @inline(__always) func elements<T>(_ bytes: Int, of: T.Type) -> Int {
            (bytes + MemoryLayout<T>.stride - 1) / MemoryLayout<T>.stride
        }
        let tight = constraints.borrowBytes(n * MemoryLayout<AABB>.stride).bindMemory(to: AABB.self, capacity: n)
        broadphaseBorrowed.constraints = elements(n * MemoryLayout<AABB>.stride, of: ContactConstraint.self)
        var slotEntries: UnsafeMutablePointer<UInt32>?
        let inv = 1 / cellSize
        let margin = settings.speculativeDistance
        let vel = bodies.velocity.base, angVel = bodies.angularVelocity.base, ext = bodies.extent.base
        let grav = bodies.gravity.base, bodyIndex = bodies.bodyIndex.base
        let classOf = bodies.collisionClass
        let active = classActive
        // The awake slots' swept boxes are written over the first n of the box column; the static and sleeping
        // bodies' binned boxes follow, at their slots.
        let boxBuffer = UnsafeMutableBufferPointer(start: bodies.box.base, count: bodies.count)
        let boxes = UnsafeBufferPointer(boxBuffer)
        let boxBytes = UnsafeRawPointer(bodies.box.base)
        let flags = bodies.flags, slotOf = bodies.slot
        let oversizeLimit = World.oversizeCells

        // Swept boxes: the tight box grown by how far the body can travel this step, in a frame that moves by the
        // awake bodies' mean displacement `shift`. Two bodies can meet only by their displacement relative to each
        // other, which is the same in any frame moving uniformly; items falling together thus stay out of each
        // other's cells, as if at rest. (Static and sleeping bodies do not move with that frame: the awake bodies
        // are tested against them with their boxes swept in the world, below.) The rectangle of cells in use and
        // the number of cell entries are noted on the way, for the entries below.
        let dt2 = dt * dt
        var shift = Vec2.zero
        for s in 0..<n { shift += dt * vel[s] + dt2 * grav[s] }
        shift /= Float(Swift.max(n, 1))
        if !(shift.x.isFinite && shift.y.isFinite) { shift = .zero }
        /// Slot s's tight box grown by how far the body can travel this step, less the frame's displacement
        /// (`.zero`: swept in the world; subtracting zero changes no bit).
        @inline(__always) func swept(_ tightBox: AABB, slot s: Int, shift: Vec2) -> AABB {
            var box = tightBox
            let d = (dt * vel[s] + dt2 * grav[s]) - shift
            let spin = abs(angVel[s]) * ext[s] * dt
            box.lower += minimum(d, .zero) - (margin + spin)
            box.upper += maximum(d, .zero) + (margin + spin)
            return box
        }
        var cx0 = Int32.max, cx1 = Int32.min, cy0 = Int32.max, cy1 = Int32.min
        var entryTotal = 0
        shapes.withUnsafeBufferPointer { shapeBuffer in
        polygonVertices.withUnsafeBufferPointer { vertexBuffer in
            let shapeBase = shapeBuffer.baseAddress!, vertexBase = vertexBuffer.baseAddress
            for s in 0..<n {
                let i = Int(bodyIndex[s])
                if !active[Int(classOf[i])] {
                    boxBuffer[s] = AABB(lower: Vec2(1, 1), upper: Vec2(-1, -1))
                    continue
                }
                let tightBox = bodyBox(id: i, slot: s, shapes: shapeBase, vertices: vertexBase)
                tight[s] = tightBox
                let box = swept(tightBox, slot: s, shift: shift)
                boxBuffer[s] = box
                let c = cellCoord(box, inv: inv)
                if c.cellCount >= oversizeLimit {
                    self.awakeOversize.append(Int32(s))
                    continue
                }
                cx0 = Swift.min(cx0, c.x0); cx1 = Swift.max(cx1, c.x1)
                cy0 = Swift.min(cy0, c.y0); cy1 = Swift.max(cy1, c.y1)
                entryTotal += c.cellCount
            }
        }
        }
        // One entry per cell of each binned awake box, by cell, then slot. When the cells in use span a small
        // rectangle (the usual case), the entries are slots (in the wide batches' borrowed buffer), placed straight
        // into cell order: the boxes' cells are counted per cell, then each slot is written at its cell's next
        // place, in slot order (a counting sort with no second buffer); the counts then mark where each cell's run
        // ends. Else the entries are cell key << 32 | slot (`cellEntries`), listed in slot order and radix sorted.
        let width = Int(cx1) - Int(cx0) + 1, height = Int(cy1) - Int(cy0) + 1
        let bucketed = entryTotal >= 128 && width > 0 && height > 0 && width * height <= 4 * entryTotal + 1024
        // Within the rectangle, a cell's offsets from its corner are exact modulo 2¹⁶ (the width and height are far
        // below), so the 16-bit ranges give the bucket (row-major) and the key alike.
        let x0 = UInt16(truncatingIfNeeded: cx0), y0 = UInt16(truncatingIfNeeded: cy0)
        let buckets = bucketed ? width * height : 0
        /// Slot s's rectangle of cells, computed again from its swept box as above (cheaper than keeping it), if
        /// it is binned: its class collides with something (else its box is empty) and it is not oversize.
        @inline(__always) func cells(_ s: Int) -> GridCoord? {
            let box = boxes[s]
            guard box.lower.x <= box.upper.x else { return nil }
            let c = cellCoord(box, inv: inv)
            return c.cellCount < oversizeLimit ? c : nil
        }
        if bucketed {
            if bucketCounts.count < buckets + 1 {
                bucketCounts.append(contentsOf: repeatElement(0, count: buckets + 1 - bucketCounts.count))
            }
            let entries = wideContacts.borrowBytes(entryTotal * 4).bindMemory(to: UInt32.self, capacity: entryTotal)
            broadphaseBorrowed.wide = elements(entryTotal * 4, of: WideContactBatch.self)
            slotEntries = entries
            bucketCounts.withUnsafeMutableBufferPointer { cb in
                let next = cb.baseAddress!
                next.update(repeating: 0, count: buckets + 1)
                /// Slot s's cells as column and row ranges from the rectangle's corner, if binned.
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
            }
        } else {
            if cellEntries.capacity < entryTotal { cellEntries.reserveCapacity(entryTotal + entryTotal / 8) }
            for s in 0..<n {
                guard let c = cells(s) else { continue }
                for y in c.y0...c.y1 {
                    for x in c.x0...c.x1 { cellEntries.append(UInt64(cellKey(x, y)) << 32 | UInt64(s)) }
                }
            }
            radixSort(&cellEntries, scratch: &sortScratch, counts: &sortCounts)
        }
        let oversizeStatics = staticGrid.oversize
        let awakeOversize = self.awakeOversize

        let matrix = collides
        let classes = classCount
        let pos = bodies.position.base
        /// Lists the pair of two awake bodies (slots sa, sb; ids ia, ib) unless it is out of reach this step: the
        /// narrowphase's first test, done here so such a pair is neither sorted nor visited (the lower id's body
        /// first, as there).
        /// (`pairs` is passed, not captured: a captured local costs a run-time exclusivity check per access.)
        @inline(__always) func addAwakePair(_ sa: Int, _ sb: Int, _ ia: Int, _ ib: Int, to pairs: inout [UInt64]) {
            let (lo, hi) = ia < ib ? (sa, sb) : (sb, sa)
            if World.reach(lo, hi, dt: dt, margin: margin, pos: pos, vel: vel, angVel: angVel, ext: ext, grav: grav,
                           tight: UnsafePointer(tight)).apart { return }
            pairs.append(ia < ib ? UInt64(ia) << 32 | UInt64(ib) : UInt64(ib) << 32 | UInt64(ia))
        }
        /// Awake against awake within one cell (key `key`), whose slots are `slotAt(start ..< end)`: a pair is
        /// listed from the cell holding the lower corner of its boxes' overlap only.
        @inline(__always) func pairsWithin(_ key: UInt32, _ start: Int, _ end: Int, _ slotAt: (Int) -> Int,
                                           to pairs: inout [UInt64]) {
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
                    let boxB = boxes[sb]
                    let ib = Int(bodyIndex[sb])
                    guard matrix[rowA + Int(classOf[ib])] else { continue }
                    guard World.cornerCellKey(boxA, boxB, inv: inv) == key else { continue }
                    addAwakePair(sa, sb, ia, ib, to: &pairs)
                }
            }
        }
        if bucketed {
            // Cell b's run ends where the placement left its count, and starts where cell b − 1's ends.
            bucketCounts.withUnsafeBufferPointer { ends in
                let entries = slotEntries!
                var start = 0
                for b in 0..<buckets {
                    let end = Int(ends[b])
                    if end - start > 1 {
                        let y = b / width, x = b - y * width
                        let key = UInt32(UInt16(truncatingIfNeeded: y) &+ y0) << 16 | UInt32(UInt16(truncatingIfNeeded: x) &+ x0)
                        pairsWithin(key, start, end, { Int(entries[$0]) }, to: &pairs)
                    }
                    start = end
                }
            }
        } else {
            cellEntries.withUnsafeBufferPointer { entries in
                var start = 0
                let total = entries.count
                while start < total {
                    let key = UInt32(truncatingIfNeeded: entries[start] >> 32)
                    var end = start + 1
                    while end < total && UInt32(truncatingIfNeeded: entries[end] >> 32) == key { end += 1 }
                    if end - start > 1 {
                        pairsWithin(key, start, end, { Int(entries[$0] & 0xFFFF_FFFF) }, to: &pairs)
                    }
                    start = end
                }
            }
        }

        // Oversize awake bodies against all other awake bodies.
        for (k, so) in awakeOversize.enumerated() {
            let sa = Int(so)
            let boxA = boxes[sa]
            let ia = Int(bodyIndex[sa])
            for sb in 0..<n where sb != sa {
                // Pairs of two oversize bodies are found once, from the earlier one.
                if let later = awakeOversize.firstIndex(of: Int32(sb)), later <= k { continue }
                let boxB = boxes[sb]
                guard boxB.lower.x <= boxB.upper.x, boxA.overlaps(boxB) else { continue }
                let ib = Int(bodyIndex[sb])
                guard matrix[Int(classOf[ia]) * classes + Int(classOf[ib])] else { continue }
                addAwakePair(sa, sb, ia, ib, to: &pairs)
            }
        }

        // From here the awake bodies meet static and sleeping ones, which do not move with the sweeping frame: each
        // awake tight box becomes its box swept in the world (the unswept boxes are not needed past this point).
        for s in 0..<n where boxes[s].lower.x <= boxes[s].upper.x { tight[s] = swept(tight[s], slot: s, shift: .zero) }
        let worldBoxes = UnsafeBufferPointer(start: UnsafePointer(tight), count: n)

        // Awake against static and sleeping bodies (none binned in cells: only the oversize ones, below).
        for s in 0..<(staticGrid.used > 0 ? n : 0) {
            guard boxes[s].lower.x <= boxes[s].upper.x else { continue }
            let box = worldBoxes[s]
            let i = Int(bodyIndex[s])
            let c = cellCoord(box, inv: inv)
            if c.cellCount >= oversizeLimit && c.cellCount > 4096 {
                // Huge: test every binned body once.
                for t in n..<bodies.count {
                    let j = Int(bodyIndex[t])
                    if flags[j] & BodyStore.binnedBit != 0 && box.overlaps(boxes[t]) && matrix[Int(classOf[i]) * classes + Int(classOf[j])] {
                        pairs.append(i < j ? UInt64(i) << 32 | UInt64(j) : UInt64(j) << 32 | UInt64(i))
                    }
                }
                continue
            }
            queryStaticGrid(box: box, coord: c, body: i, inv: inv, classOf: classOf, boxes: boxes, slotOf: slotOf, into: &pairs)
        }

        // Oversize static bodies (long boundaries) against every awake body.
        for so in oversizeStatics {
            let j = Int(so)
            let boxB = boxes[Int(slotOf[j])]
            let row = Int(classOf[j]) * classes
            for s in 0..<n {
                guard boxes[s].lower.x <= boxes[s].upper.x else { continue }
                let boxA = worldBoxes[s]
                guard boxA.overlaps(boxB) else { continue }
                let i = Int(bodyIndex[s])
                guard matrix[row + Int(classOf[i])] else { continue }
                pairs.append(i < j ? UInt64(i) << 32 | UInt64(j) : UInt64(j) << 32 | UInt64(i))
            }
        }
        // Pairs by lower id, then higher id: a counting sort by the lower id when there are fewer ids than about four
        // pairs each, then each id's few pairs in order.
        if pairs.count >= 128 && bodies.idCapacity <= 4 * pairs.count + 1024 {
            bucketSort(&pairs, counts: &bucketCounts, bucketCount: bodies.idCapacity) { p in
                Int(truncatingIfNeeded: p >> 32)
            }
        } else {
            radixSort(&pairs, scratch: &sortScratch, counts: &sortCounts)
        }
        // Oversize paths can repeat a pair; drop repeats (pairs are sorted).
        if !awakeOversize.isEmpty {
            var w = 0
            for r in 0..<pairs.count where r == 0 || pairs[r] != pairs[w - 1] { pairs[w] = pairs[r]; w += 1 }
            pairs.removeLast(pairs.count - w)
        }
    }

    @inline(__always) func queryStaticGrid(box: AABB, coord c: GridCoord, body i: Int, inv: Float, classOf: [UInt16],
                                           boxes: UnsafeBufferPointer<AABB>, slotOf: [Int32], into pairs: inout [UInt64]) {
        let row = Int(classOf[i]) * classCount
        for y in c.y0...c.y1 {
            for x in c.x0...c.x1 {
                let key = cellKey(x, y)
                var e = staticGrid.head(key)
                while e >= 0 {
                    let j = Int(staticGrid.entryBody[Int(e)])
                    e = staticGrid.entryNext[Int(e)]
                    let sb = boxes[Int(slotOf[j])]
                    guard box.overlaps(sb), collides[row + Int(classOf[j])] else { continue }
                    guard World.cornerCellKey(box, sb, inv: inv) == key else { continue }
                    pairs.append(i < j ? UInt64(i) << 32 | UInt64(j) : UInt64(j) << 32 | UInt64(i))
                }
            }
        }
    }
}
