/// A push for its items: UIKit's `UIPushBehavior`. Magnitude 1 on a 100×100-point item of density 1 accelerates
/// it by 100 points/s² (continuous) or changes its velocity by 100 points/s (instantaneous).
public final class PushBehavior: ItemBehavior {
    public enum Mode: Int, Sendable { case continuous, instantaneous }

    public let mode: Mode
    /// Continuous: pushes every step while true. Instantaneous: pushes once at the next step, then turns false;
    /// set it true again to push again.
    public var active: Bool = true { didSet { if active != oldValue { invalidate() } } }
    /// Direction and strength in UIKit newtons per axis. Derived from `angle` and `magnitude`; setting it sets
    /// both (the angle only when the vector is not zero).
    public var pushDirection = CGVector.zero {
        didSet {
            if !require(pushDirection.isWithin(SupportedRange.magnitude), "\(describe(self)): pushDirection must be \(Rule.magnitude), got \(pushDirection)") {
                pushDirection = oldValue; return
            }
            if pushDirection != .zero { storedAngle = pushDirection.angle }
            invalidate()
        }
    }
    /// The angle, kept while the magnitude is 0: `push.angle = .pi / 4; push.magnitude = 30` pushes at π/4.
    private var storedAngle: CGFloat = 0
    var offsets: [ObjectIdentifier: UIOffset] = [:]

    public init(items: [DynamicItem], mode: Mode) {
        self.mode = mode
        super.init(items: items)
    }

    /// Radians; 0 pushes along +x. Independent of `magnitude`: set while the magnitude is 0, it applies once the
    /// magnitude is set.
    public var angle: CGFloat {
        get { storedAngle }
        set { setAngle(newValue, magnitude: magnitude) }
    }
    /// UIKit newtons. Changing it keeps `angle`.
    public var magnitude: CGFloat {
        get { pushDirection.length }
        set {
            guard requireWithin(newValue, SupportedRange.magnitude, "magnitude", self) else { return }
            if let scaled = pushDirection.scaled(toLength: newValue) { pushDirection = scaled }
            else { setAngle(storedAngle, magnitude: newValue) }
        }
    }

    public func setAngle(_ angle: CGFloat, magnitude: CGFloat) {
        guard requireFinite(angle, "angle", self), requireWithin(magnitude, SupportedRange.magnitude, "magnitude", self) else { return }
        pushDirection = CGVector(angle: angle, magnitude: magnitude)
        storedAngle = angle
    }

    /// Where the push acts on `item`, as an offset from its center in its own coordinates (points).
    public func targetOffsetFromCenter(for item: DynamicItem) -> UIOffset { offsets[ObjectIdentifier(item)] ?? .zero }

    /// Sets where the push acts on `item`; an off-center push also spins it.
    public func setTargetOffsetFromCenter(_ offset: UIOffset, for item: DynamicItem) {
        guard require(offset.isWithin(SupportedRange.size.upperBound), "\(describe(self)): target offset must be finite and within ±100,000 points, got \(offset)") else { return }
        guard require(holds(item), "\(describe(self)) does not hold \(describe(item)); add it before setting its offset") else { return }
        offsets[ObjectIdentifier(item)] = offset
        invalidate()
    }

    override func itemRemoved(_ item: DynamicItem) { offsets[ObjectIdentifier(item)] = nil }

    /// The force (mass·points/s²) or impulse (mass·points/s) in engine units: 100 × UIKit newtons.
    var engineVector: Vec2 { pushDirection.vec * 100 }
}
