/// Several items moving as one rigid body (how concave items are made): UIKit's `UIDynamicItemGroup`.
/// Add the group to behaviors, not its members. Its center is the center of its members' bounding box when it is
/// created; the animator writes every member's center and transform.
public final class DynamicItemGroup: DynamicItem {
    public let items: [DynamicItem]
    public var center: CGPoint
    public var bounds: CGRect
    public var transform: CGAffineTransform = .identity

    public init(items: [DynamicItem]) {
        self.items = items
        var minX = CGFloat.infinity, minY = CGFloat.infinity, maxX = -CGFloat.infinity, maxY = -CGFloat.infinity
        for item in items {
            let c = item.center, hw = item.bounds.width / 2, hh = item.bounds.height / 2
            minX = min(minX, c.x - hw); maxX = max(maxX, c.x + hw)
            minY = min(minY, c.y - hh); maxY = max(maxY, c.y + hh)
        }
        if items.isEmpty { minX = 0; minY = 0; maxX = 0; maxY = 0 }
        center = CGPoint(x: (minX + maxX) / 2, y: (minY + maxY) / 2)
        bounds = CGRect(x: 0, y: 0, width: maxX - minX, height: maxY - minY)
    }
}
