// What the wide solvers (WideJoints.swift, WideContacts.swift) share in Swift: the order of their colored
// constraints. Their packed body state, one 16-byte quadruple per entry ((vx, vy, ω, 0) for velocities, (x, y, cos,
// sin) for poses), is read and written by the C passes (DynamicsSIMD/PackedOps.h).

/// Orders colored constraints color by color for the wide solvers' batches. `colored` holds
/// `color << 32 | index` in constraint order and `colorStart[c + 1]` the number of color c (`colorStart[0]` is 0);
/// afterwards `sorted` holds the indices, color-major and in constraint order within a color (a counting sort), and
/// `colorStart[c]` the end of color c.
@inline(__always)
func sortByColor(_ colored: [UInt64], into sorted: inout [Int32], colorStart: inout [Int]) {
    if sorted.count < colored.count { sorted.append(contentsOf: repeatElement(0, count: colored.count - sorted.count)) }
    colorStart.withUnsafeMutableBufferPointer { next in
        for c in 0..<(next.count - 1) { next[c + 1] += next[c] }
        sorted.withUnsafeMutableBufferPointer { out in
            for e in colored {
                let c = Int(e >> 32)
                out[next[c]] = Int32(truncatingIfNeeded: e & 0xFFFF_FFFF)
                next[c] += 1
            }
        }
    }
}
