/// The base of every behavior: UIKit's `UIDynamicBehavior`. A behavior is configuration; the animator compiles
/// the tree of behaviors into the engine's tables before the next step.
///
/// Subclass it to make composite behaviors: add built-in behaviors as children in your initializer.
///
/// ```swift
/// final class BouncyFall: DynamicBehavior {
///     init(items: [DynamicItem]) {
///         super.init()
///         addChildBehavior(GravityBehavior(items: items))
///         let collision = CollisionBehavior(items: items)
///         collision.translatesReferenceBoundsIntoBoundary = true
///         addChildBehavior(collision)
///     }
/// }
/// ```
open class DynamicBehavior {
    public private(set) var childBehaviors: [DynamicBehavior] = []
    public private(set) weak var parent: DynamicBehavior?
    /// The animator whose tree holds this behavior, or nil.
    public internal(set) weak var dynamicAnimator: DynamicAnimator?
    /// Called once per step, after the physics, in pre-order depth-first tree order.
    public var action: (() -> Void)? { didSet { invalidate() } }
    /// A name for error messages and recordings.
    public var name: String?

    public init() {}

    /// Called before the behavior joins (`animator` non-nil) or leaves (nil) an animator.
    open func willMove(to dynamicAnimator: DynamicAnimator?) {}

    /// Adds a child; it applies while this behavior is in an animator. Refused if the child already has a
    /// parent or an animator, or would make a cycle.
    public func addChildBehavior(_ behavior: DynamicBehavior) {
        guard require(behavior !== self, "\(describe(self)) cannot be its own child"),
              require(behavior.parent == nil, "\(describe(behavior)) already has a parent behavior; remove it from there first"),
              require(behavior.dynamicAnimator == nil, "\(describe(behavior)) is already in an animator; a behavior can be in one animator's tree once"),
              require(!isDescendant(of: behavior), "adding \(describe(behavior)) as a child of \(describe(self)) would make a cycle")
        else { return }
        if let animator = dynamicAnimator {
            guard animator.validateSubtree(behavior) else { return }
            animator.itemsJoining(subtree: behavior)
            behavior.attach(to: animator)
        }
        behavior.parent = self
        childBehaviors.append(behavior)
        invalidate()
    }

    /// Removes a child. Refused if `behavior` is not a child of this behavior.
    public func removeChildBehavior(_ behavior: DynamicBehavior) {
        guard let k = childBehaviors.firstIndex(where: { $0 === behavior }) else {
            ContractViolation.report("\(describe(behavior)) is not a child of \(describe(self))")
            return
        }
        childBehaviors.remove(at: k)
        behavior.parent = nil
        if let animator = dynamicAnimator {
            behavior.detach()
            animator.itemsMayHaveLeft(subtree: behavior)
        }
    }

    func isDescendant(of other: DynamicBehavior) -> Bool {
        var p: DynamicBehavior? = self
        while let b = p { if b === other { return true }; p = b.parent }
        return false
    }

    func attach(to animator: DynamicAnimator) {
        willMove(to: animator)
        dynamicAnimator = animator
        joined()
        for c in childBehaviors { c.attach(to: animator) }
    }

    /// Called as the behavior joins an animator (after `willMove(to:)`).
    func joined() {}

    /// Why the behavior cannot join an animator as it is (a value its initializer was given outside the supported
    /// range, reported then), or nil.
    func invalidReason() -> String? { nil }

    func detach() {
        willMove(to: nil)
        dynamicAnimator = nil
        for c in childBehaviors { c.detach() }
    }

    /// Marks the animator's compiled tables stale and resumes it.
    func invalidate() { dynamicAnimator?.setNeedsCompile() }

    /// Items whose bodies this behavior needs (attachments: their one or two items).
    var memberItems: [DynamicItem] { [] }

    /// Pre-order, depth-first: this behavior, then each child's subtree in order.
    func appendPreOrder(to list: inout [DynamicBehavior]) {
        list.append(self)
        for c in childBehaviors { c.appendPreOrder(to: &list) }
    }
}

/// Shared item management for behaviors that take items (`items`, `addItem`, `removeItem`).
open class ItemBehavior: DynamicBehavior {
    public private(set) var items: [DynamicItem]
    /// Membership of `items` (only looked up, never iterated: the order is `items`'), so adding thousands of
    /// items one by one stays linear. Made when first needed (`addItem` or a per-item setting), not for a
    /// behavior given its items at once and never asked: ten thousand items would carry a set they never use.
    private var itemIDs: Set<ObjectIdentifier>?

    public init(items: [DynamicItem] = []) {
        var unique: [DynamicItem] = []
        var ids = Set<ObjectIdentifier>()
        for item in items where ids.insert(ObjectIdentifier(item)).inserted { unique.append(item) }
        self.items = unique
        super.init()
    }

    /// The membership set, made from `items` on first use.
    private func memberIDs() -> Set<ObjectIdentifier> {
        if let ids = itemIDs { return ids }
        let ids = Set(items.map { ObjectIdentifier($0) })
        itemIDs = ids
        return ids
    }

    /// Adds an item; adding one already held does nothing. In an animator, the item is validated now and a bad
    /// one (zero or non-finite size, invalid path) is refused.
    public func addItem(_ item: DynamicItem) {
        if memberIDs().contains(ObjectIdentifier(item)) { return }
        if let animator = dynamicAnimator {
            guard animator.validateItem(item, in: self) else { return }
            animator.itemJoining(item)
        }
        items.append(item)
        itemIDs?.insert(ObjectIdentifier(item))
        invalidate()
    }

    /// Removes an item. Refused if this behavior does not hold it.
    public func removeItem(_ item: DynamicItem) {
        guard let k = items.firstIndex(where: { $0 === item }) else {
            ContractViolation.report("\(describe(self)) does not hold \(describe(item)); nothing to remove")
            return
        }
        items.remove(at: k)
        itemIDs?.remove(ObjectIdentifier(item))
        itemRemoved(item)
        if let animator = dynamicAnimator { animator.itemMayHaveLeft(item) } else { invalidate() }
    }

    func itemRemoved(_ item: DynamicItem) {}

    override var memberItems: [DynamicItem] { items }

    func holds(_ item: DynamicItem) -> Bool { memberIDs().contains(ObjectIdentifier(item)) }
}

/// Checks that a value is finite; reports a violation naming `what` and `owner` otherwise.
func requireFinite(_ v: CGFloat, _ what: String, _ owner: AnyObject) -> Bool {
    require(v.isFinite, "\(describe(owner)): \(what) must be finite, got \(v)")
}

/// Checks that a value is finite and within ±`limit`; reports a violation naming `what` and `owner` otherwise.
func requireWithin(_ v: CGFloat, _ limit: CGFloat, _ what: String, _ owner: AnyObject) -> Bool {
    require(v.isWithin(limit), "\(describe(owner)): \(what) must be finite and within ±\(Int(limit).formatted()), got \(v)")
}
