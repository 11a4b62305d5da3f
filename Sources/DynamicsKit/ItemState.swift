/// A snapshot of one item's state, for bulk reads.
public struct ItemState {
    public let item: DynamicItem
    /// Points.
    public let center: CGPoint
    /// Radians, clockwise on screen.
    public let angle: CGFloat
    /// Points/s.
    public let velocity: CGPoint
    /// Radians/s.
    public let angularVelocity: CGFloat
    /// False while the item sleeps (at rest).
    public let isAwake: Bool
}
