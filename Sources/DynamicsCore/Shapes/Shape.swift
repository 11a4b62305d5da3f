/// How far from its body's origin a shape may reach, in points: a `Float` still resolves a point there, and a
/// body's moment of inertia (mass × size²) stays finite.
public let maximumShapeCoordinate: Float = 10_000_000

/// The largest vertex count of one convex polygon shape. Larger convex outlines are simplified by the caller (the
/// object API flattens and reduces paths); 64 keeps per-shape work bounded.
public let maxPolygonVertices = 64

/// The geometry of one shape, in the body's local frame (points, relative to the body's origin, which for an item
/// is its center).
public enum ShapeGeometry: Equatable, Sendable {
    case circle(center: Vec2, radius: Float)
    /// A convex polygon, counter-clockwise in the engine's y-down frame as seen on screen (see `ConvexPolygon`).
    case polygon(ConvexPolygon)
    /// A line segment: boundaries are made of these.
    case segment(Vec2, Vec2)

    /// A rectangle of the given size centered at `center`, turned by `angle` radians.
    public static func box(width: Float, height: Float, center: Vec2 = .zero, angle: Float = 0) -> ShapeGeometry {
        let hx = width / 2, hy = height / 2
        let q = Rotation(angle: angle)
        let corners = [Vec2(-hx, -hy), Vec2(-hx, hy), Vec2(hx, hy), Vec2(hx, -hy)].map { center + q.rotate($0) }
        return .polygon(ConvexPolygon(uncheckedVertices: corners))
    }
}

/// A convex polygon with its outward edge normals.
///
/// Winding: vertices run clockwise in the usual y-up maths sense, which is counter-clockwise as seen on a y-down
/// screen (UIKit's convention for `collisionBoundingPath`). Edge `i` runs from vertex `i` to `i + 1` and its outward
/// normal is `(-dy, dx)` normalized.
public struct ConvexPolygon: Equatable, Sendable {
    public private(set) var vertices: [Vec2]
    public private(set) var normals: [Vec2]

    init(uncheckedVertices v: [Vec2]) {
        vertices = v
        normals = (0..<v.count).map { i in normalized(leftPerp(v[(i + 1) % v.count] - v[i])) }
    }

    /// Builds a polygon from an outline, accepting either winding (a clockwise outline is reversed, as UIKit
    /// does). Refuses fewer than 3 vertices, non-finite or repeated points, a concave or self-crossing outline,
    /// and zero area.
    public init(vertices input: [Vec2]) throws {
        var v = input
        for (i, p) in v.enumerated() { try requireFinite(p, "polygon vertex \(i)") }
        // Drop a closing vertex equal to the first.
        if v.count > 1, let f = v.first, let l = v.last, length(f - l) <= 1e-4 { v.removeLast() }
        // Drop collinear and duplicate points.
        var cleaned: [Vec2] = []
        for i in 0..<v.count {
            let p = v[i]
            if let last = cleaned.last, length(p - last) <= 1e-4 { continue }
            cleaned.append(p)
        }
        if cleaned.count >= 2, length(cleaned[0] - cleaned[cleaned.count - 1]) <= 1e-4 { cleaned.removeLast() }
        guard cleaned.count >= 3 else {
            throw DynamicsError("a convex path needs at least 3 distinct points, got \(cleaned.count)")
        }
        var reduced: [Vec2] = []
        let n0 = cleaned.count
        for i in 0..<n0 {
            let a = cleaned[(i + n0 - 1) % n0], b = cleaned[i], c = cleaned[(i + 1) % n0]
            let cr = cross(b - a, c - b)
            let scale = length(b - a) * length(c - b)
            if abs(cr) <= 1e-5 * scale {
                if dot(b - a, c - b) < 0 {
                    throw DynamicsError("the path doubles back on itself at point \(i); it must be convex and not self-crossing")
                }
                continue
            }
            reduced.append(b)
        }
        guard reduced.count >= 3 else { throw DynamicsError("the path has zero area") }
        guard reduced.count <= maxPolygonVertices else {
            throw DynamicsError("a convex path may have at most \(maxPolygonVertices) corners, got \(reduced.count)")
        }
        // Signed area in the maths sense; our convention needs it negative (clockwise in y-up = CCW on screen).
        var area2: Float = 0
        for i in 0..<reduced.count { area2 += cross(reduced[i], reduced[(i + 1) % reduced.count]) }
        if area2 > 0 { reduced.reverse() }
        // Convexity: every turn must go the same way, and the turns must add up to one full turn (no self-crossing).
        let n = reduced.count
        var totalTurn: Float = 0
        for i in 0..<n {
            let a = reduced[(i + n - 1) % n], b = reduced[i], c = reduced[(i + 1) % n]
            let e1 = b - a, e2 = c - b
            if cross(e1, e2) > 0 {
                throw DynamicsError("the path is not convex at point \(i); use an item group for concave shapes")
            }
            totalTurn += _atan2(cross(e1, e2), dot(e1, e2))
        }
        if abs(abs(totalTurn) - 2 * .pi) > 0.01 {
            throw DynamicsError("the path crosses itself (it turns \(abs(totalTurn) / (2 * .pi)) times); it must be a simple convex outline")
        }
        self.init(uncheckedVertices: reduced)
    }

