// Geometry value types that UIKit Dynamics uses and Foundation on Linux lacks. On Apple platforms they come from
// CoreGraphics and UIKit; these definitions follow the same names, fields and behavior.

#if !canImport(CoreGraphics)
/// A two-dimensional vector (points, or points/s for velocities).
public struct CGVector: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var dx: CGFloat
    public var dy: CGFloat
    public init(dx: CGFloat, dy: CGFloat) { self.dx = dx; self.dy = dy }
    public init(dx: Int, dy: Int) { self.dx = CGFloat(dx); self.dy = CGFloat(dy) }
    public static let zero = CGVector(dx: 0, dy: 0)
    public var description: String { "(\(dx), \(dy))" }
}

/// An affine transform `[a b 0; c d 0; tx ty 1]`, applied to row vectors: x' = a·x + c·y + tx, y' = b·x + d·y + ty.
public struct CGAffineTransform: Equatable, Sendable, CustomStringConvertible {
    public var a: CGFloat, b: CGFloat, c: CGFloat, d: CGFloat, tx: CGFloat, ty: CGFloat
    public init(a: CGFloat, b: CGFloat, c: CGFloat, d: CGFloat, tx: CGFloat, ty: CGFloat) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.tx = tx; self.ty = ty
    }
    public init() { self.init(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0) }
    /// A rotation by `angle` radians (clockwise on a y-down screen for positive angles).
    public init(rotationAngle angle: CGFloat) {
        let c = CGFloat(cos(Double(angle))), s = CGFloat(sin(Double(angle)))
        self.init(a: c, b: s, c: -s, d: c, tx: 0, ty: 0)
    }
    public init(translationX tx: CGFloat, y ty: CGFloat) { self.init(a: 1, b: 0, c: 0, d: 1, tx: tx, ty: ty) }
    public init(scaleX sx: CGFloat, y sy: CGFloat) { self.init(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0) }
    public static let identity = CGAffineTransform()
    public var isIdentity: Bool { self == .identity }

    /// `self` followed by `t2`.
    public func concatenating(_ t2: CGAffineTransform) -> CGAffineTransform {
        CGAffineTransform(a: a * t2.a + b * t2.c, b: a * t2.b + b * t2.d,
                          c: c * t2.a + d * t2.c, d: c * t2.b + d * t2.d,
                          tx: tx * t2.a + ty * t2.c + t2.tx, ty: tx * t2.b + ty * t2.d + t2.ty)
    }
    public func rotated(by angle: CGFloat) -> CGAffineTransform { CGAffineTransform(rotationAngle: angle).concatenating(self) }
    public func translatedBy(x: CGFloat, y: CGFloat) -> CGAffineTransform { CGAffineTransform(translationX: x, y: y).concatenating(self) }
    public func scaledBy(x: CGFloat, y: CGFloat) -> CGAffineTransform { CGAffineTransform(scaleX: x, y: y).concatenating(self) }
    public func inverted() -> CGAffineTransform {
        let det = a * d - b * c
        guard det != 0 else { return self }
        return CGAffineTransform(a: d / det, b: -b / det, c: -c / det, d: a / det,
                                 tx: (c * ty - d * tx) / det, ty: (b * tx - a * ty) / det)
    }
    public var description: String { "CGAffineTransform(a: \(a), b: \(b), c: \(c), d: \(d), tx: \(tx), ty: \(ty))" }
}

extension CGPoint {
    public func applying(_ t: CGAffineTransform) -> CGPoint {
        CGPoint(x: t.a * x + t.c * y + t.tx, y: t.b * x + t.d * y + t.ty)
    }
}
#endif

extension CGAffineTransform {
    /// The rotation angle of the transform, radians (atan2(b, a)).
    public var rotationAngle: CGFloat { CGFloat(atan2(Double(b), Double(a))) }
}

#if !canImport(UIKit)
/// An offset from an item's center (points, in the item's coordinate space).
public struct UIOffset: Equatable, Hashable, Sendable {
    public var horizontal: CGFloat
    public var vertical: CGFloat
    public init(horizontal: CGFloat, vertical: CGFloat) { self.horizontal = horizontal; self.vertical = vertical }
    public static let zero = UIOffset(horizontal: 0, vertical: 0)
}

/// Insets for each edge of a rectangle (points; positive values shrink it).
public struct UIEdgeInsets: Equatable, Hashable, Sendable {
    public var top: CGFloat, left: CGFloat, bottom: CGFloat, right: CGFloat
    public init(top: CGFloat, left: CGFloat, bottom: CGFloat, right: CGFloat) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
    }
    public static let zero = UIEdgeInsets(top: 0, left: 0, bottom: 0, right: 0)
}

/// A closed range of floating-point values (radians for pin attachments, points for sliding ones).
public struct UIFloatRange: Equatable, Hashable, Sendable {
    public var minimum: CGFloat
    public var maximum: CGFloat
    public init(minimum: CGFloat, maximum: CGFloat) { self.minimum = minimum; self.maximum = maximum }
    public static let zero = UIFloatRange(minimum: 0, maximum: 0)
    public static let infinite = UIFloatRange(minimum: -.infinity, maximum: .infinity)
    public var isInfinite: Bool { minimum == -.infinity && maximum == .infinity }
}
#endif

extension CGRect {
    /// The rectangle shrunk by `insets`.
    func inset(by insets: UIEdgeInsets) -> CGRect {
        CGRect(x: origin.x + insets.left, y: origin.y + insets.top,
               width: size.width - insets.left - insets.right, height: size.height - insets.top - insets.bottom)
    }
}

// Conversions at the API edge: CGFloat (Double) outside, Float inside.
extension CGPoint {
    @inline(__always) var vec: Vec2 { Vec2(Float(x), Float(y)) }
    @inline(__always) init(_ v: Vec2) { self.init(x: CGFloat(v.x), y: CGFloat(v.y)) }
    var isFinite: Bool { x.isFinite && y.isFinite }
}
extension CGVector {
    @inline(__always) var vec: Vec2 { Vec2(Float(dx), Float(dy)) }
    var isFinite: Bool { dx.isFinite && dy.isFinite }
    var length: CGFloat { (dx * dx + dy * dy).squareRoot() }
    /// Radians from +x (clockwise on a y-down screen).
    var angle: CGFloat { CGFloat(atan2(Double(dy), Double(dx))) }
    /// The vector of `magnitude` pointing at `angle` radians.
    init(angle: CGFloat, magnitude: CGFloat) {
        self.init(dx: magnitude * CGFloat(cos(Double(angle))), dy: magnitude * CGFloat(sin(Double(angle))))
    }
    /// This vector's direction at `length` (each component divided by the length first, so an exact direction stays
    /// exact), or nil for the zero vector, which has no direction.
    func scaled(toLength newLength: CGFloat) -> CGVector? {
        let l = length
        guard l > 0 else { return nil }
        return CGVector(dx: dx / l * newLength, dy: dy / l * newLength)
    }
}
extension UIOffset {
    @inline(__always) var vec: Vec2 { Vec2(Float(horizontal), Float(vertical)) }
    var isFinite: Bool { horizontal.isFinite && vertical.isFinite }
}

#if !canImport(UIKit)
extension IndexPath {
    /// UIKit's collection-view index path: `[section, item]`.
    public init(item: Int, section: Int) { self.init(indexes: [section, item]) }
    public var item: Int { self[1] }
    public var section: Int { self[0] }
}
#endif
