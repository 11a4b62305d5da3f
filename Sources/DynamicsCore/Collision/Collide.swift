// Narrowphase: contact manifolds between convex shapes in world coordinates.
//
// Shapes are circles and convex polygons; a segment is handled as a two-sided polygon of two vertices (edge 0
// with normal n, edge 1 with normal -n). Manifolds hold points whose separation is at most `speculativeReach`, so contacts
// are speculative: the solver lets a separated pair close exactly its gap in one substep and no further, which is
// how a fast item is stopped without tunnelling (Box2D v3's speculative contacts; the distance grows with the
// pair's speed here, see `World.narrowphase`).

/// A polygon (or segment) in world coordinates, in caller-owned buffers.
struct WorldPolygon {
    var vertices: UnsafeMutablePointer<Vec2>
    var normals: UnsafeMutablePointer<Vec2>
    var count: Int
}

/// For each edge of `p`, the smallest signed distance of `q`'s vertices to it; returns the edge with the largest.
/// `q`'s buffer must hold room for four vertices (the scratch polygons hold `maxPolygonVertices`).
@inline(__always)
func findMaxSeparation(_ p: WorldPolygon, _ q: WorldPolygon) -> (edge: Int, separation: Float) {
    var bestEdge = 0
    var best = -Float.greatestFiniteMagnitude
    if q.count <= 4 {
        // Up to four vertices at once: their x and y in four lanes, lanes past the count repeating the first vertex
        // (the smallest distance is unchanged). The distances are the scalar ones, lane for lane.
        let raw = UnsafeRawPointer(q.vertices)
        let a = raw.loadUnaligned(as: SIMD4<Float>.self), b = raw.loadUnaligned(fromByteOffset: 16, as: SIMD4<Float>.self)
        let unused = SIMD4<Int32>(0, 1, 2, 3) .>= Int32(q.count)
        let xs = SIMD4(lowHalf: a.evenHalf, highHalf: b.evenHalf).replacing(with: a[0], where: unused)
        let ys = SIMD4(lowHalf: a.oddHalf, highHalf: b.oddHalf).replacing(with: a[1], where: unused)
        for i in 0..<p.count {
            let n = p.normals[i], v = p.vertices[i]
            let d = n.x * (xs - v.x) + n.y * (ys - v.y)
            let d2 = d.lowHalf.replacing(with: d.highHalf, where: d.highHalf .< d.lowHalf)
            let si = d2.y < d2.x ? d2.y : d2.x
            if si > best { best = si; bestEdge = i }
        }
        return (bestEdge, best)
    }
    return findMaxSeparationScalar(p, q)
}

/// `findMaxSeparation` one vertex at a time (any vertex count).
@inline(__always)
func findMaxSeparationScalar(_ p: WorldPolygon, _ q: WorldPolygon) -> (edge: Int, separation: Float) {
    var bestEdge = 0
    var best = -Float.greatestFiniteMagnitude
    for i in 0..<p.count {
        let n = p.normals[i], v = p.vertices[i]
        var si = Float.greatestFiniteMagnitude
        for j in 0..<q.count {
            let s = dot(n, q.vertices[j] - v)
            if s < si { si = s }
        }
        if si > best { best = si; bestEdge = i }
    }
    return (bestEdge, best)
}

/// A convex outline in world coordinates, as the separating-axis collision reads it (`collideOutlines`): a polygon
/// or segment in buffers (`WorldPolygon`), or a quad in four lanes (`WorldQuad`).
protocol ConvexOutline {
    /// For each edge of `p`, the smallest signed distance of `q`'s vertices to it; the edge with the largest (the
    /// first on a tie).
    static func maxSeparation(_ p: Self, _ q: Self) -> (edge: Int, separation: Float)
    func vertex(_ i: Int) -> Vec2
    func normal(_ i: Int) -> Vec2
    /// The edge (and vertex) after `i`, wrapping.
    func edge(after i: Int) -> Int
    /// The edge whose normal is most anti-parallel to `n`, by `dot(n, normal)` (the first on a tie).
    func incidentEdge(_ n: Vec2) -> Int
}

