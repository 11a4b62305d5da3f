import DynamicsSIMD

// The grid searches that list pairs of overlapping boxes: the exact search of a moving scene, the full search that
// keeps candidates in a calm one, and the sorting and merging of pair keys.
extension World {
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
        // From here the awake bodies meet static and sleeping ones, which do not move with the sweeping frame.
        appendStaticPairs(n: n, boxes: boxes, tight: tight, sweep: sweep, columns: columns, to: &pairs)
        sortPairs(&pairs)
        dropRepeats(&pairs)
    }

    /// The pairs of the awake bodies with static and sleeping ones, appended to `list` (unsorted, with repeats), for
    /// the exact search and a moving grid: each awake tight box (`tight`) becomes its box swept in the world (the
    /// unswept boxes are not needed past this point), which is searched against them (`AwakeStatics`). Each body's
    /// own: in blocks on the workers for many bodies, each block listing its pairs into a list of its own, joined in
    /// block order.
    @inline(__always)
    func appendStaticPairs(n: Int, boxes: UnsafeBufferPointer<AABB>, tight: UnsafeMutablePointer<AABB>, sweep: SweepTerms,
                           columns: BodyColumns, to list: inout [UInt64]) {
        forEachBlock(count: n, minimumBlock: workers.sweepBlock, parallelMinimum: workers.parallelSweep) { range in
            for s in range where boxes[s].lower.x <= boxes[s].upper.x { tight[s] = sweep.swept(tight[s], slot: s, shift: .zero) }
        }
        let statics = AwakeStatics(self, n: n, boxes: boxes, worldBoxes: UnsafeBufferPointer(start: UnsafePointer(tight), count: n),
                                   columns: columns)
        if let executor = executor(work: n, minimum: workers.parallelSweep) {
            let blocks = Swift.max(2, Swift.min(WorkerState.maximumBlocks, n / workers.sweepBlock))
            fillBlockPairs(executor, blocks: blocks) { k, blockList in statics.pairs(World.block(k, of: blocks, count: n), into: &blockList) }
            appendBlockPairs(blocks, to: &list)
        } else {
            statics.pairs(0..<n, into: &list)
        }
    }

    /// The pairs of awake bodies with static and sleeping ones, for the exact search and a moving grid: each awake
    /// slot's box swept in the world (`worldBoxes`; `boxes`, swept in the common frame, tells whether it collides at
    /// all) against the binned bodies by their cells and against the oversize ones.
    struct AwakeStatics {
        let n: Int
        let boxes: UnsafeBufferPointer<AABB>, worldBoxes: UnsafeBufferPointer<AABB>, allBoxes: UnsafeBufferPointer<AABB>
        let bodyIndex: UnsafeMutablePointer<Int32>
        let inv: Float
        let classOf: [UInt16], flags: [UInt8], slotOf: [Int32], matrix: [Bool], classes: Int
        let staticCells: Bool, oversizeStatics: [Int32]
        let world: World

        init(_ world: World, n: Int, boxes: UnsafeBufferPointer<AABB>, worldBoxes: UnsafeBufferPointer<AABB>, columns: BodyColumns) {
            self.world = world; self.n = n; self.boxes = boxes; self.worldBoxes = worldBoxes
            allBoxes = UnsafeBufferPointer(start: UnsafePointer(columns.box), count: world.bodies.count)
            bodyIndex = columns.bodyIndex
            inv = 1 / world.broadphase.cellSize
            classOf = world.bodies.collisionClass; flags = world.bodies.flags; slotOf = world.bodies.slot
            matrix = world.collisionFilter.collides; classes = world.collisionFilter.classCount
            staticCells = world.broadphase.staticGrid.used > 0
            oversizeStatics = world.broadphase.staticGrid.oversize
        }

        /// The pairs of the awake slots `range` with static and sleeping bodies, appended to `list`.
        @inline(__always) func pairs(_ range: Range<Int>, into list: inout [UInt64]) {
            let bodyCount = allBoxes.count
            // Against the binned ones, by their cells.
            if staticCells {
                for s in range {
                    guard boxes[s].lower.x <= boxes[s].upper.x else { continue }
                    let box = worldBoxes[s]
                    let i = Int(bodyIndex[s])
                    let c = world.cellCoord(box, inv: inv)
                    if c.cellCount >= World.oversizeCells && c.cellCount > 4096 {
                        // Huge: test every binned body once.
                        for t in n..<bodyCount {
                            let j = Int(bodyIndex[t])
                            if flags[j] & BodyStore.binnedBit != 0 && box.overlaps(allBoxes[t]) && matrix[Int(classOf[i]) * classes + Int(classOf[j])] {
                                list.append(World.pairKey(i, j))
                            }
                        }
                        continue
                    }
                    world.queryStaticGrid(box: box, coord: c, body: i, inv: inv, classOf: classOf, boxes: allBoxes, slotOf: slotOf, into: &list)
                }
            }
            // Oversize static bodies (long boundaries) against every awake body, the few of them in the outer loop.
            // (These two loops list the pairs `updatePairs`'s `staticPairs` lists for the kept candidates; listing them
            // body by body, as it does, measured 7% more instructions here on rain_1000's first 120 steps.)
            for so in oversizeStatics {
                let j = Int(so)
                let boxB = allBoxes[Int(slotOf[j])]
                let row = Int(classOf[j]) * classes
                for s in range {
                    guard boxes[s].lower.x <= boxes[s].upper.x, worldBoxes[s].overlaps(boxB) else { continue }
                    let i = Int(bodyIndex[s])
                    guard matrix[row + Int(classOf[i])] else { continue }
                    list.append(World.pairKey(i, j))
                }
            }
        }
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
                /// Counts slots `range`'s entries per cell into `count` (zeroed, `buckets` long).
                @inline(__always) func countEntries(_ range: Range<Int>, _ count: UnsafeMutablePointer<Int32>) {
                    for s in range {
                        guard let (bx, ex, by, ey) = offsets(s) else { continue }
                        for y in by...ey {
                            let row = y * width
                            for x in bx...ex { count[row + x] += 1 }
                        }
                    }
                }
                /// Writes slots `range`'s entries, each cell's at `place[cell]` onwards (advancing it).
                @inline(__always) func placeEntries(_ range: Range<Int>, _ place: UnsafeMutablePointer<Int32>) {
                    for s in range {
                        guard let (bx, ex, by, ey) = offsets(s) else { continue }
                        for y in by...ey {
                            let row = y * width
                            for x in bx...ex {
                                let b = row + x
                                entries[Int(place[b])] = UInt32(truncatingIfNeeded: s)
                                place[b] += 1
                            }
                        }
                    }
                }
                if let executor = executor(work: entryTotal, minimum: workers.parallelCellEntries) {
                    // On the workers: fixed blocks of slots each count their entries per cell; the counts become each
                    // block's place in each cell, the blocks in slot order (so each cell lists its slots in the order
                    // one pass gives); each block writes its entries there. `next` then holds each cell's end.
                    let blocks = Swift.max(2, Swift.min(8, entryTotal / workers.cellEntryBlock))
                    if broadphase.placeCounts.count < blocks * buckets {
                        broadphase.placeCounts.append(contentsOf: repeatElement(0, count: blocks * buckets - broadphase.placeCounts.count))
                    }
                    broadphase.placeCounts.withUnsafeMutableBufferPointer { cb in
                        let counts = cb.baseAddress!
                        runParallel(executor, blocks) { k in
                            let row = counts + k * buckets
                            row.update(repeating: 0, count: buckets)
                            countEntries(World.block(k, of: blocks, count: n), row)
                        }
                        var end: Int32 = 0
                        for b in 0..<buckets {
                            for k in 0..<blocks {
                                let count = counts[k * buckets + b]
                                counts[k * buckets + b] = end
                                end += count
                            }
                            next[b] = end
                        }
                        next[buckets] = end
                        runParallel(executor, blocks) { k in
                            placeEntries(World.block(k, of: blocks, count: n), counts + k * buckets)
                        }
                    }
                } else {
                    countEntries(0..<n, next + 1)
                    for b in 0..<buckets { next[b + 1] += next[b] }
                    placeEntries(0..<n, next)
                }
                // Cell b's run ends where the placement left its count, and starts where cell b − 1's ends.
                /// The pairs of cells `cells` into `out`.
                @inline(__always) func searchCells(_ cells: Range<Int>, into out: inout [UInt64]) {
                    var start = cells.lowerBound == 0 ? 0 : Int(next[cells.lowerBound - 1])
                    for b in cells {
                        let end = Int(next[b])
                        if end - start > 1 {
                            let y = b / width, x = b - y * width
                            let key = UInt32(UInt16(truncatingIfNeeded: y) &+ y0) << 16 | UInt32(UInt16(truncatingIfNeeded: x) &+ x0)
                            pairsWithin(key, start, end, { Int(entries[$0]) }, to: &out)
                        }
                        start = end
                    }
                }
                guard let executor = executor(work: entryTotal, minimum: workers.parallelCellEntries) else {
                    searchCells(0..<buckets, into: &list)
                    return
                }
                // On the workers: blocks of cells holding about equal numbers of entries, each listing its pairs into
                // a list of its own, joined in block order (the same pairs in the same order as one pass).
                let blocks = Swift.max(1, Swift.min(WorkerState.maximumBlocks, entryTotal / workers.cellEntryBlock))
                withUnsafeTemporaryAllocation(of: Int.self, capacity: blocks + 1) { first in
                    first[0] = 0
                    for k in 1..<blocks {
                        // The first cell whose run ends past k/blocks of the entries.
                        let target = Int32(k * entryTotal / blocks)
                        var lo = first[k - 1], hi = buckets
                        while lo < hi { let mid = (lo + hi) / 2; if next[mid] <= target { lo = mid + 1 } else { hi = mid } }
                        first[k] = lo
                    }
                    first[blocks] = buckets
                    fillBlockPairs(executor, blocks: blocks) { k, blockList in searchCells(first[k]..<first[k + 1], into: &blockList) }
                    appendBlockPairs(blocks, to: &list)
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
            if cellEntries.capacity < entryTotal { cellEntries.reserveCapacity(grownCapacity(entryTotal, from: cellEntries.capacity)) }
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
        if sortPairsOnWorkers(&list) { return }
        if list.count >= 128 && bodies.idCapacity <= 4 * list.count + 1024 {
            bucketSort(&list, counts: &broadphase.bucketCounts, bucketCount: bodies.idCapacity) { p in
                Int(truncatingIfNeeded: p >> 32)
            }
        } else {
            radixSort(&list, scratch: &broadphase.sortScratch, counts: &broadphase.sortCounts)
        }
    }

    /// Runs `fill(k, &list)` for each of `blocks` blocks on `executor`, each into a pair list of its own (the
    /// broadphase's `blockPairs`, emptied first and kept for the next pass); `appendBlockPairs` then joins them.
    @inline(__always)
    func fillBlockPairs(_ executor: StepExecutor, blocks: Int, _ fill: (Int, inout [UInt64]) -> Void) {
        if broadphase.blockPairs.count < blocks {
            broadphase.blockPairs.append(contentsOf: repeatElement([], count: blocks - broadphase.blockPairs.count))
        }
        broadphase.blockPairs.withUnsafeMutableBufferPointer { lists in
            runParallel(executor, blocks) { k in
                // Taken out while filled (see `filterCandidates`: no store into `lists` per pair).
                var blockList = lists[k]
                lists[k] = []
                blockList.removeAll(keepingCapacity: true)
                fill(k, &blockList)
                lists[k] = blockList
            }
        }
    }

    /// Appends the first `blocks` lists `fillBlockPairs` filled to `list`, in block order.
    @inline(__always)
    func appendBlockPairs(_ blocks: Int, to list: inout [UInt64]) {
        for k in 0..<blocks { list.append(contentsOf: broadphase.blockPairs[k]) }
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
}
