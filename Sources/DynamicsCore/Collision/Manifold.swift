/// One contact point, as of the narrowphase of the current step: the point as computed at the bodies' reference
/// poses (within `World.manifoldTolerance` of their present ones) and the separation at their present poses. (Its
/// anchors, the point relative to each body's center of mass, are not kept: the solver takes them from the point
/// and the positions, which have not moved since.)
public struct ManifoldPoint: Sendable {
    /// World point midway between the two surfaces, points.
    public var point: Vec2 = .zero
    /// Signed distance between the surfaces along the normal; negative when overlapping, points.
    public var separation: Float = 0
    /// Accumulated impulses (mass·points/s), kept across steps for warm starting.
    public var normalImpulse: Float = 0
    public var tangentImpulse: Float = 0
    var maxNormalImpulse: Float = 0
    /// The relative normal velocity at the step's start that restitution reflects (points/s, negative when
    /// approaching); 0 where the point overlapped by more than the linear slop, which is no impact.
    var relativeVelocity: Float = 0
    /// Feature key: matches points of consecutive steps.
    var id: UInt32 = 0
    /// The separation at the bodies' reference poses, where the narrowphase computed the point (`separation` is
    /// carried from there to their present poses).
    var referenceSeparation: Float = 0

    /// The point relative to a body's center of mass at `center` (its anchor). The narrowphase and the solver's
    /// preparation both take it from here, with the same positions, so they agree to the bit.
    ///
    /// Each body's anchor is on its own surface: half the separation from the midway point, back along the normal
    /// for body A and on along it for body B. The solver follows a point's separation as the bodies turn by turning
    /// each anchor with its body; an anchor at the midpoint of a wide speculative gap (a fast item still far from a
    /// boundary line) would swing with the item's spin by the gap's length and open or close the gap that is not
    /// there, letting the item through the line.
    @inline(__always) func anchorA(from center: Vec2, normal n: Vec2) -> Vec2 { (point - (0.5 * separation) * n) - center }
    @inline(__always) func anchorB(from center: Vec2, normal n: Vec2) -> Vec2 { (point + (0.5 * separation) * n) - center }

    /// Carries the warm-start impulses to a substep `ratio` times as long (`World.rescaleWarmStart`).
    mutating func scaleImpulses(by ratio: Float) {
        normalImpulse = warmStartImpulse(normalImpulse, scaledBy: ratio)
        tangentImpulse = warmStartImpulse(tangentImpulse, scaledBy: ratio)
    }
}

/// Up to two contact points sharing a normal that points from shape A to shape B.
public struct Manifold: Sendable {
    public var normal: Vec2 = .zero
    public var points: (ManifoldPoint, ManifoldPoint) = (ManifoldPoint(), ManifoldPoint())
    /// 0, 1 or 2, in one byte: a contact record fills 112 bytes, not 120 (World's `Contact` puts its flag and its
    /// reach in the manifold's tail).
    var storedPointCount: UInt8 = 0

    /// The number of points in use: 0, 1 or 2.
    public var pointCount: Int {
        @inline(__always) get { Int(storedPointCount) }
        @inline(__always) set {
            precondition(newValue >= 0 && newValue <= 2, "a manifold has 0, 1 or 2 points, got \(newValue)")
            storedPointCount = UInt8(truncatingIfNeeded: newValue)
        }
    }

    public init() {}

    @inline(__always) subscript(i: Int) -> ManifoldPoint {
        get { i == 0 ? points.0 : points.1 }
        set { if i == 0 { points.0 = newValue } else { points.1 = newValue } }
    }
}
