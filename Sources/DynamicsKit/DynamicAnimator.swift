/// Runs the physics of its behaviors and moves their items: UIKit's `UIDynamicAnimator`.
///
/// ```swift
/// let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 400, height: 800))
/// let box = HeadlessItem(center: CGPoint(x: 200, y: 100), size: CGSize(width: 50, height: 50))
/// animator.addBehavior(GravityBehavior(items: [box]))
/// let collision = CollisionBehavior(items: [box])
/// collision.translatesReferenceBoundsIntoBoundary = true
/// animator.addBehavior(collision)
/// animator.runUntilPaused(timeout: 10)   // headless: step until everything rests
/// print(box.center)                       // (200.0, 775.0068359375): on the floor
/// ```
///
/// Time advances only when you step it (`step()`, `advance(by:)`, `runUntilPaused(timeout:)`) or attach a
/// `RealTimeDriver`. Use an animator and its behaviors and items from one thread at a time; separate animators are
/// independent and may run on separate threads at once.
open class DynamicAnimator {
    public enum Mode: Sendable { case referenceBounds, raw, layout }

    public let mode: Mode
    /// The stand-in for the reference view's bounds; nil for a raw animator.
    public let referenceBounds: CGRect?
    public private(set) var behaviors: [DynamicBehavior] = []
    public weak var delegate: DynamicAnimatorDelegate?
    /// True while the animator runs; it pauses when every item rests or no behavior is left.
    public internal(set) var isRunning = false
    /// Simulated seconds spent running (paused time is not counted).
    public internal(set) var elapsedTime: TimeInterval = 0
    /// The fixed step, seconds (default 1/60).
    public var timeStep: TimeInterval = 1.0 / 60 {
        didSet { if !require(SupportedRange.timeStep.contains(timeStep), "DynamicAnimator: timeStep must be between 0.00001 and 1 second, got \(timeStep)") { timeStep = oldValue } }
    }
    /// Substeps per step (default 4); more while a stack deeper than 64 items is awake, as it needs to stand
    /// (`WorldSettings.tallStackDepth`).
    public var substepCount = 4 {
        didSet { if !require(SupportedRange.substeps.contains(substepCount), "DynamicAnimator: substepCount must be between 1 and 64, got \(substepCount)") { substepCount = oldValue } }
    }
    /// Threads each step runs on, the caller's included (a DynamicsKit addition). Defaults to the machine's processor
    /// cores; 1 runs every step on the caller's thread. The simulation is the same to the bit for every count.
    public var workerCount: Int {
        get { world.workerCount }
        set {
            _ = require(newValue >= 1 && newValue <= WorkerPool.maximumWorkers,
                        "DynamicAnimator: workerCount must be between 1 and \(WorkerPool.maximumWorkers), got \(newValue)")
            try? world.setWorkerCount(newValue)
        }
    }
    /// Whether the steps leave their workers for the caller's thread alone while the workers are held up or slower
    /// (a DynamicsKit addition; default true). Off, the workers run every pass with enough work, whatever the timing.
    /// The simulation is the same to the bit either way.
    public var workersAdapt: Bool {
        get { world.workersAdapt }
        set { world.workersAdapt = newValue }
    }
    /// Simulated seconds per second of `advance(by:)` (1 = real time).
    public var speed: Double = 1 {
        didSet { if !require(speed.isFinite && speed >= 0 && speed <= 1_000_000, "DynamicAnimator: speed must be \(Rule.nonNegativeMagnitude), got \(speed)") { speed = oldValue } }
    }
    /// Timings of the last step.
    public internal(set) var lastStepTimings = AnimatorTimings()
    /// The engine world (for bulk reads and engine-level queries).
    public let world = World()

