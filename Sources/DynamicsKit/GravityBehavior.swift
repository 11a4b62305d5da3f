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
            // Scaling the vector keeps an exact direction exact ((0, 1) stays on the axis).
            if let scaled = gravityDirection.scaled(toLength: newValue) { gravityDirection = scaled }
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