/// The manifold of two outlines by the separating axis test and reference-face clipping; normal from a to b.
@inline(__always)
func collideOutlines<P: ConvexOutline>(_ a: P, _ b: P, speculativeReach: Float, linearSlop: Float) -> Manifold {
    let (edgeA, sepA) = P.maxSeparation(a, b)
    if sepA > speculativeReach { return Manifold() }
    let (edgeB, sepB) = P.maxSeparation(b, a)
    if sepB > speculativeReach { return Manifold() }

    let flip = referenceIsB(sepA, sepB, linearSlop: linearSlop)
    let ref = flip ? b : a
    let inc = flip ? a : b
    let refEdge = flip ? edgeB : edgeA
    let n = ref.normal(refEdge)
    let incEdge = inc.incidentEdge(n)
    let i2 = inc.edge(after: incEdge)
    return clipIncidentEdge(inc.vertex(incEdge), inc.vertex(i2), ids: (UInt32(incEdge), UInt32(i2)),
                            reference: (ref.vertex(refEdge), ref.vertex(ref.edge(after: refEdge))), normal: n,
                            feature: (flip ? 0x10000 : 0) | UInt32(refEdge) << 8, flip: flip, speculativeReach: speculativeReach)
}

extension WorldPolygon: ConvexOutline {
    @inline(__always) static func maxSeparation(_ p: WorldPolygon, _ q: WorldPolygon) -> (edge: Int, separation: Float) {
        findMaxSeparation(p, q)
    }
    @inline(__always) func vertex(_ i: Int) -> Vec2 { vertices[i] }
    @inline(__always) func normal(_ i: Int) -> Vec2 { normals[i] }
    @inline(__always) func edge(after i: Int) -> Int { i + 1 == count ? 0 : i + 1 }
    @inline(__always) func incidentEdge(_ n: Vec2) -> Int {
        var edge = 0
        var minDot = Float.greatestFiniteMagnitude
        for j in 0..<count {
            let d = dot(n, normals[j])
            if d < minDot { minDot = d; edge = j }
        }
        return edge
    }
}

/// Polygon–polygon (and segment) manifold by the separating axis test and reference-face clipping.
func collidePolygons(_ a: WorldPolygon, _ b: WorldPolygon, speculativeReach: Float, linearSlop: Float) -> Manifold {
    collideOutlines(a, b, speculativeReach: speculativeReach, linearSlop: linearSlop)
}

/// Whether B's face (at separation `sepB`) is the reference rather than A's (at `sepA`): A is preferred unless B's
/// is clearly better; the tolerance keeps the choice from flickering between steps for nearly parallel faces.
@inline(__always)
func referenceIsB(_ sepA: Float, _ sepB: Float, linearSlop: Float) -> Bool { sepB > sepA + 0.1 * linearSlop }