    // Items joined to the world, by tag (the body's user tag).
    var records: [ItemRecord?] = []
    var freeTags: [Int] = []
    var tagOf = TagMap()
    var boundaryOwner: [BodyID: (CollisionBehavior, BoundaryIdentifier?)] = [:]
    /// Bodies removed since the last event dispatch, for naming ended contacts.
    var retired: [BodyID: ContactParty] = [:]
    var needsCompile = false
    var compiledActions: [DynamicBehavior] = []
    var compiledCollisions: [CollisionBehavior] = []
    var compiledJointOwners: [DynamicBehavior] = []
    var classSignatures: [[Int]] = []
    var compiledFieldSignature: [[Int]] = []
    /// The members of each item group, by tag.
    var groupMembers: [Int: [GroupMember]] = [:]
    /// Items removed by the last compile, with the index of their collision list in `previousCollisionLists`,
    /// so the ended contacts of an item that has just left are still reported to its behaviors.
    var removedCollisionLists: [ObjectIdentifier: Int32] = [:]
    /// The same for items still here that the last compile took out of every collision behavior (by tag).
    var leftCollisionLists: [Int: Int32] = [:]
    /// The distinct lists of collision behaviors that the records' `collisionList` index (and, from the compile
    /// before, `removedCollisionLists` and `leftCollisionLists`): one list per distinct membership, not one array
    /// per item.
    var collisionLists: [[CollisionBehavior]] = []
    var previousCollisionLists: [[CollisionBehavior]] = []
    /// Whether any compiled collision behavior has a delegate (otherwise events are not dispatched at all).
    var anyCollisionDelegate: Bool { compiledCollisions.contains { $0.collisionDelegate != nil } }
    /// Receives engine warnings (for example a custom field block returning NaN, which is ignored). The default
    /// prints them to standard error.
    public var warningHandler: (String) -> Void = { message in
        FileHandle.standardError.write(Data("DynamicsKit warning: \(message)\n".utf8))
    }
    var inCallbacks = false
    /// Inside `dynamicAnimatorDidPause`: removals made there are applied together when it returns.
    var inPauseCallback = false
    /// Items of behaviors removed since the last compile, which may have left the physics world.
    var departureCandidates: [DynamicItem] = []
    var departureCandidateIDs = Set<ObjectIdentifier>()
    var stepObservers: [(DynamicAnimator) -> Void] = []
    var remainder: TimeInterval = 0

    /// An animator whose reference bounds can serve as a collision boundary.
    public init(referenceBounds: CGRect) {
        mode = .referenceBounds
        self.referenceBounds = referenceBounds
        _ = require(referenceBounds.origin.isSupportedCoordinate && referenceBounds.width.isWithin(2 * SupportedRange.coordinate)
                    && referenceBounds.height.isWithin(2 * SupportedRange.coordinate) && referenceBounds.width >= 0 && referenceBounds.height >= 0
                    && CGPoint(x: referenceBounds.maxX, y: referenceBounds.maxY).isSupportedCoordinate,
                    "DynamicAnimator: reference bounds must be \(Rule.coordinate) with a size not negative, got \(referenceBounds)")
    }

    /// An animator whose reference bounds are `referenceView`'s bounds, as UIKit's `init(referenceView:)`: the
    /// items' centers are in the view's coordinates, and its bounds can serve as a collision boundary. Any item
    /// stands in for the view (a `HeadlessItem(frame:)` the size of the screen, say); its bounds are read once,
    /// here.
    public convenience init(referenceView: DynamicItem) {
        self.init(referenceBounds: referenceView.bounds)
    }

    /// A raw animator: items in their own coordinates, no reference bounds.
    public init() {
        mode = .raw
        referenceBounds = nil
    }

    /// A layout animator for collection-view-style items (`LayoutAttributes` or any `KeyedDynamicItem`), whose
    /// content area is `layoutBounds`.
    public init(layoutBounds: CGRect) {
        mode = .layout
        referenceBounds = layoutBounds
    }

    // MARK: - Behaviors

    /// Adds a top-level behavior. Refused if it is already in this animator's tree or in another animator, or if
    /// one of its items is invalid.
    public func addBehavior(_ behavior: DynamicBehavior) {
        guard require(behavior.dynamicAnimator == nil,
                      "\(describe(behavior)) is already in \(behavior.dynamicAnimator === self ? "this" : "another") animator; a behavior can be in one animator's tree once"),
              require(behavior.parent == nil, "\(describe(behavior)) is a child of another behavior; add its root instead"),
              validateSubtree(behavior)
        else { return }
        itemsJoining(subtree: behavior)
        behavior.attach(to: self)
        behaviors.append(behavior)
        setNeedsCompile()
    }

