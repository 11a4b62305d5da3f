import DynamicsSIMD

// The static grid: static and sleeping bodies binned by cell, and the queries of an awake body's box against it.
extension World {
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
