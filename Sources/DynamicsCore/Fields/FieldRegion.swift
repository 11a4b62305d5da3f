/// The area a field acts in, relative to the field's position (points). Composable up to `maximumDepth` levels
/// (it is compiled, compared and released by recursion); compiled into a flat postfix program so the per-item test
/// is a short loop with no recursion and no allocation.
public indirect enum FieldRegion: Equatable, Sendable {
    /// The deepest composition `validate()` accepts.
    public static let maximumDepth = 1000

    /// Everywhere.
    case infinite
    /// Points within `radius` of the center (the boundary is inside).
    case circle(radius: Float)
    /// Points strictly inside a `width` × `height` rectangle centered on the field (the edge is outside).
    case rectangle(width: Float, height: Float)
    /// Points not in the region.
    case inverse(FieldRegion)
    case union(FieldRegion, FieldRegion)
    case intersection(FieldRegion, FieldRegion)
    /// Points of the first region that are not in the second.
    case difference(FieldRegion, FieldRegion)

    /// Whether `p` (relative to the field's position) is inside.
    public func contains(_ p: Vec2) -> Bool { RegionProgram(self).contains(p) }

    func validate() throws {
        // The depth first, without recursion, so that a tree too deep to walk recursively is refused, not crashed on.
        var stack: [(FieldRegion, Int)] = [(self, 1)]
        while let (r, d) = stack.popLast() {
            if d > FieldRegion.maximumDepth { throw DynamicsError("region is composed deeper than \(FieldRegion.maximumDepth) levels") }
            switch r {
            case .infinite, .circle, .rectangle: break
            case let .inverse(a): stack.append((a, d + 1))
            case let .union(a, b), let .intersection(a, b), let .difference(a, b): stack.append((a, d + 1)); stack.append((b, d + 1))
            }
        }
        try validateShapes()
    }

    private func validateShapes() throws {
        switch self {
        case .infinite: break
        case let .circle(r):
            if !(r.isFinite && r >= 0) { throw DynamicsError("region radius must be finite and not negative, got \(r)") }
        case let .rectangle(w, h):
            if !(w.isFinite && h.isFinite && w >= 0 && h >= 0) { throw DynamicsError("region size must be finite and not negative, got \(w)x\(h)") }
        case let .inverse(a): try a.validateShapes()
        case let .union(a, b), let .intersection(a, b), let .difference(a, b): try a.validateShapes(); try b.validateShapes()
        }
    }
}

/// A region as postfix operations over a small boolean stack.
struct RegionProgram: Sendable {
    enum Op: Sendable {
        case all
        case circle(Float)          // radius squared
        case rectangle(Float, Float) // half sizes
        case not, or, and, andNot
    }
    var ops: [Op] = []
    var isInfinite: Bool

    init(_ region: FieldRegion) {
        isInfinite = region == .infinite
        func emit(_ r: FieldRegion) {
            switch r {
            case .infinite: ops.append(.all)
            case let .circle(radius): ops.append(.circle(radius * radius))
            case let .rectangle(w, h): ops.append(.rectangle(w / 2, h / 2))
            case let .inverse(a): emit(a); ops.append(.not)
            case let .union(a, b): emit(a); emit(b); ops.append(.or)
            case let .intersection(a, b): emit(a); emit(b); ops.append(.and)
            case let .difference(a, b): emit(a); emit(b); ops.append(.andNot)
            }
        }
        emit(region)
    }

    @inline(__always)
    func contains(_ p: Vec2) -> Bool {
        isInfinite ? true : evaluate(p)
    }

    /// Runs the program over a bit stack (64 levels; deeper trees spill to an array). Written as one flat loop:
    /// nested helper functions would capture the stack and cost a dynamic access check per item.
    func evaluate(_ p: Vec2) -> Bool {
        var bits: UInt64 = 0
        var depth = 0
        var spill: [Bool] = []
        for op in ops {
            var value: Bool
            switch op {
            case .all: value = true
            case let .circle(r2): value = lengthSquared(p) <= r2
            case let .rectangle(hx, hy): value = abs(p.x) < hx && abs(p.y) < hy
            case .not, .or, .and, .andNot:
                depth -= 1
                let b = depth < 64 ? bits & (1 << UInt64(depth)) != 0 : spill.removeLast()
                if case .not = op {
                    value = !b
                } else {
                    depth -= 1
                    let a = depth < 64 ? bits & (1 << UInt64(depth)) != 0 : spill.removeLast()
                    switch op {
                    case .or: value = a || b
                    case .and: value = a && b
                    default: value = a && !b
                    }
                }
            }
            if depth < 64 {
                if value { bits |= 1 << UInt64(depth) } else { bits &= ~(1 << UInt64(depth)) }
            } else {
                spill.append(value)
            }
            depth += 1
        }
        return bits & 1 != 0
    }
}
