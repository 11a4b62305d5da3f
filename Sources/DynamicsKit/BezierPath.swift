/// A path of lines and Bézier curves, used for collision boundaries and `collisionBoundingPath` (the stand-in for
/// UIKit's `UIBezierPath`; points, y down).
public final class BezierPath: CustomStringConvertible {
    public enum Element: Equatable, Sendable {
        case move(CGPoint)
        case line(CGPoint)
        case quadCurve(CGPoint, control: CGPoint)
        case curve(CGPoint, control1: CGPoint, control2: CGPoint)
        case close
    }

    public private(set) var elements: [Element] = []

    public init() {}

    /// A closed rectangle.
    public convenience init(rect: CGRect) {
        self.init()
        move(to: CGPoint(x: rect.minX, y: rect.minY))
        addLine(to: CGPoint(x: rect.maxX, y: rect.minY))
        addLine(to: CGPoint(x: rect.maxX, y: rect.maxY))
        addLine(to: CGPoint(x: rect.minX, y: rect.maxY))
        close()
    }

    /// A closed ellipse inscribed in `rect`, made of four cubic curves.
    public convenience init(ovalIn rect: CGRect) {
        self.init()
        let k: CGFloat = 0.552_284_749_8
        let cx = rect.midX, cy = rect.midY, rx = rect.width / 2, ry = rect.height / 2
        move(to: CGPoint(x: cx + rx, y: cy))
        addCurve(to: CGPoint(x: cx, y: cy + ry), controlPoint1: CGPoint(x: cx + rx, y: cy + k * ry), controlPoint2: CGPoint(x: cx + k * rx, y: cy + ry))
        addCurve(to: CGPoint(x: cx - rx, y: cy), controlPoint1: CGPoint(x: cx - k * rx, y: cy + ry), controlPoint2: CGPoint(x: cx - rx, y: cy + k * ry))
        addCurve(to: CGPoint(x: cx, y: cy - ry), controlPoint1: CGPoint(x: cx - rx, y: cy - k * ry), controlPoint2: CGPoint(x: cx - k * rx, y: cy - ry))
        addCurve(to: CGPoint(x: cx + rx, y: cy), controlPoint1: CGPoint(x: cx + k * rx, y: cy - ry), controlPoint2: CGPoint(x: cx + rx, y: cy - k * ry))
        close()
    }

    /// A closed rectangle with quarter-circle corners of `cornerRadius` (clamped to half the shorter side, as UIKit does).
    public convenience init(roundedRect rect: CGRect, cornerRadius: CGFloat) {
        self.init()
        let r = max(0, min(cornerRadius, min(rect.width, rect.height) / 2))
        let k: CGFloat = 0.552_284_749_8 * r
        move(to: CGPoint(x: rect.minX + r, y: rect.minY))
        addLine(to: CGPoint(x: rect.maxX - r, y: rect.minY))
        addCurve(to: CGPoint(x: rect.maxX, y: rect.minY + r), controlPoint1: CGPoint(x: rect.maxX - r + k, y: rect.minY), controlPoint2: CGPoint(x: rect.maxX, y: rect.minY + r - k))
        addLine(to: CGPoint(x: rect.maxX, y: rect.maxY - r))
        addCurve(to: CGPoint(x: rect.maxX - r, y: rect.maxY), controlPoint1: CGPoint(x: rect.maxX, y: rect.maxY - r + k), controlPoint2: CGPoint(x: rect.maxX - r + k, y: rect.maxY))
        addLine(to: CGPoint(x: rect.minX + r, y: rect.maxY))
        addCurve(to: CGPoint(x: rect.minX, y: rect.maxY - r), controlPoint1: CGPoint(x: rect.minX + r - k, y: rect.maxY), controlPoint2: CGPoint(x: rect.minX, y: rect.maxY - r + k))
        addLine(to: CGPoint(x: rect.minX, y: rect.minY + r))
        addCurve(to: CGPoint(x: rect.minX + r, y: rect.minY), controlPoint1: CGPoint(x: rect.minX, y: rect.minY + r - k), controlPoint2: CGPoint(x: rect.minX + r - k, y: rect.minY))
        close()
    }

    public func move(to point: CGPoint) { elements.append(.move(point)) }
    public func addLine(to point: CGPoint) { elements.append(.line(point)) }
    public func addQuadCurve(to point: CGPoint, controlPoint: CGPoint) { elements.append(.quadCurve(point, control: controlPoint)) }
    public func addCurve(to point: CGPoint, controlPoint1: CGPoint, controlPoint2: CGPoint) {
        elements.append(.curve(point, control1: controlPoint1, control2: controlPoint2))
    }
    public func close() { elements.append(.close) }
    public func removeAllPoints() { elements.removeAll() }
    public var isEmpty: Bool { elements.isEmpty }

    public var description: String { "BezierPath(\(elements.count) elements)" }