/// The manifold of a reference face (r1 → r2, outward normal `n`) and the incident edge (v1, v2; feature ids
/// `ids`): the incident edge clipped to the slab of the reference edge, and its ends within `speculativeReach` of the face
/// kept as points midway between the surfaces. `feature` holds the reference side and edge of the points' ids;
/// `flip`: the reference face is B's (the normal then points from A to B as −n).
@inline(__always)
func clipIncidentEdge(_ incident1: Vec2, _ incident2: Vec2, ids: (UInt32, UInt32), reference: (Vec2, Vec2), normal n: Vec2,
                      feature featureBase: UInt32, flip: Bool, speculativeReach: Float) -> Manifold {
    var m = Manifold()
    var v1 = incident1, v2 = incident2
    let (id1, id2) = ids
    let (r1, r2) = reference
    let edge = r2 - r1
    let edgeLength = length(edge)
    guard edgeLength > 0 else { return m }
    let t = edge / edgeLength

    // Clip the incident segment to the slab [0, edgeLength] along the reference edge.
    var s1 = dot(v1 - r1, t), s2 = dot(v2 - r1, t)
    if s1 < 0 && s2 < 0 || s1 > edgeLength && s2 > edgeLength {
        // The incident edge lies beside the reference face (a corner case of separated shapes): keep the nearer
        // end as a single point so the pair still has a speculative point.
        let v = abs(s1 - Swift.min(Swift.max(s1, 0), edgeLength)) <= abs(s2 - Swift.min(Swift.max(s2, 0), edgeLength)) ? v1 : v2
        let sep = dot(v - r1, n)
        if sep > speculativeReach { return m }
        var p = ManifoldPoint()
        p.point = v - 0.5 * sep * n
        p.separation = sep
        p.id = featureBase | (v == v1 ? id1 : id2)
        m.normal = flip ? -n : n
        m.points.0 = p
        m.pointCount = 1
        return m
    }
    if s1 < 0 { v1 = v1 + (0 - s1) / (s2 - s1) * (v2 - v1); s1 = 0 }
    else if s1 > edgeLength { v1 = v1 + (edgeLength - s1) / (s2 - s1) * (v2 - v1); s1 = edgeLength }
    if s2 < 0 { v2 = v1 + (0 - s1) / (s2 - s1) * (v2 - v1) }
    else if s2 > edgeLength { v2 = v1 + (edgeLength - s1) / (s2 - s1) * (v2 - v1) }

    let sep1 = dot(v1 - r1, n), sep2 = dot(v2 - r1, n)
    var count = 0
    if sep1 <= speculativeReach {
        var p = ManifoldPoint()
        p.point = v1 - 0.5 * sep1 * n
        p.separation = sep1
        p.id = featureBase | id1
        m.points.0 = p
        count = 1
    }
    if sep2 <= speculativeReach {
        var p = ManifoldPoint()
        p.point = v2 - 0.5 * sep2 * n
        p.separation = sep2
        p.id = featureBase | id2
        if count == 0 { m.points.0 = p } else { m.points.1 = p }
        count += 1
    }
    m.pointCount = count
    m.normal = flip ? -n : n
    return m
}

/// Polygon (A) against circle (B).
func collidePolygonCircle(_ a: WorldPolygon, center c: Vec2, radius r: Float, speculativeReach: Float) -> Manifold {
    var m = Manifold()
    var best = -Float.greatestFiniteMagnitude
    var edge = 0
    for i in 0..<a.count {
        let s = dot(a.normals[i], c - a.vertices[i])
        if s > best { best = s; edge = i }
    }
    if best - r > speculativeReach { return m }
    let v1 = a.vertices[edge]
    let v2 = a.vertices[edge + 1 == a.count ? 0 : edge + 1]
    var normal = a.normals[edge]
    var sep = best - r
    var id = UInt32(edge)
    if best > 0 {
        // Outside the face: the closest feature may be a vertex.
        let u1 = dot(c - v1, v2 - v1)
        let u2 = dot(c - v2, v1 - v2)
        if u1 < 0 {
            let d = c - v1
            let dist = length(d)
            if dist - r > speculativeReach { return m }
            normal = dist > 0 ? d / dist : normal
            sep = dist - r
            id = 0x100 | UInt32(edge)
        } else if u2 < 0 {
            let d = c - v2
            let dist = length(d)
            if dist - r > speculativeReach { return m }
            normal = dist > 0 ? d / dist : normal
            sep = dist - r
            id = 0x200 | UInt32(edge)
        }
    }
    var p = ManifoldPoint()
    p.point = c - (r + 0.5 * sep) * normal
    p.separation = sep
    p.id = id
    m.normal = normal
    m.points.0 = p
    m.pointCount = 1
    return m
}

/// Circle (A) against circle (B).
func collideCircles(centerA: Vec2, radiusA: Float, centerB: Vec2, radiusB: Float, speculativeReach: Float) -> Manifold {
    var m = Manifold()
    let d = centerB - centerA
    let dist = length(d)
    let sep = dist - radiusA - radiusB
    if sep > speculativeReach { return m }
    let normal = dist > 1e-6 ? d / dist : Vec2(0, 1)
    var p = ManifoldPoint()
    p.point = centerA + (radiusA + 0.5 * sep) * normal
    p.separation = sep
    m.normal = normal
    m.points.0 = p
    m.pointCount = 1
    return m
}