    /// An n-gon inscribed-and-scaled to match the ellipse's area, so collision and mass agree with the ellipse.
    public static func ellipse(width: Float, height: Float, center: Vec2 = .zero, segments: Int = 24) -> ConvexPolygon {
        let n = Swift.max(8, Swift.min(segments, maxPolygonVertices))
        // Area of the inscribed n-gon is (n/2) sin(2π/n) a b; scale radii so it equals π a b.
        let k = (2 * Float.pi / (Float(n) * _sin(2 * .pi / Float(n)))).squareRoot()
        var pts: [Vec2] = []
        for i in 0..<n {
            // Descending angles: clockwise in y-up maths terms, the winding this type uses.
            let t = -2 * Float.pi * Float(i) / Float(n)
            pts.append(center + Vec2(k * width / 2 * _cos(t), k * height / 2 * _sin(t)))
        }
        return ConvexPolygon(uncheckedVertices: pts)
    }

    /// Area (square points), centroid, and polar moment per unit mass about the centroid.
    public var massProperties: (area: Float, centroid: Vec2, inertiaPerMass: Float) {
        let n = vertices.count
        let origin = vertices[0]
        var area: Float = 0, center = Vec2(0, 0), inertia: Float = 0
        for i in 1..<(n - 1) {
            let e1 = vertices[i] - origin, e2 = vertices[i + 1] - origin
            let d = -cross(e1, e2) // positive for our winding
            let triArea = 0.5 * d
            area += triArea
            center += triArea * (e1 + e2) / 3
            let intx2 = e1.x * e1.x + e2.x * e1.x + e2.x * e2.x
            let inty2 = e1.y * e1.y + e2.y * e1.y + e2.y * e2.y
            inertia += (0.25 / 3 * d) * (intx2 + inty2)
        }
        center /= area
        let centroid = origin + center
        // inertia is about `origin`; shift to the centroid (per unit area, then per unit mass).
        let perArea = inertia / area - lengthSquared(center)
        return (area, centroid, perArea)
    }
}

extension ShapeGeometry {
    /// Validates the geometry: finite, a positive size, every point within ±`maximumShapeCoordinate` of the body's
    /// origin.
    func validate(_ what: String) throws {
        let limit = maximumShapeCoordinate
        func within(_ p: Vec2, _ name: String) throws {
            try requireFinite(p, "\(what) \(name)")
            if Swift.abs(p.x) > limit || Swift.abs(p.y) > limit {
                throw DynamicsError("\(what) \(name) must be within ±10,000,000 points of the body's origin, got (\(p.x), \(p.y))")
            }
        }
        switch self {
        case let .circle(c, r):
            try within(c, "circle center")
            if !(r.isFinite && r > 0 && r <= limit) { throw DynamicsError("\(what) circle radius must be positive and at most 10,000,000 points, got \(r)") }
        case let .polygon(p):
            for (i, v) in p.vertices.enumerated() { try within(v, "vertex \(i)") }
            if p.vertices.count < 3 { throw DynamicsError("\(what) polygon needs 3 vertices") }
            if p.vertices.count > maxPolygonVertices { throw DynamicsError("\(what) polygon has more than \(maxPolygonVertices) vertices") }
        case let .segment(a, b):
            try within(a, "segment start"); try within(b, "segment end")
            if length(b - a) <= 1e-4 { throw DynamicsError("\(what) segment has zero length") }
        }
    }

    /// Centroid and polar moment of inertia per unit mass about the centroid.
    var massShape: (centroid: Vec2, inertiaPerMass: Float) {
        switch self {
        case let .circle(c, r): return (c, 0.5 * r * r)
        case let .polygon(p): let m = p.massProperties; return (m.centroid, m.inertiaPerMass)
        case let .segment(a, b): return ((a + b) / 2, lengthSquared(b - a) / 12)
        }
    }

    /// Largest distance of the shape's outline from `point`.
    func maxExtent(from point: Vec2) -> Float {
        switch self {
        case let .circle(c, r): return length(c - point) + r
        case let .polygon(p): return p.vertices.map { length($0 - point) }.max() ?? 0
        case let .segment(a, b): return Swift.max(length(a - point), length(b - point))
        }
    }
}

extension ShapeGeometry {
    /// A one-sided wall: solid on the side `outward` points to, with its inner face exactly on the segment
    /// from `a` to `b`. It is a quad reaching `thickness` points outward (at least the segment's length, and 1000
    /// points), so an item pressed deep into it is still pushed back inside, never out through the far side.
    public static func wall(from a: Vec2, to b: Vec2, outward: Vec2, thickness: Float = 0) throws -> ShapeGeometry {
        try requireFinite(a, "wall start"); try requireFinite(b, "wall end"); try requireFinite(outward, "wall normal")
        guard length(b - a) > 1e-4 else { throw DynamicsError("a wall needs two distinct end points") }
        var n = normalized(leftPerp(b - a))
        guard length(outward) > 0 else { throw DynamicsError("a wall needs a non-zero outward direction") }
        if dot(n, outward) < 0 { n = -n }
        let t = Swift.max(thickness, length(b - a), 1000)
        return .polygon(try ConvexPolygon(vertices: [a, b, b + t * n, a + t * n]))
    }
}
