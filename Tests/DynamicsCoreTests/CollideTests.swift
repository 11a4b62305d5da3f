import XCTest
@testable import DynamicsCore
import DynamicsSIMD

/// The separating-axis search of the narrowphase.
final class CollideTests: XCTestCase {
    /// Up to four vertices are tested four lanes at once: the same edge and separation as one vertex at a time, for
    /// segments, triangles and boxes in many poses, touching, overlapping and apart (stale values past the vertex
    /// count in the buffer must not count).
    func test_fourLaneSeparation_matchesTheScalarSearch() {
        let n = maxPolygonVertices
        let buffer = UnsafeMutablePointer<Vec2>.allocate(capacity: 4 * n)
        defer { buffer.deallocate() }
        var state: UInt32 = 12345
        func unit() -> Float { state = state &* 1664525 &+ 1013904223; return Float(state >> 8) / Float(1 << 24) }
        func polygon(_ base: UnsafeMutablePointer<Vec2>, sides: Int, at c: Vec2, angle: Float, size: Float) -> WorldPolygon {
            let verts = base, normals = base + n
            // Stale values past the count.
            for k in 0..<n { verts[k] = Vec2(1e6 * unit(), -1e6 * unit()); normals[k] = Vec2(unit(), unit()) }
            let q = Rotation(angle: angle)
            let local: [Vec2]
            switch sides {
            case 2: local = [Vec2(-size, 0), Vec2(size, 0)]
            case 3: local = [Vec2(-size, -size), Vec2(size, -size), Vec2(0, size)]
            default: local = [Vec2(-size, -size), Vec2(size, -size), Vec2(size, size), Vec2(-size, size)]
            }
            for k in 0..<sides { verts[k] = c + q.rotate(local[k]) }
            for k in 0..<sides {
                let e = verts[k + 1 == sides ? 0 : k + 1] - verts[k]
                normals[k] = sides == 2 && k == 1 ? -normals[0] : normalized(rightPerp(e))
            }
            return WorldPolygon(vertices: verts, normals: normals, count: sides)
        }
        var compared = 0
        for _ in 0..<3000 {
            let sa = [2, 3, 4][Int(unit() * 3)], sb = [2, 3, 4][Int(unit() * 3)]
            let a = polygon(buffer, sides: sa, at: Vec2(100 * unit(), 100 * unit()), angle: 7 * unit(), size: 5 + 20 * unit())
            let b = polygon(buffer + 2 * n, sides: sb, at: Vec2(100 * unit(), 100 * unit()), angle: 7 * unit(), size: 5 + 20 * unit())
            for (p, q) in [(a, b), (b, a)] {
                let wide = findMaxSeparation(p, q), scalar = findMaxSeparationScalar(p, q)
                XCTAssertEqual(wide.edge, scalar.edge)
                XCTAssertEqual(wide.separation, scalar.separation)
                compared += 1
            }
        }
        XCTAssertEqual(compared, 6000)
    }
}
