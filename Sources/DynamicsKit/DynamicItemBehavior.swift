/// Material and motion properties for its items: UIKit's `UIDynamicItemBehavior`.
///
/// The defaults (elasticity 0.2, friction 0.2, density 1, resistance 0.1, angular resistance 0.1, rotation allowed,
/// charge 0, not anchored) apply to every item, including items in no item behavior. When several item behaviors
/// set one property of one item, the last in pre-order depth-first tree order wins; removing a behavior restores
/// what the others set.
public final class DynamicItemBehavior: ItemBehavior {
    enum Property: Int, CaseIterable { case elasticity, friction, density, resistance, angularResistance, allowsRotation, charge, anchored }
    var setProperties = Set<Property>()

    /// Restitution 0…1 (pairs use the larger).
    public var elasticity: CGFloat = 0.2 { didSet { propertySet(.elasticity, elasticity, oldValue, \.elasticity, nonNegative: true) } }
    /// Coulomb friction coefficient (pairs use √(μ1·μ2)).
    public var friction: CGFloat = 0.2 { didSet { propertySet(.friction, friction, oldValue, \.friction, nonNegative: true) } }
    /// Mass = density × width × height / 10 000. Must be positive.
    public var density: CGFloat = 1 {
        didSet {
            if !require(density.isFinite && density > 0 && density <= SupportedRange.magnitude, "\(describe(self)): density must be positive, finite and at most 1,000,000, got \(density)") { density = oldValue; return }
            setProperties.insert(.density); invalidate()
        }
    }
    /// Linear damping rate (1/s): v(t) = v0 · e^(−resistance · t).
    public var resistance: CGFloat = 0.1 { didSet { propertySet(.resistance, resistance, oldValue, \.resistance, nonNegative: true) } }
    /// Angular damping rate (1/s).
    public var angularResistance: CGFloat = 0.1 { didSet { propertySet(.angularResistance, angularResistance, oldValue, \.angularResistance, nonNegative: true) } }
    public var allowsRotation = true { didSet { setProperties.insert(.allowsRotation); invalidate() } }
    /// Electric charge, used by electric and magnetic fields.
    public var charge: CGFloat = 0 { didSet { propertySet(.charge, charge, oldValue, \.charge, nonNegative: false) } }
    /// Fixed in place; still collides.
    public var isAnchored = false { didSet { setProperties.insert(.anchored); invalidate() } }

    private func propertySet(_ p: Property, _ value: CGFloat, _ old: CGFloat, _ keyPath: ReferenceWritableKeyPath<DynamicItemBehavior, CGFloat>, nonNegative: Bool) {
        let ok = value.isWithin(SupportedRange.magnitude) && (!nonNegative || value >= 0)
        if !require(ok, "\(describe(self)): \(p) must be \(nonNegative ? Rule.nonNegativeMagnitude : Rule.magnitude), got \(value)") {
            self[keyPath: keyPath] = old
            return
        }
        setProperties.insert(p)
        invalidate()
    }

    public override init(items: [DynamicItem] = []) { super.init(items: items) }

    /// Adds a velocity (points/s) to the item's current velocity.
    public func addLinearVelocity(_ velocity: CGPoint, for item: DynamicItem) {
        guard require(velocity.isWithin(SupportedRange.speed), "\(describe(self)): velocity for \(describe(item)) must be \(Rule.speed), got \(velocity)"),
              require(holds(item), "\(describe(self)) does not hold \(describe(item)); add it before changing its velocity") else { return }
        if let animator = dynamicAnimator { animator.addVelocity(linear: velocity.vec, angular: 0, to: item) }
        else { pending.append((ObjectIdentifier(item), velocity.vec, 0)) }
    }

    /// The item's velocity (points/s); `.zero` for an item this behavior does not hold or outside an animator.
    public func linearVelocity(for item: DynamicItem) -> CGPoint {
        guard holds(item), let animator = dynamicAnimator else { return .zero }
        return animator.velocity(of: item)?.linear ?? .zero
    }

    /// Adds an angular velocity (radians/s, positive clockwise on screen).
    public func addAngularVelocity(_ velocity: CGFloat, for item: DynamicItem) {
        guard require(velocity.isWithin(SupportedRange.angularSpeed), "\(describe(self)): angular velocity for \(describe(item)) must be \(Rule.angularSpeed), got \(velocity)"),
              require(holds(item), "\(describe(self)) does not hold \(describe(item)); add it before changing its velocity") else { return }
        if let animator = dynamicAnimator { animator.addVelocity(linear: .zero, angular: Float(velocity), to: item) }
        else { pending.append((ObjectIdentifier(item), .zero, Float(velocity))) }
    }

    /// The item's angular velocity (radians/s); 0 for an item this behavior does not hold.
    public func angularVelocity(for item: DynamicItem) -> CGFloat {
        guard holds(item), let animator = dynamicAnimator else { return 0 }
        return animator.velocity(of: item)?.angular ?? 0
    }

    /// Velocity changes made before the behavior joined an animator.
    var pending: [(ObjectIdentifier, Vec2, Float)] = []
}
