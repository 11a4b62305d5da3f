/// How an item's collision shape is derived.
public enum DynamicItemCollisionBoundsType: Int, Sendable {
    /// The item's `bounds` as an oriented rectangle (the default).
    case rectangle
    /// The ellipse inscribed in `bounds` (a circle when width equals height).
    case ellipse
    /// The convex `collisionBoundingPath`, in the item's coordinates with (0,0) at its center.
    case path
}

/// Anything the animator can move: UIKit's `UIDynamicItem`.
///
/// The animator reads `center`, `bounds.size` and the rotation of `transform` once, when the item first joins it
/// (and again on `updateItem(usingCurrentState:)`), and writes `center` (points) and `transform` (a pure rotation,
/// radians clockwise on screen) after every step in which the item moved.
public protocol DynamicItem: AnyObject {
    var center: CGPoint { get set }
    var bounds: CGRect { get }
    var transform: CGAffineTransform { get set }
    var collisionBoundsType: DynamicItemCollisionBoundsType { get }
    var collisionBoundingPath: BezierPath { get }
}

extension DynamicItem {
    public var collisionBoundsType: DynamicItemCollisionBoundsType { .rectangle }
    public var collisionBoundingPath: BezierPath { BezierPath() }
}
