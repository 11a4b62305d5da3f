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

    /// The friction of this behavior's boundaries (the reference-bounds walls and the added boundaries), mixed with
    /// an item's as their geometric mean. UIKit's boundaries act as 0.2, the default. A DynamicsKit addition.
    public var boundaryFriction: CGFloat = 0.2 { didSet { boundaryMaterialSet("boundaryFriction", boundaryFriction, oldValue, \.boundaryFriction) } }
    /// The elasticity of this behavior's boundaries; a collision takes the larger of the two elasticities, so at 0 an
    /// item bounces off them as its own elasticity says. UIKit's boundaries act as 0.2, the default. A DynamicsKit
    /// addition.
    public var boundaryElasticity: CGFloat = 0.2 { didSet { boundaryMaterialSet("boundaryElasticity", boundaryElasticity, oldValue, \.boundaryElasticity) } }

    private func boundaryMaterialSet(_ name: String, _ value: CGFloat, _ old: CGFloat, _ keyPath: ReferenceWritableKeyPath<CollisionBehavior, CGFloat>) {
        guard value != old else { return }
        guard require(value.isWithin(SupportedRange.magnitude) && value >= 0, "\(describe(self)): \(name) must be \(Rule.nonNegativeMagnitude), got \(value)") else {
            self[keyPath: keyPath] = old
            return
        }
        boundariesChanged()
    }

    /// Boundaries in the order added.
    var boundaries: [(id: BoundaryIdentifier, path: BezierPath)] = []
    var boundaryVersion = 0

    public override init(items: [DynamicItem] = []) { super.init(items: items) }

    public func setTranslatesReferenceBoundsIntoBoundary(with insets: UIEdgeInsets) {
        guard require(insets.top.isWithin(SupportedRange.coordinate) && insets.left.isWithin(SupportedRange.coordinate)
                        && insets.bottom.isWithin(SupportedRange.coordinate) && insets.right.isWithin(SupportedRange.coordinate),
                      "\(describe(self)): insets must be \(Rule.coordinate), got \(insets)") else { return }
        referenceBoundsInsets = insets
        translatesReferenceBoundsIntoBoundary = true
        boundariesChanged()
    }

    /// Adds (or replaces) a boundary made of the path's lines and flattened curves. UIKit's spelling: any
    /// `NSCopying` identifier (`"wall" as NSString`, `NSNumber(value: 3)`), compared with `isEqual:`.
    public func addBoundary(withIdentifier identifier: NSCopying, for path: BezierPath) {
        addBoundary(BoundaryIdentifier(identifier), for: path)
    }

    /// Adds (or replaces) a boundary made of the path's lines and flattened curves; the identifier is any
    /// `Hashable` value (a `String` identifier is the same boundary as the `NSString` with its text).
    public func addBoundary<ID: Hashable>(withIdentifier identifier: ID, for path: BezierPath) {
        addBoundary(BoundaryIdentifier(identifier), for: path)
    }

    /// Adds (or replaces) a straight boundary from `p1` to `p2` (UIKit's spelling, an `NSCopying` identifier).
    public func addBoundary(withIdentifier identifier: NSCopying, from p1: CGPoint, to p2: CGPoint) {
        addBoundary(BoundaryIdentifier(identifier), from: p1, to: p2)
    }

    /// Adds (or replaces) a straight boundary from `p1` to `p2`.
    public func addBoundary<ID: Hashable>(withIdentifier identifier: ID, from p1: CGPoint, to p2: CGPoint) {
        addBoundary(BoundaryIdentifier(identifier), from: p1, to: p2)
    }

    func addBoundary(_ identifier: BoundaryIdentifier, for path: BezierPath) {
        let name = identifier.hashable
        guard require(path.isSupported, "\(describe(self)): boundary '\(name)' has a point that is not \(Rule.coordinate)"),
              require(!path.polylines().isEmpty, "\(describe(self)): boundary '\(name)' has no line to collide with")
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
        if let k = boundaries.firstIndex(where: { $0.id.hashable == name }) { boundaries[k] = (identifier, copy) } else { boundaries.append((identifier, copy)) }
        boundariesChanged()
    }

    func addBoundary(_ identifier: BoundaryIdentifier, from p1: CGPoint, to p2: CGPoint) {
        let name = identifier.hashable
        guard require(p1.isSupportedCoordinate && p2.isSupportedCoordinate, "\(describe(self)): boundary '\(name)' endpoints must be \(Rule.coordinate)"),
              require(p1 != p2, "\(describe(self)): boundary '\(name)' has zero length") else { return }
        let path = BezierPath()
        path.move(to: p1)
        path.addLine(to: p2)
        addBoundary(identifier, for: path)
    }

    /// The boundary added with `identifier` (UIKit's spelling), or nil.
    public func boundary(withIdentifier identifier: NSCopying) -> BezierPath? {
        boundary(BoundaryIdentifier(identifier))
    }

    /// The boundary added with `identifier`, or nil.
    public func boundary<ID: Hashable>(withIdentifier identifier: ID) -> BezierPath? {
        boundary(BoundaryIdentifier(identifier))
    }

    func boundary(_ identifier: BoundaryIdentifier) -> BezierPath? {
        boundaries.first { $0.id.hashable == identifier.hashable }?.path
    }

    /// Removes a boundary (UIKit's spelling); contacts with it end (and are reported). Refused if there is no such
    /// boundary.
    public func removeBoundary(withIdentifier identifier: NSCopying) {
        removeBoundary(BoundaryIdentifier(identifier))
    }

    /// Removes a boundary; contacts with it end (and are reported). Refused if there is no such boundary.
    public func removeBoundary<ID: Hashable>(withIdentifier identifier: ID) {
        removeBoundary(BoundaryIdentifier(identifier))
    }

    func removeBoundary(_ identifier: BoundaryIdentifier) {
        guard let k = boundaries.firstIndex(where: { $0.id.hashable == identifier.hashable }) else {
            ContractViolation.report("\(describe(self)) has no boundary '\(identifier.hashable)'")
            return
        }
        boundaries.remove(at: k)
        boundariesChanged()
    }

    /// Identifiers of the added boundaries as UIKit hands them out (`NSString` for a string, `NSNumber` for a
    /// number, the object itself for an `NSCopying` identifier), nil when there are none (the reference-bounds
    /// boundary is not listed).
    public var boundaryIdentifiers: [NSCopying]? { boundaries.isEmpty ? nil : boundaries.map(\.id.copying) }

    /// Identifiers of the added boundaries as Swift values (`String`, `Int` …), nil when there are none.
    public var hashableBoundaryIdentifiers: [AnyHashable]? { boundaries.isEmpty ? nil : boundaries.map(\.id.hashable) }

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
