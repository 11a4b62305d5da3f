/// An item with a layout key (for example an index path), for animators in layout mode.
public protocol KeyedDynamicItem: DynamicItem {
    var layoutKey: AnyHashable { get }
}

/// A ready-made layout item, the stand-in for `UICollectionViewLayoutAttributes`.
public final class LayoutAttributes: KeyedDynamicItem {
    public let indexPath: IndexPath
    public var center: CGPoint
    public var bounds: CGRect
    public var transform: CGAffineTransform = .identity
    public var layoutKey: AnyHashable { indexPath }
    /// The frame of the (unrotated) bounds around `center`.
    public var frame: CGRect { CGRect(x: center.x - bounds.width / 2, y: center.y - bounds.height / 2, width: bounds.width, height: bounds.height) }

    public init(forCellWith indexPath: IndexPath, frame: CGRect) {
        self.indexPath = indexPath
        self.center = CGPoint(x: frame.midX, y: frame.midY)
        self.bounds = CGRect(origin: .zero, size: frame.size)
    }
}
