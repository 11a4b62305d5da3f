/// A boundary identifier that has no Foundation object of its own (an enum case, a struct), wrapped so that it can
/// be handed out as UIKit's `NSCopying`. Two wrappers are equal when their values are.
public final class HashableBoundaryIdentifier: NSObject, NSCopying {
    /// The identifier as given.
    public let base: AnyHashable
    public init(_ base: AnyHashable) { self.base = base }
    public func copy(with zone: NSZone? = nil) -> Any { self }
    public override func isEqual(_ object: Any?) -> Bool { (object as? HashableBoundaryIdentifier)?.base == base }
    public override var hash: Int { base.hashValue }
    public override var description: String { "\(base)" }
}

/// One boundary identifier in both of its spellings: a Swift value that compares as UIKit compares identifiers
/// (`isEqual:`: the string "wall" equals the `NSString` "wall", the number 7 equals `NSNumber(7)`), and the
/// `NSCopying` object UIKit's API hands out.
struct BoundaryIdentifier {
    let hashable: AnyHashable
    let copying: NSCopying

    /// The Swift value of a UIKit identifier.
    static func hashable(_ id: NSCopying) -> AnyHashable {
        if let s = id as? NSString { return AnyHashable(String(s)) }
        if let wrapped = id as? HashableBoundaryIdentifier { return wrapped.base }
        if let object = id as? NSObject { return AnyHashable(object) }
        if let value = id as? AnyHashable { return value }
        // An `NSCopying` class that is neither an `NSObject` nor `Hashable`: identity, as `isEqual:` defaults to.
        return AnyHashable(ObjectIdentifier(id as AnyObject))
    }

    init(_ id: NSCopying) {
        hashable = BoundaryIdentifier.hashable(id)
        copying = id
    }

    init<ID: Hashable>(_ id: ID) {
        let value = AnyHashable(id)
        if let s = value.base as? String {
            hashable = AnyHashable(s); copying = NSString(string: s)
        } else if let ns = value.base as? NSCopying {
            hashable = BoundaryIdentifier.hashable(ns); copying = ns
        } else if let n = value.base as? Int {
            hashable = value; copying = NSNumber(value: n)
        } else if let d = value.base as? Double {
            hashable = value; copying = NSNumber(value: d)
        } else if let b = value.base as? Bool {
            hashable = value; copying = NSNumber(value: b)
        } else {
            hashable = value; copying = HashableBoundaryIdentifier(value)
        }
    }
}
