/// A force field for its items: UIKit's `UIFieldBehavior` (made only through its factories).
///
/// Distances inside the formulas are in metres (100 points); forces in UIKit newtons (1 on mass 1 = 100 pt/s²).
/// Each kind's magnitude is multiplied by r^(−falloff), r being the distance from `position` (never less than
/// `minimumRadius`). A field acts only on its own items, and only inside `region` (relative to `position`). There is
/// no limit on the number of fields.
///
/// ```swift
/// let well = FieldBehavior.radialGravityField(position: CGPoint(x: 160, y: 284))
/// well.strength = 5
/// well.region = Region(radius: 150)
/// well.addItem(ball)
/// animator.addBehavior(well)
/// ```
public final class FieldBehavior: ItemBehavior {
    let kind: FieldKind
    let block: ((FieldBehavior, CGPoint, CGVector, CGFloat, CGFloat, TimeInterval) -> CGVector)?

    /// The field's origin, points.
    public var position: CGPoint = .zero {
        didSet { if !require(position.isSupportedCoordinate, "\(describe(self)): position must be \(Rule.coordinate), got \(position)") { position = oldValue; return }; changed() }
    }
    /// Where the field acts, relative to `position`. Default `.infinite`.
    public var region: Region = .infinite { didSet { changed() } }
    /// Scales the force (default 1). Negative strength reverses it.
    public var strength: CGFloat = 1 {
        didSet { if !require(strength.isWithin(SupportedRange.magnitude), "\(describe(self)): strength must be \(Rule.magnitude), got \(strength)") { strength = oldValue; return }; changed() }
    }
    /// Distance exponent: the force is multiplied by r^(−falloff) (r in metres). Defaults per kind: radial gravity
    /// 2, spring −1, electric and magnetic 1, others 0.
    public var falloff: CGFloat {
        didSet { if !require(falloff.isWithin(SupportedRange.falloff), "\(describe(self)): falloff must be finite and within ±4, got \(falloff)") { falloff = oldValue; return }; changed() }
    }
    /// Distances below this (points) count as this, so forces stay finite near `position`. Default 0.001.
    public var minimumRadius: CGFloat = 0.001 {
        didSet { if !require(minimumRadius.isFinite && minimumRadius >= 0 && minimumRadius <= SupportedRange.coordinate, "\(describe(self)): minimumRadius must be finite, not negative and at most 1,000,000 points, got \(minimumRadius)") { minimumRadius = oldValue; return }; changed() }
    }
    /// The direction (and size) of linear gravity and velocity fields.
    public var direction: CGVector = .zero {
        didSet { if !require(direction.isWithin(SupportedRange.magnitude), "\(describe(self)): direction must be \(Rule.magnitude), got \(direction)") { direction = oldValue; return }; changed() }
    }
    /// Noise and turbulence: 0 rough … 1 smooth.
    public var smoothness: CGFloat = 0 {
        didSet { if !require(smoothness.isFinite && smoothness >= 0 && smoothness <= 1, "\(describe(self)): smoothness must be within 0...1, got \(smoothness)") { smoothness = oldValue; return }; changed() }
    }
    /// Noise and turbulence: how fast the pattern changes; 0 freezes it.
    public var animationSpeed: CGFloat = 0 {
        didSet { if !require(animationSpeed.isFinite && animationSpeed >= 0 && animationSpeed <= SupportedRange.magnitude, "\(describe(self)): animationSpeed must be \(Rule.nonNegativeMagnitude), got \(animationSpeed)") { animationSpeed = oldValue; return }; changed() }
    }

    var version = 0
    func changed() { version += 1; invalidate() }

    init(kind: FieldKind, falloff: CGFloat, block: ((FieldBehavior, CGPoint, CGVector, CGFloat, CGFloat, TimeInterval) -> CGVector)? = nil) {
        self.kind = kind
        self.falloff = falloff
        self.block = block
        super.init(items: [])
    }

