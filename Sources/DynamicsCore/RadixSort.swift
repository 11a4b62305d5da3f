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
