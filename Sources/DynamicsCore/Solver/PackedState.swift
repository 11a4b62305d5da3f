// What the wide solvers (WideJoints.swift, WideContacts.swift) share in Swift: the order of their coloured
// constraints. Their packed body state, one 16-byte quadruple per entry ((vx, vy, ω, 0) for velocities, (x, y, cos,
// sin) for poses), is read and written by the C passes (DynamicsSIMD/PackedOps.h).

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