    /// Slows items in proportion to their velocity: F = −strength · v (v in metres/s).
    public static func dragField() -> FieldBehavior { FieldBehavior(kind: .drag, falloff: 0) }
    /// Circles items around `position`, counter-clockwise on screen for positive strength: F = strength · m · t̂.
    public static func vortexField() -> FieldBehavior { FieldBehavior(kind: .vortex, falloff: 0) }
    /// Pulls items towards `position`: F = −strength · m · r̂ · r^(−falloff), falloff 2 (inverse square).
    public static func radialGravityField(position: CGPoint) -> FieldBehavior {
        let f = FieldBehavior(kind: .radialGravity, falloff: 2)
        f.position = position
        return f
    }
    /// Uniform gravity along `direction`: a = direction × 100 pt/s² × strength.
    public static func linearGravityField(direction: CGVector) -> FieldBehavior {
        let f = FieldBehavior(kind: .linearGravity, falloff: 0)
        f.direction = direction
        return f
    }
    /// Sets the items' velocity to direction × 100 pt/s × strength, whatever else pushes them.
    public static func velocityField(direction: CGVector) -> FieldBehavior {
        let f = FieldBehavior(kind: .velocity, falloff: 0)
        f.direction = direction
        return f
    }
    /// A smooth random push that varies in space (and in time with `animationSpeed`): F = strength · m · n(x, t).
    public static func noiseField(smoothness: CGFloat, animationSpeed: CGFloat) -> FieldBehavior {
        let f = FieldBehavior(kind: .noise, falloff: 0)
        f.smoothness = smoothness
        f.animationSpeed = animationSpeed
        return f
    }
    /// Like noise, scaled by each item's speed (metres/s): still items feel nothing.
    public static func turbulenceField(smoothness: CGFloat, animationSpeed: CGFloat) -> FieldBehavior {
        let f = FieldBehavior(kind: .turbulence, falloff: 0)
        f.smoothness = smoothness
        f.animationSpeed = animationSpeed
        return f
    }
    /// Hooke's law towards `position`: F = −strength · r (r in metres; falloff −1).
    public static func springField() -> FieldBehavior { FieldBehavior(kind: .spring, falloff: -1) }
    /// Pushes charged items away from `position` (positive strength and charge): F = strength · charge · r̂ · r^(−1).
    public static func electricField() -> FieldBehavior { FieldBehavior(kind: .electric, falloff: 1) }
    /// Turns moving charged items, counter-clockwise on screen for positive strength and charge:
    /// F = strength · charge · v⊥ · r^(−1).
    public static func magneticField() -> FieldBehavior { FieldBehavior(kind: .magnetic, falloff: 1) }
    /// A field computed by `block(field, position, velocity, mass, charge, deltaTime)`, which returns a force in
    /// UIKit newtons. It is called once per affected item per step; a non-finite result is ignored and reported once.
    public static func field(evaluationBlock block: @escaping (FieldBehavior, CGPoint, CGVector, CGFloat, CGFloat, TimeInterval) -> CGVector) -> FieldBehavior {
        FieldBehavior(kind: .custom, falloff: 0, block: block)
    }

    /// The engine definition of this field.
    func definition(seed: UInt32) -> FieldDefinition {
        var d = FieldDefinition(kind: kind)
        d.position = position.vec
        d.region = region.shape
        d.strength = Float(strength)
        d.falloff = Float(falloff)
        d.minimumRadius = Float(minimumRadius)
        d.direction = direction.vec
        d.smoothness = Float(smoothness)
        d.animationSpeed = Float(animationSpeed)
        d.seed = seed
        if let block {
            d.evaluate = { [unowned self] s in
                block(self, CGPoint(s.position), CGVector(dx: CGFloat(s.velocity.x), dy: CGFloat(s.velocity.y)),
                      CGFloat(s.mass), CGFloat(s.charge), TimeInterval(s.deltaTime)).vec
            }
        }
        return d
    }
}

#if !canImport(UIKit)
public typealias UIFieldBehavior = FieldBehavior
#endif
