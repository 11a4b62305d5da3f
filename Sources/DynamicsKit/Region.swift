/// An area of space relative to a field's `position` (points): UIKit's `UIRegion`. Regions compose to any depth.
///
/// ```swift
/// let ring = Region(radius: 200).difference(from: Region(radius: 100))   // between 100 and 200 pt
/// ring.contains(CGPoint(x: 150, y: 0))                                   // true
/// ```
public final class Region: CustomStringConvertible {
    let shape: FieldRegion

    init(shape: FieldRegion) { self.shape = shape }

    /// Everywhere.
    public static let infinite = Region(shape: .infinite)

    /// A circle of `radius` points around the field's position; points on the boundary are inside.
    public convenience init(radius: CGFloat) {
        if !require(radius.isFinite && radius >= 0, "Region: radius must be finite and not negative, got \(radius)") {
            self.init(shape: .circle(radius: 0))
            return
        }
        self.init(shape: .circle(radius: Float(radius)))
    }

    /// A rectangle of `size` points centred on the field's position; points on the edge are outside.
    public convenience init(size: CGSize) {
        if !require(size.width.isFinite && size.height.isFinite && size.width >= 0 && size.height >= 0,
                    "Region: size must be finite and not negative, got \(size.width)x\(size.height)") {
            self.init(shape: .rectangle(width: 0, height: 0))
            return
        }
        self.init(shape: .rectangle(width: Float(size.width), height: Float(size.height)))
    }

    /// The points not in this region.
    public func inverse() -> Region { Region(shape: .inverse(shape)) }
    /// The points in either region.
    public func union(with region: Region) -> Region { Region(shape: .union(shape, region.shape)) }
    /// The points of this region that are not in `region`.
    public func difference(from region: Region) -> Region { Region(shape: .difference(shape, region.shape)) }
    /// The points in both regions.
    public func intersection(with region: Region) -> Region { Region(shape: .intersection(shape, region.shape)) }

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
