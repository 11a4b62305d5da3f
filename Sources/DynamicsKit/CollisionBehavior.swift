/// Receives contact events from a collision behavior (UIKit's `UICollisionBehaviorDelegate`). All methods are
/// optional. Calls arrive after the step's physics, all began events before all ended ones.
public protocol CollisionBehaviorDelegate: AnyObject {
    func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item1: DynamicItem, with item2: DynamicItem, at point: CGPoint)
    func collisionBehavior(_ behavior: CollisionBehavior, endedContactFor item1: DynamicItem, with item2: DynamicItem)
    /// `identifier` is nil for the reference-bounds boundary.
    func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item: DynamicItem, withBoundaryIdentifier identifier: AnyHashable?, at point: CGPoint)
    func collisionBehavior(_ behavior: CollisionBehavior, endedContactFor item: DynamicItem, withBoundaryIdentifier identifier: AnyHashable?)
}

extension CollisionBehaviorDelegate {
    public func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item1: DynamicItem, with item2: DynamicItem, at point: CGPoint) {}
    public func collisionBehavior(_ behavior: CollisionBehavior, endedContactFor item1: DynamicItem, with item2: DynamicItem) {}
    public func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item: DynamicItem, withBoundaryIdentifier identifier: AnyHashable?, at point: CGPoint) {}
    public func collisionBehavior(_ behavior: CollisionBehavior, endedContactFor item: DynamicItem, withBoundaryIdentifier identifier: AnyHashable?) {}
}

/// Makes its items collide with each other and with boundaries: UIKit's `UICollisionBehavior`. Items collide only
/// with items of the same collision behavior.
public final class CollisionBehavior: ItemBehavior {
    public struct Mode: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let items = Mode(rawValue: 1)
        public static let boundaries = Mode(rawValue: 2)
        public static let everything: Mode = [.items, .boundaries]
    }

    public var collisionMode: Mode = .everything { didSet { invalidate() } }
    public weak var collisionDelegate: CollisionBehaviorDelegate?

    /// When true, the animator's reference bounds (inset by `referenceBoundsInsets`) are a boundary.
    public var translatesReferenceBoundsIntoBoundary = false { didSet { boundariesChanged() } }
    public private(set) var referenceBoundsInsets = UIEdgeInsets.zero

    /// Boundaries in the order added.
    var boundaries: [(id: AnyHashable, path: BezierPath)] = []
    var boundaryVersion = 0

    public override init(items: [DynamicItem] = []) { super.init(items: items) }

    public func setTranslatesReferenceBoundsIntoBoundary(with insets: UIEdgeInsets) {
        guard require(insets.top.isFinite && insets.left.isFinite && insets.bottom.isFinite && insets.right.isFinite,
                      "\(describe(self)): insets must be finite, got \(insets)") else { return }
        referenceBoundsInsets = insets
        translatesReferenceBoundsIntoBoundary = true
        boundariesChanged()
    }

    /// Adds (or replaces) a boundary made of the path's lines and flattened curves.
    public func addBoundary(withIdentifier identifier: AnyHashable, for path: BezierPath) {
        guard require(path.isFinite, "\(describe(self)): boundary '\(identifier)' has a non-finite point"),
              require(!path.polylines().isEmpty, "\(describe(self)): boundary '\(identifier)' has no line to collide with")
        else { return }
        let copy = BezierPath()
        for e in path.elements {
            switch e {
            case let .move(p): copy.move(to: p)
            case let .line(p): copy.addLine(to: p)
            case let .quadCurve(p, c): copy.addQuadCurve(to: p, controlPoint: c)
            case let .curve(p, c1, c2): copy.addCurve(to: p, controlPoint1: c1, controlPoint2: c2)
            case .close: copy.close()
            }
        }
        if let k = boundaries.firstIndex(where: { $0.id == identifier }) { boundaries[k].path = copy } else { boundaries.append((identifier, copy)) }
        boundariesChanged()
    }

    /// Adds (or replaces) a straight boundary from `p1` to `p2`.
    public func addBoundary(withIdentifier identifier: AnyHashable, from p1: CGPoint, to p2: CGPoint) {
        guard require(p1.isFinite && p2.isFinite, "\(describe(self)): boundary '\(identifier)' endpoints must be finite"),
              require(p1 != p2, "\(describe(self)): boundary '\(identifier)' has zero length") else { return }
        let path = BezierPath()
        path.move(to: p1)
        path.addLine(to: p2)
        addBoundary(withIdentifier: identifier, for: path)
    }

    public func boundary(withIdentifier identifier: AnyHashable) -> BezierPath? {
        boundaries.first { $0.id == identifier }?.path
    }

    /// Removes a boundary; contacts with it end (and are reported). Refused if there is no such boundary.
    public func removeBoundary(withIdentifier identifier: AnyHashable) {
        guard let k = boundaries.firstIndex(where: { $0.id == identifier }) else {
            ContractViolation.report("\(describe(self)) has no boundary '\(identifier)'")
            return
        }
        boundaries.remove(at: k)
        boundariesChanged()
    }

    /// Identifiers of the added boundaries, nil when there are none (the reference-bounds boundary is not listed).
    public var boundaryIdentifiers: [AnyHashable]? { boundaries.isEmpty ? nil : boundaries.map(\.id) }

    /// Removes every added boundary (keeps the reference-bounds boundary).
    public func removeAllBoundaries() {
        if boundaries.isEmpty { return }
        boundaries.removeAll()
        boundariesChanged()
    }

    func boundariesChanged() {
        boundaryVersion += 1
        invalidate()
    }

    // Compiled state (owned by the animator).
    var compiledBoundaryVersion = -1
    var compiledReferenceBounds: CGRect?
    var boundaryBodies: [BodyID] = []
}
