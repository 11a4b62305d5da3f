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
