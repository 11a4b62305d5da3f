/// An area of space relative to a field's `position` (points): UIKit's `UIRegion`. Regions compose up to
/// `Region.maximumDepth` levels (a composition deeper than that is refused: the region is compiled, compared and
/// released by recursion).
///
/// ```swift
/// let ring = Region(radius: 200).difference(from: Region(radius: 100))   // between 100 and 200 pt
/// ring.contains(CGPoint(x: 150, y: 0))                                   // true
/// ```
public final class Region: CustomStringConvertible {
    let shape: FieldRegion
    /// Levels of composition (1 for a circle, rectangle or everywhere).
    let depth: Int

    /// The deepest composition accepted.
    public static let maximumDepth = FieldRegion.maximumDepth

    init(shape: FieldRegion, depth: Int = 1) { self.shape = shape; self.depth = depth }

    /// The composition of `parts` as `shape`, or `self` with a reported violation when it would be too deep.
    private func composed(_ shape: FieldRegion, _ parts: Region...) -> Region {
        let depth = parts.map(\.depth).max()! + 1
        guard require(depth <= Region.maximumDepth, "Region: a composition deeper than \(Region.maximumDepth) levels is not supported, got \(depth)") else { return self }
        return Region(shape: shape, depth: depth)
    }

    /// Everywhere.
    public static let infinite = Region(shape: .infinite)

    /// A circle of `radius` points around the field's position; points on the boundary are inside.
    public convenience init(radius: CGFloat) {
        if !require(radius.isFinite && radius >= 0 && radius <= 2 * SupportedRange.coordinate, "Region: radius must be finite, not negative and at most 2,000,000 points, got \(radius)") {
            self.init(shape: .circle(radius: 0))
            return
        }
        self.init(shape: .circle(radius: Float(radius)))
    }

    /// A rectangle of `size` points centered on the field's position; points on the edge are outside.
    public convenience init(size: CGSize) {
        if !require(size.width.isFinite && size.height.isFinite && size.width >= 0 && size.height >= 0
                        && size.width <= 4 * SupportedRange.coordinate && size.height <= 4 * SupportedRange.coordinate,
                    "Region: size must be finite and not negative, got \(size.width)x\(size.height)") {
            self.init(shape: .rectangle(width: 0, height: 0))
            return
        }
        self.init(shape: .rectangle(width: Float(size.width), height: Float(size.height)))
    }

    /// The points not in this region.
    public func inverse() -> Region { composed(.inverse(shape), self) }
    /// The points in either region.
    public func union(with region: Region) -> Region { composed(.union(shape, region.shape), self, region) }
    /// The points of this region that are not in `region`.
    public func difference(from region: Region) -> Region { composed(.difference(shape, region.shape), self, region) }
    /// The points in both regions.
    public func intersection(with region: Region) -> Region { composed(.intersection(shape, region.shape), self, region) }

    /// Whether `point` (relative to the field's position, points) is in the region.
    public func contains(_ point: CGPoint) -> Bool {
        guard point.isFinite else { return false }
        return shape.contains(point.vec)
    }

    public var description: String { "Region(\(shape))" }
}

#if !canImport(UIKit)
public typealias UIRegion = Region
#endif
