#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
#endif

// Small vector helpers for the engine. Everything is `Float` inside; the object API converts at its edge.
//
// Conventions: y grows down and angles grow clockwise on screen, which in a y-down frame is the ordinary
// mathematical rotation (cos, sin). The 2D cross product `cross(a, b) = a.x * b.y - a.y * b.x` is therefore
// positive for a clockwise turn on screen, the same sense as positive angular velocity.

public typealias Vec2 = SIMD2<Float>

@inlinable @inline(__always)
package func dot(_ a: Vec2, _ b: Vec2) -> Float { a.x * b.x + a.y * b.y }

@inlinable @inline(__always)
package func cross(_ a: Vec2, _ b: Vec2) -> Float { a.x * b.y - a.y * b.x }

/// `cross(w, r)` for a scalar angular velocity `w` and an arm `r`: the velocity of the point at `r`.
@inlinable @inline(__always)
package func cross(_ w: Float, _ r: Vec2) -> Vec2 { Vec2(-w * r.y, w * r.x) }

/// `cross(r, w)`: the vector perpendicular to `r`, scaled by `w`, turned the other way.
@inlinable @inline(__always)
package func cross(_ r: Vec2, _ w: Float) -> Vec2 { Vec2(w * r.y, -w * r.x) }

@inlinable @inline(__always)
package func lengthSquared(_ v: Vec2) -> Float { v.x * v.x + v.y * v.y }

@inlinable @inline(__always)
package func length(_ v: Vec2) -> Float { lengthSquared(v).squareRoot() }

@inlinable @inline(__always)
package func normalized(_ v: Vec2) -> Vec2 {
    let l = length(v)
    return l > 1e-12 ? v / l : Vec2(0, 0)
}

/// Componentwise minimum and maximum, inline (the standard library's generic `pointwiseMin`/`pointwiseMax` are
/// left as calls in the broadphase's loops).
@inlinable @inline(__always)
func minimum(_ a: Vec2, _ b: Vec2) -> Vec2 { Vec2(Swift.min(a.x, b.x), Swift.min(a.y, b.y)) }

@inlinable @inline(__always)
func maximum(_ a: Vec2, _ b: Vec2) -> Vec2 { Vec2(Swift.max(a.x, b.x), Swift.max(a.y, b.y)) }

/// The left perpendicular (rotated by -90° in the math sense).
@inlinable @inline(__always)
package func leftPerp(_ v: Vec2) -> Vec2 { Vec2(-v.y, v.x) }

@inlinable @inline(__always)
package func rightPerp(_ v: Vec2) -> Vec2 { Vec2(v.y, -v.x) }

/// A rotation stored as (cos, sin): cheaper to apply than an angle and free of wrap-around.
public struct Rotation: Equatable, Sendable {
    /// cos(angle)
    public var c: Float
    /// sin(angle)
    public var s: Float

    @inlinable public init(c: Float, s: Float) { self.c = c; self.s = s }
    @inlinable public init(angle: Float) { c = _cos(angle); s = _sin(angle) }
    public static let identity = Rotation(c: 1, s: 0)

    /// The angle in radians, in (-π, π].
    @inlinable public var angle: Float { _atan2(s, c) }

    @inlinable @inline(__always)
    public func rotate(_ v: Vec2) -> Vec2 { Vec2(c * v.x - s * v.y, s * v.x + c * v.y) }

    @inlinable @inline(__always)
    public func inverseRotate(_ v: Vec2) -> Vec2 { Vec2(c * v.x + s * v.y, -s * v.x + c * v.y) }

    /// `self * other`: rotate by `other`, then by `self`.
    @inlinable @inline(__always)
    public func concatenating(_ q: Rotation) -> Rotation { Rotation(c: c * q.c - s * q.s, s: s * q.c + c * q.s) }

    /// Advances the rotation by `deltaAngle` radians (small) and renormalizes.
    @inlinable @inline(__always)
    public func integrated(by deltaAngle: Float) -> Rotation {
        let c2 = c - deltaAngle * s
        let s2 = s + deltaAngle * c
        let mag = (c2 * c2 + s2 * s2).squareRoot()
        let inv: Float = mag > 0 ? 1 / mag : 0
        return Rotation(c: c2 * inv, s: s2 * inv)
    }
}

/// The relative angle from rotation `a` to rotation `b`, in (-π, π].
@inlinable @inline(__always)
package func relativeAngle(_ a: Rotation, _ b: Rotation) -> Float {
    // sin(b - a) and cos(b - a)
    let s = a.c * b.s - a.s * b.c
    let c = a.c * b.c + a.s * b.s
    return _atan2(s, c)
}

/// An axis-aligned bounding box in points.
public struct AABB: Equatable, Sendable {
    public var lower: Vec2
    public var upper: Vec2
    @inlinable public init(lower: Vec2, upper: Vec2) { self.lower = lower; self.upper = upper }

    @inlinable @inline(__always)
    public func overlaps(_ b: AABB) -> Bool {
        !(b.lower.x > upper.x || b.lower.y > upper.y || lower.x > b.upper.x || lower.y > b.upper.y)
    }
    @inlinable public func union(_ b: AABB) -> AABB {
        AABB(lower: minimum(lower, b.lower), upper: maximum(upper, b.upper))
    }
    @inlinable public func contains(_ p: Vec2) -> Bool {
        p.x >= lower.x && p.y >= lower.y && p.x <= upper.x && p.y <= upper.y
    }
}

// Transcendental functions come from the platform C library (not Foundation). They are evaluated in Double so
// the results do not depend on a float libm's accuracy; these wrappers keep call sites short.
@inline(__always) @usableFromInline func _sin(_ x: Float) -> Float { Float(sin(Double(x))) }
@inline(__always) @usableFromInline func _cos(_ x: Float) -> Float { Float(cos(Double(x))) }
@inline(__always) @usableFromInline func _atan2(_ y: Float, _ x: Float) -> Float { Float(atan2(Double(y), Double(x))) }
@inline(__always) func _exp(_ x: Float) -> Float { Float(exp(Double(x))) }