    /// Whether every point of the path (end and control points) satisfies `test`.
    func allPoints(_ test: (CGPoint) -> Bool) -> Bool {
        for e in elements {
            switch e {
            case let .move(p), let .line(p): if !test(p) { return false }
            case let .quadCurve(p, c): if !(test(p) && test(c)) { return false }
            case let .curve(p, c1, c2): if !(test(p) && test(c1) && test(c2)) { return false }
            case .close: break
            }
        }
        return true
    }

    /// Every point within ±`SupportedRange.coordinate` points.
    var isSupported: Bool { allPoints { $0.isSupportedCoordinate } }

    /// Every coordinate is finite.
    var isFinite: Bool { allPoints { $0.isFinite } }

    /// The path as polylines, one per subpath, with curves flattened so that no point of a chord is farther than
    /// about `tolerance` points from the curve. A closed subpath repeats its first point at the end.
    public func polylines(tolerance: CGFloat = 0.5) -> [[CGPoint]] {
        var result: [[CGPoint]] = []
        var current: [CGPoint] = []
        var start = CGPoint.zero
        func segments(_ chord: CGFloat, _ hull: CGFloat) -> Int {
            // Deviation of a curve from its chord is bounded by its control hull; segments grow with √(deviation).
            let dev = max(hull - chord, 0)
            let count = (dev / max(tolerance, 1e-3)).squareRoot().rounded(.up)
            // (A deviation too large for an Int, or not finite, takes the most segments.)
            return count.isFinite && count < 31 ? max(2, Int(count) + 1) : 32
        }
        func dist(_ a: CGPoint, _ b: CGPoint) -> CGFloat { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
        for e in elements {
            switch e {
            case let .move(p):
                if current.count > 1 { result.append(current) }
                current = [p]; start = p
            case let .line(p):
                if current.isEmpty { current = [start] }
                current.append(p)
            case let .quadCurve(p, c):
                if current.isEmpty { current = [start] }
                let p0 = current.last!
                let n = segments(dist(p0, p), dist(p0, c) + dist(c, p))
                for k in 1...n {
                    let t = CGFloat(k) / CGFloat(n), u = 1 - t
                    current.append(CGPoint(x: u * u * p0.x + 2 * u * t * c.x + t * t * p.x,
                                           y: u * u * p0.y + 2 * u * t * c.y + t * t * p.y))
                }
            case let .curve(p, c1, c2):
                if current.isEmpty { current = [start] }
                let p0 = current.last!
                let n = segments(dist(p0, p), dist(p0, c1) + dist(c1, c2) + dist(c2, p))
                for k in 1...n {
                    let t = CGFloat(k) / CGFloat(n), u = 1 - t
                    let a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t
                    current.append(CGPoint(x: a * p0.x + b * c1.x + c * c2.x + d * p.x,
                                           y: a * p0.y + b * c1.y + c * c2.y + d * p.y))
                }
            case .close:
                if !current.isEmpty {
                    if current.first! != current.last! { current.append(current.first!) }
                    if current.count > 1 { result.append(current) }
                    start = current.first!
                    current = []
                }
            }
        }
        if current.count > 1 { result.append(current) }
        return result
    }

    /// The path's first subpath as a convex polygon (UIKit's rule for `collisionBoundingPath`): it must be convex
    /// and not cross itself; either winding is accepted. Outlines with more corners than the engine takes are
    /// simplified by dropping the corners that carry the least area.
    func convexPolygon() throws -> ConvexPolygon {
        guard isFinite else { throw DynamicsError("the path has a non-finite coordinate") }
        let lines = polylines(tolerance: 0.25)
        guard let outline = lines.first else { throw DynamicsError("the path is empty") }
        if lines.count > 1 { throw DynamicsError("the path has \(lines.count) subpaths; a collision path must be one convex outline") }
        var points = outline.map { $0.vec }
        if points.count > 1, let f = points.first, let l = points.last, DynamicsCore.length(f - l) < 1e-4 { points.removeLast() }
        var polygon = try ConvexPolygon(vertices: points.count > maxPolygonVertices ? Self.simplify(points, to: maxPolygonVertices) : points)
        if polygon.vertices.count > maxPolygonVertices {
            polygon = try ConvexPolygon(vertices: Self.simplify(polygon.vertices, to: maxPolygonVertices))
        }
        return polygon
    }

    /// Removes, one at a time, the vertex whose triangle with its neighbors has the least area.
    static func simplify(_ input: [Vec2], to limit: Int) -> [Vec2] {
        var v = input
        while v.count > limit {
            var best = 0
            var bestArea = Float.greatestFiniteMagnitude
            for i in 0..<v.count {
                let a = v[(i + v.count - 1) % v.count], b = v[i], c = v[(i + 1) % v.count]
                let area = abs(cross(b - a, c - b))
                if area < bestArea { bestArea = area; best = i }
            }
            v.remove(at: best)
        }
        return v
    }
}
