/// Constant acceleration for its items: UIKit's `UIGravityBehavior`. Magnitude 1 is 1000 points/s², whatever the
/// mass.
public final class GravityBehavior: ItemBehavior {
    /// Direction and strength: (0, 1) is down at magnitude 1. A non-unit vector keeps its length as magnitude.
    public var gravityDirection = CGVector(dx: 0, dy: 1) {
        didSet {
            if !require(gravityDirection.isFinite, "\(describe(self)): gravityDirection must be finite, got \(gravityDirection)") {
                gravityDirection = oldValue; return
            }
            invalidate()
        }
    }

    public override init(items: [DynamicItem] = []) { super.init(items: items) }

    /// Radians; 0 points along +x, π/2 points down (the default).
    public var angle: CGFloat {
        get { gravityDirection.angle }
        set { setAngle(newValue, magnitude: magnitude) }
    }

    /// 1 = 1000 points/s².
    public var magnitude: CGFloat {
        get { gravityDirection.length }
        set { setAngle(angle, magnitude: newValue) }
    }

    public func setAngle(_ angle: CGFloat, magnitude: CGFloat) {
        guard requireFinite(angle, "angle", self), requireFinite(magnitude, "magnitude", self) else { return }
        gravityDirection = CGVector(angle: angle, magnitude: magnitude)
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
    /// Direction and strength in UIKit newtons per axis.
    public var pushDirection = CGVector.zero {
        didSet {
            if !require(pushDirection.isFinite, "\(describe(self)): pushDirection must be finite, got \(pushDirection)") {
                pushDirection = oldValue; return
            }
            invalidate()
        }
    }
    var offsets: [ObjectIdentifier: UIOffset] = [:]

    public init(items: [DynamicItem], mode: Mode) {
        self.mode = mode
        super.init(items: items)
    }

    /// Radians; 0 pushes along +x.
    public var angle: CGFloat {
        get { pushDirection.angle }
        set { setAngle(newValue, magnitude: magnitude) }
    }
    /// UIKit newtons.
    public var magnitude: CGFloat {
        get { pushDirection.length }
        set { setAngle(angle, magnitude: newValue) }
    }

    public func setAngle(_ angle: CGFloat, magnitude: CGFloat) {
        guard requireFinite(angle, "angle", self), requireFinite(magnitude, "magnitude", self) else { return }
        pushDirection = CGVector(angle: angle, magnitude: magnitude)
    }

    /// Where the push acts on `item`, as an offset from its center in its own coordinates (points).
    public func targetOffsetFromCenter(for item: DynamicItem) -> UIOffset { offsets[ObjectIdentifier(item)] ?? .zero }

    /// Sets where the push acts on `item`; an off-centre push also spins it.
    public func setTargetOffsetFromCenter(_ offset: UIOffset, for item: DynamicItem) {
        guard require(offset.isFinite, "\(describe(self)): target offset must be finite, got \(offset)") else { return }
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
            if !require(snapPoint.isFinite, "\(describe(self)): snapPoint must be finite, got \(snapPoint)") { snapPoint = oldValue; return }
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
        _ = require(point.isFinite, "\(describe(self)): snap point must be finite, got \(point)")
    }

    override var memberItems: [DynamicItem] { [item] }

    /// The spring: 3 Hz, damping ratio from 0.1 (damping 0) to 1, critically damped (damping 1).
    var springHertz: Float { 3 }
    var springDampingRatio: Float { 0.1 + 0.9 * Float(damping) }
    var jointID: JointID?
}
