/// Sorts 64-bit keys in place with an LSD radix sort (8-bit digits), skipping digits on which all keys agree; fewer
/// than 128 keys by insertion, in place (the standard library's sort takes a buffer from the heap for more than a
/// few). Deterministic; `scratch` is reused between calls so a steady-state step allocates nothing.
func radixSort(_ keys: inout [UInt64], scratch: inout [UInt64], counts: inout [Int]) {
    let n = keys.count
    if n < 128 {
        keys.withUnsafeMutableBufferPointer { k in
            for i in 1..<Swift.max(n, 1) {
                let key = k[i]
                var j = i
                while j > 0 && k[j - 1] > key { k[j] = k[j - 1]; j -= 1 }
                k[j] = key
            }
        }
        return
    }
    if scratch.count < n { scratch.append(contentsOf: repeatElement(0, count: n - scratch.count)) }
    if counts.count < 256 { counts = [Int](repeating: 0, count: 256) }
    var orAll: UInt64 = 0, andAll: UInt64 = ~0
    for k in keys { orAll |= k; andAll &= k }
    let varying = orAll ^ andAll
    keys.withUnsafeMutableBufferPointer { kb in
        scratch.withUnsafeMutableBufferPointer { sb in
            counts.withUnsafeMutableBufferPointer { cb in
                var src = kb.baseAddress!, dst = sb.baseAddress!
                let c = cb.baseAddress!
                var inScratch = false
                for pass in 0..<8 {
                    let shift = UInt64(pass * 8)
                    if (varying >> shift) & 0xFF == 0 { continue }
                    c.update(repeating: 0, count: 256)
                    for i in 0..<n { c[Int((src[i] >> shift) & 0xFF)] += 1 }
                    var sum = 0
                    for i in 0..<256 { let t = c[i]; c[i] = sum; sum += t }
                    for i in 0..<n {
                        let k = src[i]
                        let d = Int((k >> shift) & 0xFF)
                        dst[c[d]] = k
                        c[d] += 1
                    }
                    swap(&src, &dst)
                    inScratch.toggle()
                }
                if inScratch { kb.baseAddress!.update(from: src, count: n) }
            }
        }
    }
}

/// Sorts keys by a bucket number in 0..<bucketCount, then each bucket's run by the whole key, in place: one
/// counting pass, then elements are swapped straight to their bucket's next free place (an American flag sort, no
/// second buffer), then each run (a few keys) by insertion. With few buckets per key this is about two passes where
/// the radix sort above makes four to eight, and it needs no scratch the size of the keys.
///
/// The broadphase sorts its cell entries by cell (then slot) and its pairs by lower body id (then the higher one).
/// Keys are distinct, so the result equals a sort by the whole key whatever the order the swaps leave in a run.
///
/// `counts` holds two Int32 per bucket (each bucket's next free place and its end).
@inline(__always)
func bucketSort(_ keys: inout [UInt64], counts: inout [Int32], bucketCount: Int, bucket: (UInt64) -> Int) {
    let n = keys.count
    let need = 2 * bucketCount + 1
    if counts.count < need { counts.append(contentsOf: repeatElement(0, count: need - counts.count)) }
    keys.withUnsafeMutableBufferPointer { kb in
        counts.withUnsafeMutableBufferPointer { cb in
            let k = kb.baseAddress!
            // next[b] at c[b]; end[b] at c[bucketCount + 1 + b] (c[bucketCount] is the counting pass's spare).
            let next = cb.baseAddress!, end = cb.baseAddress! + (bucketCount + 1)
            next.update(repeating: 0, count: bucketCount + 1)
            for i in 0..<n { next[bucket(k[i]) + 1] += 1 }
            for b in 0..<bucketCount { next[b + 1] += next[b] }
            for b in 0..<bucketCount { end[b] = next[b + 1] }
            // Each swap puts one key in its final bucket for good.
            for b in 0..<bucketCount {
                let e = Int(end[b])
                var i = Int(next[b])
                while i < e {
                    var key = k[i]
                    var d = bucket(key)
                    while d != b {
                        let j = Int(next[d])
                        next[d] += 1
                        swap(&key, &k[j])
                        d = bucket(key)
                    }
                    k[i] = key
                    i += 1
                }
                next[b] = Int32(e)
            }
            var start = 0
            for b in 0..<bucketCount {
                let e = Int(end[b])
                if e - start > 1 {
                    for i in (start + 1)..<e {
                        let key = k[i]
                        var j = i
                        while j > start && k[j - 1] > key { k[j] = k[j - 1]; j -= 1 }
                        k[j] = key
                    }
                }
                start = e
            }
        }
    }
}
