/// A ready-made item for headless use: center, bounds and transform, with an optional name and color for
/// rendering and error messages.
///
/// ```swift
/// let box = HeadlessItem(center: CGPoint(x: 100, y: 100), size: CGSize(width: 50, height: 50), name: "box")
/// ```
public final class HeadlessItem: DynamicItem, CustomStringConvertible {
    // The animator writes center and transform of every moving item every step: plain stores, without the
    // run-time exclusivity check of a class property (which cost more than the rest of the write-back).
    @exclusivity(unchecked) public var center: CGPoint
    @exclusivity(unchecked) public var bounds: CGRect
    @exclusivity(unchecked) public var transform: CGAffineTransform = .identity
    public var collisionBoundsType: DynamicItemCollisionBoundsType
    /// The outline for `.path` bounds. An item that is not given one makes its empty path when first asked, so
    /// ten thousand rectangles do not carry ten thousand empty paths.
    public var collisionBoundingPath: BezierPath {
        get {
            if let path = storedPath { return path }
            let path = BezierPath()
            storedPath = path
            return path
        }
        set { storedPath = newValue }
    }
    private var storedPath: BezierPath?
    /// A name for messages and renderings.
    public var name: String?
    /// A CSS color for renderings (for example "#3478f6").
    public var color: String?

    public init(center: CGPoint, size: CGSize, name: String? = nil, color: String? = nil,
                collisionBoundsType: DynamicItemCollisionBoundsType = .rectangle, collisionBoundingPath: BezierPath? = nil) {
        self.center = center
        self.bounds = CGRect(origin: .zero, size: size)
        self.name = name
        self.color = color
        self.collisionBoundsType = collisionBoundsType
        self.storedPath = collisionBoundingPath
    }

    /// An item covering `frame`, the stand-in for `UIView(frame:)`: its center is the frame's middle, its bounds
    /// the frame's size at the origin.
    ///
    /// ```swift
    /// let square = HeadlessItem(frame: CGRect(x: 100, y: 100, width: 100, height: 100))   // center (150, 150)
    /// ```
    public convenience init(frame: CGRect, name: String? = nil, color: String? = nil,
                            collisionBoundsType: DynamicItemCollisionBoundsType = .rectangle, collisionBoundingPath: BezierPath? = nil) {
        self.init(center: CGPoint(x: frame.midX, y: frame.midY), size: frame.size, name: name, color: color,
                  collisionBoundsType: collisionBoundsType, collisionBoundingPath: collisionBoundingPath)
    }

    /// The rectangle the item covers in its superview's coordinates, as `UIView.frame`: reading it gives the box
    /// of `bounds` around `center` (the unrotated box: like UIKit's, it is meaningful while `transform` is the
    /// identity); setting it moves `center` to the frame's middle and sizes `bounds` to it. An item already in an
    /// animator takes the change with `updateItem(usingCurrentState:)`.
    public var frame: CGRect {
        get { CGRect(x: center.x - bounds.width / 2, y: center.y - bounds.height / 2, width: bounds.width, height: bounds.height) }
        set {
            center = CGPoint(x: newValue.midX, y: newValue.midY)
            bounds = CGRect(origin: bounds.origin, size: newValue.size)
        }
    }

    /// The rotation of `transform`, radians.
    public var angle: CGFloat { transform.rotationAngle }

    public var description: String {
        "HeadlessItem(\(name.map { "'\($0)' " } ?? "")center: (\(center.x), \(center.y)), size: \(bounds.width)x\(bounds.height), angle: \(angle))"
    }
}
