// Sorting pair keys on the workers.
//
// A pair key is lower id << 32 | higher id. The sorted list of a set of keys is one list whatever sorts it, so the
// workers' sort gives the bits the caller's thread alone gives (`sortPairs`' bucket or radix sort): the step stays
// the same for every worker count.

extension World {
    /// Sorts `list` on the workers when it is long enough to pay for them: returns false, having done nothing, when
    /// the caller's thread should sort it alone.
    ///
    /// A counting sort by a coarse bucket of the lower id (about eight keys a bucket), in four passes over fixed
    /// blocks of keys and of buckets: each key block counts its keys per bucket; the counts become each block's place
    /// in each bucket (on the caller's thread: buckets × blocks additions); each key block moves its keys to their
    /// places in `scratch`; each bucket block sorts its buckets' short runs and copies them back.
    func sortPairsOnWorkers(_ list: inout [UInt64]) -> Bool {
        let n = list.count
        guard let executor = executor(work: n, minimum: workers.parallelSortKeys) else { return false }
        // Coarse buckets: the lower id shifted right until there are at most about n / 8 of them.
        let idCount = Swift.max(bodies.idCapacity, 1)
        var shift = 0
        while (idCount - 1) >> shift >= Swift.max(n / 8, 64) { shift += 1 }
        let buckets = ((idCount - 1) >> shift) + 1
        let keyShift = UInt64(32 + shift)
        let blocks = Swift.max(2, Swift.min(WorkerState.maximumBlocks / 4, n / workers.sortBlock))
        // One row of counts per key block, then the buckets' starts (buckets + 1).
        let need = blocks * buckets + buckets + 1
        if broadphase.sortCounts.count < need { broadphase.sortCounts.append(contentsOf: repeatElement(0, count: need - broadphase.sortCounts.count)) }
        if broadphase.sortScratch.count < n { broadphase.sortScratch.append(contentsOf: repeatElement(0, count: n - broadphase.sortScratch.count)) }
        list.withUnsafeMutableBufferPointer { keysBuffer in
            broadphase.sortScratch.withUnsafeMutableBufferPointer { scratchBuffer in
                broadphase.sortCounts.withUnsafeMutableBufferPointer { countsBuffer in
                    let keys = keysBuffer.baseAddress!, scratch = scratchBuffer.baseAddress!
                    let counts = countsBuffer.baseAddress!, bucketStart = counts + blocks * buckets
                    runParallel(executor, blocks) { b in
                        let row = counts + b * buckets
                        row.update(repeating: 0, count: buckets)
                        for i in World.block(b, of: blocks, count: n) { row[Int(keys[i] >> keyShift)] += 1 }
                    }
                    // Bucket by bucket, block by block: each block's keys follow the earlier blocks' in every bucket.
                    var place = 0
                    for c in 0..<buckets {
                        bucketStart[c] = place
                        for b in 0..<blocks {
                            let k = b * buckets + c
                            let count = counts[k]
                            counts[k] = place
                            place += count
                        }
                    }
                    bucketStart[buckets] = place
                    runParallel(executor, blocks) { b in
                        let row = counts + b * buckets
                        for i in World.block(b, of: blocks, count: n) {
                            let key = keys[i]
                            let c = Int(key >> keyShift)
                            scratch[row[c]] = key
                            row[c] += 1
                        }
                    }
                    // Bucket blocks of about equal numbers of keys: block b takes the buckets starting in its share.
                    runParallel(executor, blocks) { b in
                        let keyBlock = World.block(b, of: blocks, count: n)
                        let from = keyBlock.lowerBound, to = keyBlock.upperBound
                        guard from < to else { return }
                        // The first bucket starting at or after `from`, and the first starting at or after `to`.
                        @inline(__always) func firstBucket(atOrAfter place: Int) -> Int {
                            var lo = 0, hi = buckets
                            while lo < hi { let mid = (lo + hi) / 2; if bucketStart[mid] < place { lo = mid + 1 } else { hi = mid } }
                            return lo
                        }
                        let first = b == 0 ? 0 : firstBucket(atOrAfter: from)
                        let last = to == n ? buckets : firstBucket(atOrAfter: to)
                        for c in first..<last {
                            let start = bucketStart[c], end = bucketStart[c + 1]
                            if end - start > 1 { World.sortRun(scratch + start, end - start) }
                        }
                        let start = bucketStart[first], end = bucketStart[last]
                        if end > start { (keys + start).update(from: scratch + start, count: end - start) }
                    }
                }
            }
        }
        return true
    }

    /// Block `k` of `blocks` about equal consecutive blocks of `0 ..< count` (empty when there are more blocks than
    /// elements).
    @inline(__always)
    static func block(_ k: Int, of blocks: Int, count: Int) -> Range<Int> {
        (k * count / blocks)..<((k + 1) * count / blocks)
    }

    /// Sorts `count` keys at `keys` in place: by insertion when few (a bucket's run is a few keys), else by the
    /// standard library's sort (a body with many pairs, a boundary under a pile).
    @inline(__always)
    static func sortRun(_ keys: UnsafeMutablePointer<UInt64>, _ count: Int) {
        if count > 32 {
            var run = UnsafeMutableBufferPointer(start: keys, count: count)
            run.sort()
            return
        }
        for i in 1..<count {
            let key = keys[i]
            var j = i
            while j > 0 && keys[j - 1] > key { keys[j] = keys[j - 1]; j -= 1 }
            keys[j] = key
        }
    }
}