    /// Removes a top-level behavior. Refused if it is not one of `behaviors`.
    public func removeBehavior(_ behavior: DynamicBehavior) {
        guard let k = behaviors.firstIndex(where: { $0 === behavior }) else {
            ContractViolation.report("\(describe(behavior)) is not a top-level behavior of this animator")
            return
        }
        behaviors.remove(at: k)
        behavior.detach()
        itemsMayHaveLeft(subtree: behavior)
    }

    /// Removes every top-level behavior (and so every item: each leaves the physics world).
    public func removeAllBehaviors() {
        let all = behaviors
        behaviors.removeAll()
        for b in all { b.detach() }
        for b in all { noteDepartureCandidates(of: b) }
        behaviorsRemoved()
    }

    // MARK: - Leaving and rejoining

    /// Called when a subtree leaves the tree: its items may no longer be held by any behavior.
    func itemsMayHaveLeft(subtree: DynamicBehavior) {
        noteDepartureCandidates(of: subtree)
        behaviorsRemoved()
    }

    /// Called when an item leaves one behavior of the tree.
    func itemMayHaveLeft(_ item: DynamicItem) {
        if departureCandidateIDs.insert(ObjectIdentifier(item)).inserted { departureCandidates.append(item) }
        behaviorsRemoved()
    }

    func noteDepartureCandidates(of subtree: DynamicBehavior) {
        var list: [DynamicBehavior] = []
        subtree.appendPreOrder(to: &list)
        for b in list {
            for item in b.memberItems where departureCandidateIDs.insert(ObjectIdentifier(item)).inserted {
                departureCandidates.append(item)
            }
        }
    }

    /// After a removal: the tree is compiled again before the next step. A running animator goes on (its next
    /// step pauses it if nothing is left to move). A paused one applies the removal now and resumes only if that
    /// leaves something moving (a floor taken from under resting items), so cleaning up inside
    /// `dynamicAnimatorDidPause` leaves it paused.
    func behaviorsRemoved() {
        needsCompile = true
        guard !isRunning, !inCallbacks, !inPauseCallback else { return }
        applyRemovalsWhilePaused()
    }

    /// Compiles the removals made while paused; resumes only if something is left moving.
    func applyRemovalsWhilePaused() {
        compile()
        if !behaviors.isEmpty && world.awakeBodyCount > 0 { resume() }
    }

    /// Before a subtree (or an item) joins: an item that has left the physics world since the last compile (no
    /// behavior holds it any more) leaves it now, so that joining again it starts from rest, with its position
    /// and transform read from the item (API.md, "Leaving the world"), even when it left and rejoins between the
    /// same two steps.
    func itemsJoining(subtree: DynamicBehavior) {
        guard !departureCandidates.isEmpty else { return }
        var list: [DynamicBehavior] = []
        subtree.appendPreOrder(to: &list)
        guard list.contains(where: { b in b.memberItems.contains { departureCandidateIDs.contains(ObjectIdentifier($0)) } }) else { return }
        settleDepartures()
    }

    func itemJoining(_ item: DynamicItem) {
        guard departureCandidateIDs.contains(ObjectIdentifier(item)) else { return }
        settleDepartures()
    }

    /// Takes the items that no behavior of the tree holds any more out of the world.
    func settleDepartures() {
        var held = Set<ObjectIdentifier>()
        var order: [DynamicBehavior] = []
        for b in behaviors { b.appendPreOrder(to: &order) }
        for b in order { for item in b.memberItems { held.insert(ObjectIdentifier(item)) } }
        for item in departureCandidates where !held.contains(ObjectIdentifier(item)) {
            if let tag = tagOf.tag(ObjectIdentifier(item), records) { destroyRecord(tag) }
        }
        departureCandidates.removeAll()
        departureCandidateIDs.removeAll()
    }

    /// Validates every item of a subtree and its attachments' ranges before it joins.
    func validateSubtree(_ root: DynamicBehavior) -> Bool {
        var list: [DynamicBehavior] = []
        root.appendPreOrder(to: &list)
        for b in list {
            if b === root, b.dynamicAnimator != nil { continue }
            if let reason = b.invalidReason() {
                ContractViolation.report("\(describe(b)) cannot join: \(reason)")
                return false
            }
            if let a = b as? AttachmentBehavior, a.items.count == 2, a.items[0] === a.items[1] {
                ContractViolation.report("\(describe(a)) attaches \(describe(a.items[0])) to itself")
                return false
            }
            for item in b.memberItems { guard validateItem(item, in: b) else { return false } }
        }
        return true
    }

