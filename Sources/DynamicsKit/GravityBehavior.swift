/// Constant acceleration for its items: UIKit's `UIGravityBehavior`. Magnitude 1 is 1000 points/s², whatever the
/// mass.
public final class GravityBehavior: ItemBehavior {
    /// Direction and strength: (0, 1) is down at magnitude 1. A non-unit vector keeps its length as magnitude.
    /// Setting it sets `angle` (unless the vector is zero) and `magnitude`.
    public var gravityDirection = CGVector(dx: 0, dy: 1) {
        didSet {
            if !require(gravityDirection.isWithin(SupportedRange.magnitude), "\(describe(self)): gravityDirection must be \(Rule.magnitude), got \(gravityDirection)") {
                gravityDirection = oldValue; return
            }
            if gravityDirection != .zero { storedAngle = gravityDirection.angle }
            invalidate()
        }
    }
    /// The angle, kept while the magnitude is 0 (UIKit's angle and magnitude are independent properties).
    private var storedAngle: CGFloat = .pi / 2

    public override init(items: [DynamicItem] = []) { super.init(items: items) }

    /// Radians; 0 points along +x, π/2 points down (the default). Independent of `magnitude`: set while the
    /// magnitude is 0, it applies once the magnitude is set.
    public var angle: CGFloat {
        get { storedAngle }
        set { setAngle(newValue, magnitude: magnitude) }
    }

    /// 1 = 1000 points/s². Changing it keeps the direction (and `angle`).
    public var magnitude: CGFloat {
        get { gravityDirection.length }
        set {
            guard requireWithin(newValue, SupportedRange.magnitude, "magnitude", self) else { return }
            let length = gravityDirection.length
            // Scaling the vector keeps an exact direction exact ((0, 1) stays on the axis).
            if length > 0 { gravityDirection = CGVector(dx: gravityDirection.dx / length * newValue, dy: gravityDirection.dy / length * newValue) }
            else { setAngle(storedAngle, magnitude: newValue) }
        }
    }

    public func setAngle(_ angle: CGFloat, magnitude: CGFloat) {
        guard requireFinite(angle, "angle", self), requireWithin(magnitude, SupportedRange.magnitude, "magnitude", self) else { return }
        gravityDirection = CGVector(angle: angle, magnitude: magnitude)
        storedAngle = angle
    }

    /// The acceleration in points/s².
    var acceleration: Vec2 { gravityDirection.vec * 1000 }
}

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
            let length = pushDirection.length
            if length > 0 { pushDirection = CGVector(dx: pushDirection.dx / length * newValue, dy: pushDirection.dy / length * newValue) }
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

    /// Sets where the push acts on `item`; an off-centre push also spins it.
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

/// Pulls an item to a point with a damped spring and turns it to angle 0: UIKit's `UISnapBehavior`.
public final class SnapBehavior: DynamicBehavior {
    public let item: DynamicItem
    /// The target, points. Setting it re-targets the snap.
    public var snapPoint: CGPoint {
        didSet {
            if !require(snapPoint.isSupportedCoordinate, "\(describe(self)): snapPoint must be \(Rule.coordinate), got \(snapPoint)") { snapPoint = oldValue; return }
            invalidate()
        }
    }
    /// 0…1; 1 gives the least oscillation. Default 0.5.
    public var damping: CGFloat = 0.5 {
        didSet {
            if !require(damping.isFinite && damping >= 0 && damping <= 1, "\(describe(self)): damping must be within 0...1, got \(damping)") {
                damping = oldValue; return
            }
            invalidate()
        }
    }

    public init(item: DynamicItem, snapTo point: CGPoint) {
        self.item = item
        self.snapPoint = point
        super.init()
        _ = require(point.isSupportedCoordinate, "\(describe(self)): snap point must be \(Rule.coordinate), got \(point)")
    }

    override var memberItems: [DynamicItem] { [item] }

    override func invalidReason() -> String? {
        snapPoint.isSupportedCoordinate ? nil : "snapPoint must be \(Rule.coordinate), got \(snapPoint)"
    }

    /// The spring: 3 Hz, damping ratio from 0.1 (damping 0) to 1, critically damped (damping 1).
    var springHertz: Float { 3 }
    var springDampingRatio: Float { 0.1 + 0.9 * Float(damping) }
    var jointID: JointID?
}
