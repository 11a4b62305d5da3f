// The packed body state of the wide solvers (WideJoints.swift, WideContacts.swift): one 16-byte quadruple per
// entry, (vx, vy, ω, 0) for velocities and (x, y, cos, sin) for poses, so that the four lanes of a batch side are
// four aligned loads and a 4×4 transpose.

import DynamicsSIMD

/// The quadruples of four entries as four vectors: all first components, all second, all third, all fourth.
@inline(__always)
func packedGather(_ base: UnsafeMutableRawPointer, _ e: (Int, Int, Int, Int)) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
    typealias V = SIMD4<Float>
    let r0 = (base + 16 &* e.0).load(as: V.self), r1 = (base + 16 &* e.1).load(as: V.self)
    let r2 = (base + 16 &* e.2).load(as: V.self), r3 = (base + 16 &* e.3).load(as: V.self)
    let t0 = dk_ziplo4(r0, r1), t1 = dk_ziplo4(r2, r3), t2 = dk_ziphi4(r0, r1), t3 = dk_ziphi4(r2, r3)
    // Barriers: without them LLVM pushes the arithmetic back through the transposes into partial vectors.
    return (dk_opaque4(dk_lohalves4(t0, t1)), dk_opaque4(dk_hihalves4(t0, t1)),
            dk_opaque4(dk_lohalves4(t2, t3)), dk_opaque4(dk_hihalves4(t2, t3)))
}

/// Writes four entries' velocities (vx, vy, ω, 0) from the lane vectors.
@inline(__always)
func packedScatter(_ base: UnsafeMutableRawPointer, _ e: (Int, Int, Int, Int), _ vx: SIMD4<Float>, _ vy: SIMD4<Float>, _ w: SIMD4<Float>) {
    typealias V = SIMD4<Float>
    let z = V.zero, vx = dk_opaque4(vx), vy = dk_opaque4(vy), w = dk_opaque4(w)
    let t0 = dk_ziplo4(vx, vy), t1 = dk_ziplo4(w, z), t2 = dk_ziphi4(vx, vy), t3 = dk_ziphi4(w, z)
    (base + 16 &* e.0).storeBytes(of: dk_lohalves4(t0, t1), as: V.self)
    (base + 16 &* e.1).storeBytes(of: dk_hihalves4(t0, t1), as: V.self)
    (base + 16 &* e.2).storeBytes(of: dk_lohalves4(t2, t3), as: V.self)
    (base + 16 &* e.3).storeBytes(of: dk_hihalves4(t2, t3), as: V.self)
}

/// Four entry numbers read one by one from memory (`SIMD4<Int32>` storage): scalar loads address the entries
/// directly, where lanes taken out of a vector register cost several shuffles each.
@inline(__always)
func packedEntries(_ p: UnsafePointer<SIMD4<Int32>>) -> (Int, Int, Int, Int) {
    let r = UnsafeRawPointer(p)
    return (Int(r.load(as: Int32.self)), Int(r.load(fromByteOffset: 4, as: Int32.self)),
            Int(r.load(fromByteOffset: 8, as: Int32.self)), Int(r.load(fromByteOffset: 12, as: Int32.self)))
}

/// The first two components of four entries (vx, vy or x, y) as two vectors: 8-byte loads and one split.
@inline(__always)
func packedGatherPairs(_ base: UnsafeMutableRawPointer, _ e: (Int, Int, Int, Int)) -> (SIMD4<Float>, SIMD4<Float>) {
    typealias H = SIMD2<Float>
    let a = SIMD4(lowHalf: (base + 16 &* e.0).load(as: H.self), highHalf: (base + 16 &* e.1).load(as: H.self))
    let b = SIMD4(lowHalf: (base + 16 &* e.2).load(as: H.self), highHalf: (base + 16 &* e.3).load(as: H.self))
    return (dk_opaque4(dk_even4(a, b)), dk_opaque4(dk_odd4(a, b)))
}

/// Writes the first two components of four entries (the linear velocities), leaving the others as they are.
@inline(__always)
func packedScatterPairs(_ base: UnsafeMutableRawPointer, _ e: (Int, Int, Int, Int), _ x: SIMD4<Float>, _ y: SIMD4<Float>) {
    typealias H = SIMD2<Float>
    let x = dk_opaque4(x), y = dk_opaque4(y)
    let lo = dk_ziplo4(x, y), hi = dk_ziphi4(x, y)
    (base + 16 &* e.0).storeBytes(of: lo.lowHalf, as: H.self)
    (base + 16 &* e.1).storeBytes(of: lo.highHalf, as: H.self)
    (base + 16 &* e.2).storeBytes(of: hi.lowHalf, as: H.self)
    (base + 16 &* e.3).storeBytes(of: hi.highHalf, as: H.self)
}

/// Orders coloured constraints colour by colour for the wide solvers' batches. `coloured` holds
/// `colour << 32 | index` in constraint order and `colourStart[c + 1]` the number of colour c (`colourStart[0]` is 0);
/// afterwards `sorted` holds the indices, colour-major and in constraint order within a colour (a counting sort), and
/// `colourStart[c]` the end of colour c.
@inline(__always)
func sortByColour(_ coloured: [UInt64], into sorted: inout [Int32], colourStart: inout [Int]) {
    if sorted.count < coloured.count { sorted.append(contentsOf: repeatElement(0, count: coloured.count - sorted.count)) }
    colourStart.withUnsafeMutableBufferPointer { next in
        for c in 0..<(next.count - 1) { next[c + 1] += next[c] }
        sorted.withUnsafeMutableBufferPointer { out in
            for e in coloured {
                let c = Int(e >> 32)
                out[next[c]] = Int32(truncatingIfNeeded: e & 0xFFFF_FFFF)
                next[c] += 1
            }
        }
    }
}
