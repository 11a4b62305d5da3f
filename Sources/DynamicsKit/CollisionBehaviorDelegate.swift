/// Receives contact events from a collision behavior (UIKit's `UICollisionBehaviorDelegate`). All methods are
/// optional. Calls arrive after the step's physics, all began events before all ended ones.
///
/// Boundary events come in two spellings, and a delegate may implement either: UIKit's, whose identifier is
/// `NSCopying?` (an `NSString` for a string identifier, an `NSNumber` for a number), and a Swift one, whose
/// identifier is `AnyHashable?` (a `String`, an `Int` …). The animator calls the `NSCopying` form; its default
/// implementation calls the `AnyHashable` form. So a delegate written either way is called once per event (one
/// that implements both gets the `NSCopying` form only). `identifier` is nil for the reference-bounds boundary.
public protocol CollisionBehaviorDelegate: AnyObject {
    func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item1: DynamicItem, with item2: DynamicItem, at point: CGPoint)
    func collisionBehavior(_ behavior: CollisionBehavior, endedContactFor item1: DynamicItem, with item2: DynamicItem)
    /// UIKit's spelling: `identifier` is the `NSCopying` object the boundary was added with (or its Foundation form).
    func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item: DynamicItem, withBoundaryIdentifier identifier: NSCopying?, at point: CGPoint)
    /// UIKit's spelling of the ended boundary contact.
    func collisionBehavior(_ behavior: CollisionBehavior, endedContactFor item: DynamicItem, withBoundaryIdentifier identifier: NSCopying?)
    /// The Swift spelling: `identifier` is the boundary's identifier as a Swift value (`NSString` becomes `String`).
    func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item: DynamicItem, withBoundaryIdentifier identifier: AnyHashable?, at point: CGPoint)
    /// The Swift spelling of the ended boundary contact.
    func collisionBehavior(_ behavior: CollisionBehavior, endedContactFor item: DynamicItem, withBoundaryIdentifier identifier: AnyHashable?)
}

extension CollisionBehaviorDelegate {
    public func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item1: DynamicItem, with item2: DynamicItem, at point: CGPoint) {}
    public func collisionBehavior(_ behavior: CollisionBehavior, endedContactFor item1: DynamicItem, with item2: DynamicItem) {}
    public func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item: DynamicItem, withBoundaryIdentifier identifier: NSCopying?, at point: CGPoint) {
        collisionBehavior(behavior, beganContactFor: item, withBoundaryIdentifier: identifier.map(BoundaryIdentifier.hashable), at: point)
    }
    public func collisionBehavior(_ behavior: CollisionBehavior, endedContactFor item: DynamicItem, withBoundaryIdentifier identifier: NSCopying?) {
        collisionBehavior(behavior, endedContactFor: item, withBoundaryIdentifier: identifier.map(BoundaryIdentifier.hashable))
    }
    public func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item: DynamicItem, withBoundaryIdentifier identifier: AnyHashable?, at point: CGPoint) {}
    public func collisionBehavior(_ behavior: CollisionBehavior, endedContactFor item: DynamicItem, withBoundaryIdentifier identifier: AnyHashable?) {}
}
