/// Sorts 64-bit keys in place with an LSD radix sort (16-bit digits), skipping digits on which all keys agree.
/// Stable and deterministic; `scratch` is reused between calls so a steady-state step allocates nothing.
@usableFromInline
func radixSort(_ keys: inout [UInt64], scratch: inout [UInt64], counts: inout [Int]) {
    let n = keys.count
    if n < 64 {
        keys.sort()
        return
    }
    if scratch.count < n { scratch.append(contentsOf: repeatElement(0, count: n - scratch.count)) }
    if counts.count < 65536 { counts = [Int](repeating: 0, count: 65536) }
    // Which digits vary?
    var orAll: UInt64 = 0, andAll: UInt64 = ~0
    for k in keys { orAll |= k; andAll &= k }
    let varying = orAll ^ andAll
    keys.withUnsafeMutableBufferPointer { kb in
        scratch.withUnsafeMutableBufferPointer { sb in
            counts.withUnsafeMutableBufferPointer { cb in
                var src = kb.baseAddress!, dst = sb.baseAddress!
                let c = cb.baseAddress!
                var inScratch = false
                for pass in 0..<4 {
                    let shift = UInt64(pass * 16)
                    if (varying >> shift) & 0xFFFF == 0 { continue }
                    for i in 0..<65536 { c[i] = 0 }
                    for i in 0..<n { c[Int((src[i] >> shift) & 0xFFFF)] += 1 }
                    var sum = 0
                    for i in 0..<65536 { let t = c[i]; c[i] = sum; sum += t }
                    for i in 0..<n {
                        let k = src[i]
                        let d = Int((k >> shift) & 0xFFFF)
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