    /// Checks an item against the rules of API.md before it joins.
    func validateItem(_ item: DynamicItem, in behavior: DynamicBehavior) -> Bool {
        if tagOf.tag(ObjectIdentifier(item), records) != nil { return true }
        if let group = item as? DynamicItemGroup {
            guard require(!group.items.isEmpty, "\(describe(behavior)): an item group needs at least one item") else { return false }
            for member in group.items {
                guard require(!(member is DynamicItemGroup), "\(describe(behavior)): item groups cannot be nested"),
                      require(tagOf.tag(ObjectIdentifier(member), records) == nil, "\(describe(behavior)): \(describe(member)) is already in the animator on its own; a group's members are not added alone"),
                      validateItem(member, in: behavior) else { return false }
            }
            return true
        }
        let c = item.center, s = item.bounds.size, t = item.transform
        guard require(c.isSupportedCoordinate, "\(describe(item)) in \(describe(behavior)): center must be \(Rule.coordinate), got \(c)"),
              require(SupportedRange.size.contains(s.width) && SupportedRange.size.contains(s.height),
                      "\(describe(item)) in \(describe(behavior)): bounds width and height must be \(Rule.size), got \(s.width)x\(s.height)"),
              require(t.a.isFinite && t.b.isFinite && (t.a != 0 || t.b != 0), "\(describe(item)) in \(describe(behavior)): transform must be finite with a rotation")
        else { return false }
        if item.collisionBoundsType == .path {
            do { _ = try item.collisionBoundingPath.convexPolygon() } catch {
                ContractViolation.report("\(describe(item)) in \(describe(behavior)): invalid collisionBoundingPath: \(error)")
                return false
            }
        }
        return true
    }

    /// Marks the compiled tables stale and resumes the animator.
    func setNeedsCompile() {
        needsCompile = true
        resume()
    }

    func resume() {
        guard !isRunning else { return }
        isRunning = true
        delegate?.dynamicAnimatorWillResume(self)
    }

    // MARK: - Items

    /// Items whose (unrotated) frame intersects `rect`.
    public func items(in rect: CGRect) -> [DynamicItem] {
        guard require(rect.origin.x.isFinite && rect.origin.y.isFinite && rect.width.isFinite && rect.height.isFinite,
                      "DynamicAnimator: items(in:) needs a finite rectangle, got \(rect)") else { return [] }
        compileIfNeeded()
        var out: [DynamicItem] = []
        for (tag, r) in records.enumerated() {
            guard let r else { continue }
            for item in r.isGroup ? (groupMembers[tag] ?? []).map(\.item) : [r.item] {
                let c = item.center, s = item.bounds.size
                // (An item whose own properties an app has made non-finite is in no rectangle.)
                guard c.x.isFinite, c.y.isFinite, s.width.isFinite, s.height.isFinite else { continue }
                let frame = CGRect(x: c.x - s.width / 2, y: c.y - s.height / 2, width: s.width, height: s.height)
                if frame.intersects(rect) { out.append(item) }
            }
        }
        return out
    }

    /// The layout item with `key` (layout mode), or nil.
    public func item(forLayoutKey key: AnyHashable) -> DynamicItem? {
        for (tag, r) in records.enumerated() {
            guard let r else { continue }
            if let k = r.item as? KeyedDynamicItem, k.layoutKey == key { return k }
            for m in groupMembers[tag] ?? [] { if let k = m.item as? KeyedDynamicItem, k.layoutKey == key { return k } }
        }
        return nil
    }

    /// The layout attributes of the cell at `indexPath` (layout mode), as UIKit's animator offers.
    public func layoutAttributesForCell(at indexPath: IndexPath) -> LayoutAttributes? {
        item(forLayoutKey: indexPath) as? LayoutAttributes
    }

