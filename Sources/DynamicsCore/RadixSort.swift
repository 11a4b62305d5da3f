/// Sorts 64-bit keys in place with an LSD radix sort (8-bit digits), skipping digits on which all keys agree.
/// Stable and deterministic; `scratch` is reused between calls so a steady-state step allocates nothing.
@usableFromInline
func radixSort(_ keys: inout [UInt64], scratch: inout [UInt64], counts: inout [Int]) {
    let n = keys.count
    if n < 128 {
        keys.sort()
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

/// Sorts keys by a bucket number in 0..<bucketCount (a counting sort: one counting pass, one placing pass, stable),
/// then, if `refine`, each bucket's run by the whole key (insertion sort: buckets are a few keys each). With
/// few buckets per key this is two passes where the radix sort above makes four to eight.
///
/// The broadphase sorts its cell entries by cell (the entries of a cell are made in slot order, and stay in it) and
/// its pairs by lower body id, then by the higher one. The results equal a sort by the whole key.
@inline(__always)
func bucketSort(_ keys: inout [UInt64], scratch: inout [UInt64], counts: inout [Int32], bucketCount: Int, refine: Bool,
                bucket: (UInt64) -> Int) {
    let n = keys.count
    if scratch.count < n { scratch.append(contentsOf: repeatElement(0, count: n - scratch.count)) }
    if counts.count < bucketCount + 1 { counts.append(contentsOf: repeatElement(0, count: bucketCount + 1 - counts.count)) }
    keys.withUnsafeMutableBufferPointer { kb in
        scratch.withUnsafeMutableBufferPointer { sb in
            counts.withUnsafeMutableBufferPointer { cb in
                let src = kb.baseAddress!, dst = sb.baseAddress!, c = cb.baseAddress!
                c.update(repeating: 0, count: bucketCount + 1)
                for i in 0..<n { c[bucket(src[i]) + 1] += 1 }
                for b in 0..<bucketCount { c[b + 1] += c[b] }
                for i in 0..<n {
                    let k = src[i], b = bucket(k)
                    dst[Int(c[b])] = k
                    c[b] += 1
                }
                // c[b] is now the end of bucket b (and c[b − 1] its start).
                if refine {
                    var start = 0
                    for b in 0..<bucketCount {
                        let end = Int(c[b])
                        if end - start > 1 {
                            for i in (start + 1)..<end {
                                let k = dst[i]
                                var j = i
                                while j > start && dst[j - 1] > k { dst[j] = dst[j - 1]; j -= 1 }
                                dst[j] = k
                            }
                        }
                        start = end
                    }
                }
                src.update(from: dst, count: n)
            }
        }
    }
}