/// A polygon of four vertices in world coordinates, in four lanes: the vertices' x and y and the edge normals' x and
/// y (edge i runs from vertex i to vertex i + 1). Boxes, the common case, meet each other through `collideQuads`
/// without writing their world polygons to memory.
struct WorldQuad {
    var x: SIMD4<Float>, y: SIMD4<Float>, nx: SIMD4<Float>, ny: SIMD4<Float>

    @inline(__always) init(x: SIMD4<Float>, y: SIMD4<Float>, nx: SIMD4<Float>, ny: SIMD4<Float>) {
        self.x = x; self.y = y; self.nx = nx; self.ny = ny
    }

    /// The four vertices at `vertices` and normals at `normals` (body frame) placed at (p, q): `p + q.rotate(v)`
    /// and `q.rotate(n)`, lane for lane (the arithmetic of `World.loadPolygon`).
    @inline(__always)
    init(vertices: UnsafePointer<Vec2>, normals: UnsafePointer<Vec2>, p: Vec2, q: Rotation) {
        let v = UnsafeRawPointer(vertices), n = UnsafeRawPointer(normals)
        let v01 = v.loadUnaligned(as: SIMD4<Float>.self), v23 = v.loadUnaligned(fromByteOffset: 16, as: SIMD4<Float>.self)
        let n01 = n.loadUnaligned(as: SIMD4<Float>.self), n23 = n.loadUnaligned(fromByteOffset: 16, as: SIMD4<Float>.self)
        let lx = SIMD4(lowHalf: v01.evenHalf, highHalf: v23.evenHalf), ly = SIMD4(lowHalf: v01.oddHalf, highHalf: v23.oddHalf)
        let mx = SIMD4(lowHalf: n01.evenHalf, highHalf: n23.evenHalf), my = SIMD4(lowHalf: n01.oddHalf, highHalf: n23.oddHalf)
        let c = q.c, s = q.s
        x = p.x + (c * lx - s * ly)
        y = p.y + (s * lx + c * ly)
        nx = c * mx - s * my
        ny = s * mx + c * my
    }

    @inline(__always) func vertex(_ i: Int) -> Vec2 { Vec2(x[i], y[i]) }
    @inline(__always) func normal(_ i: Int) -> Vec2 { Vec2(nx[i], ny[i]) }
}

/// The first lane holding the smallest (`largest` false) or largest value of `v`.
@inline(__always)
func firstExtremeLane(_ v: SIMD4<Float>, largest: Bool) -> (lane: Int, value: Float) {
    var best = v[0], lane = 0
    for i in 1..<4 where largest ? v[i] > best : v[i] < best { best = v[i]; lane = i }
    return (lane, best)
}

/// `findMaxSeparation` of two quads: for each edge of `p` (a lane), the smallest signed distance of `q`'s vertices
/// to it, the same sums as there; the edge with the largest, the first on a tie.
@inline(__always)
func findMaxSeparation(_ p: WorldQuad, _ q: WorldQuad) -> (edge: Int, separation: Float) {
    var smallest = p.nx * (q.x[0] - p.x) + p.ny * (q.y[0] - p.y)
    for j in 1..<4 {
        let d = p.nx * (q.x[j] - p.x) + p.ny * (q.y[j] - p.y)
        smallest = smallest.replacing(with: d, where: d .< smallest)
    }
    let (edge, separation) = firstExtremeLane(smallest, largest: true)
    return (edge, separation)
}

extension WorldQuad: ConvexOutline {
    @inline(__always) static func maxSeparation(_ p: WorldQuad, _ q: WorldQuad) -> (edge: Int, separation: Float) {
        findMaxSeparation(p, q)
    }
    @inline(__always) func edge(after i: Int) -> Int { (i + 1) & 3 }
    /// `dot(n, normal)` lane by lane.
    @inline(__always) func incidentEdge(_ n: Vec2) -> Int { firstExtremeLane(n.x * nx + n.y * ny, largest: false).lane }
}

/// `collidePolygons` for two quads, with its arithmetic step for step (the same manifold, to the bit).
@inline(__always)
func collideQuads(_ a: WorldQuad, _ b: WorldQuad, speculativeReach: Float, linearSlop: Float) -> Manifold {
    collideOutlines(a, b, speculativeReach: speculativeReach, linearSlop: linearSlop)
}
