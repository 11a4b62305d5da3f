/// What a body in a contact event stands for: an item, or a boundary of a collision behavior. The animator keeps
/// it for the bodies removed during a step too, so that their ended events can still name them.
enum ContactParty {
    case item(DynamicItem)
    case boundary(CollisionBehavior, BoundaryIdentifier?)
}