    /// Re-reads the item's center, bounds and rotation, replacing the animator's state for it (velocity is kept).
    public func updateItem(usingCurrentState item: DynamicItem) {
        compileIfNeeded()
        guard let tag = tagOf.tag(ObjectIdentifier(item), records), let record = records[tag] else {
            ContractViolation.report("\(describe(item)) is not in this animator; updateItem(usingCurrentState:) needs an item of one of its behaviors")
            return
        }
        guard validateItemState(item) else { return }
        do {
            if record.shapesDiffer(size: item.bounds.size, boundsType: item.collisionBoundsType) {
                let (shapes, _) = try makeShapes(for: item, density: CGFloat(record.density))
                try world.setShapes(record.body, shapes)
                let size = item.bounds.size
                records[tag]!.width = Float(size.width); records[tag]!.height = Float(size.height)
                records[tag]!.boundsType = item.collisionBoundsType
            }
            try world.setTransform(record.body, origin: item.center.vec, angle: Float(item.transform.rotationAngle))
        } catch {
            ContractViolation.report("\(describe(item)): \(error)")
        }
        resume()
    }

    func validateItemState(_ item: DynamicItem) -> Bool {
        let c = item.center, s = item.bounds.size
        return require(c.isSupportedCoordinate, "\(describe(item)): center must be \(Rule.coordinate), got \(c)")
            && require(SupportedRange.size.contains(s.width) && SupportedRange.size.contains(s.height),
                       "\(describe(item)): bounds width and height must be \(Rule.size), got \(s.width)x\(s.height)")
    }

    /// Current velocity of an item in this animator.
    func velocity(of item: DynamicItem) -> (linear: CGPoint, angular: CGFloat)? {
        compileIfNeeded()
        guard let tag = tagOf.tag(ObjectIdentifier(item), records), let r = records[tag] else { return nil }
        let w = world.angularVelocity(of: r.body)
        // Velocity of the item's center (the body origin), which differs from the COM's when they differ.
        let arm = -world.rotation(of: r.body).rotate(world.localCenter(of: r.body))
        let v = world.velocity(of: r.body) + cross(w, arm)
        return (CGPoint(v), CGFloat(w))
    }

    func addVelocity(linear: Vec2, angular: Float, to item: DynamicItem) {
        compileIfNeeded()
        guard let tag = tagOf.tag(ObjectIdentifier(item), records), let r = records[tag] else { return }
        do {
            if linear != .zero { try world.setVelocity(r.body, world.velocity(of: r.body) + linear) }
            if angular != 0 { try world.setAngularVelocity(r.body, world.angularVelocity(of: r.body) + angular) }
        } catch { ContractViolation.report("\(describe(item)): \(error)") }
        resume()
    }

    /// A snapshot of every item's state.
    public func itemStates() -> [ItemState] {
        compileIfNeeded()
        var out: [ItemState] = []
        for r in records {
            guard let r else { continue }
            let o = world.origin(of: r.body)
            let w = world.angularVelocity(of: r.body)
            let arm = -world.rotation(of: r.body).rotate(world.localCenter(of: r.body))
            let v = world.velocity(of: r.body) + cross(w, arm)
            out.append(ItemState(item: r.item, center: CGPoint(o), angle: CGFloat(world.angle(of: r.body)),
                                 velocity: CGPoint(v), angularVelocity: CGFloat(w), isAwake: world.isAwake(r.body)))
        }
        return out
    }

    /// The items' kinetic energy, ½·m·v² + ½·I·ω² summed over every item (each about its center of mass): UIKit
    /// masses (density × area / 10,000) times (points/s)². A DynamicsKit addition, for checks that a scene loses
    /// energy as it should.
    public func kineticEnergy() -> Double {
        compileIfNeeded()
        var total = 0.0
        for r in records {
            guard let r else { continue }
            let v = world.velocity(of: r.body), w = Double(world.angularVelocity(of: r.body))
            let speed2 = Double(v.x) * Double(v.x) + Double(v.y) * Double(v.y)
            total += 0.5 * Double(world.mass(of: r.body)) * speed2 + 0.5 * Double(world.inertia(of: r.body)) * w * w
        }
        return total
    }

    /// Number of items in the animator (an item group counts once).
    public var itemCount: Int { compileIfNeeded(); return tagOf.count }
}

/// A member of an item group: its offset from the group origin and its angle at creation.
typealias GroupMember = (item: DynamicItem, offset: Vec2, angle: Float)
