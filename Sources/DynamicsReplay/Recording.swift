import DynamicsKit

/// An item as a recording shows it: its name, size and shape, and a CSS color.
public struct RecordedItem: Equatable, Sendable {
    public var name: String
    public var width: Double
    public var height: Double
    public var ellipse: Bool
    public var color: String

    public init(name: String, width: Double, height: Double, ellipse: Bool = false, color: String) {
        self.name = name; self.width = width; self.height = height; self.ellipse = ellipse; self.color = color
    }
}

/// A contact that began or ended: between items `first` and `second` (their numbers in the recording), or an item
/// and a boundary (the other number −1, `boundary` its identifier: "reference bounds" for the animator's bounds).
public struct RecordedContact: Equatable, Sendable {
    public var began: Bool
    public var first: Int
    public var second: Int
    public var boundary: String?
    /// Where a contact began; NaN for one that ended.
    public var x: Float
    public var y: Float

    public init(began: Bool, first: Int, second: Int, boundary: String? = nil, x: Float = .nan, y: Float = .nan) {
        self.began = began; self.first = first; self.second = second; self.boundary = boundary; self.x = x; self.y = y
    }

    /// The contact of items `a` and `b` (−1: not recorded), the recorded one first; nil when neither is recorded.
    static func between(_ a: Int, _ b: Int, began: Bool, boundary: String?, point: (x: Float, y: Float)?) -> RecordedContact? {
        guard a >= 0 || b >= 0 else { return nil }
        let (first, second) = a >= 0 ? (a, b) : (b, a)
        return RecordedContact(began: began, first: first, second: second, boundary: boundary,
                               x: point?.x ?? .nan, y: point?.y ?? .nan)
    }
}

/// What a simulation did, frame by frame: every item's center and angle, the attachments, snap targets and
/// contact events of each frame, and the collision boundaries whenever they change. Written as CSV or JSON lines,
/// drawn as an HTML replay page or an SVG snapshot.
public final class Recording {
    public let title: String
    /// What the recording shows, in a sentence (the replay page prints it under the title).
    public var summary = ""
    /// How the simulation ended, in a line (the replay page prints it after the summary).
    public var outcome = ""
    /// The area to show, points: the reference bounds when there are some, else the items and anchors at the start.
    public internal(set) var viewBox: CGRect
    /// Whether `viewBox` is the animator's reference bounds (the screen), which the replay page outlines.
    public internal(set) var viewBoxIsReferenceBounds = false
    /// Seconds per step, and steps per recorded frame.
    public let stepTime: Double
    public let every: Int
    public let items: [RecordedItem]
    /// Simulated time of each frame, seconds.
    public internal(set) var times: [Double] = []
    /// Per frame, x, y (points) and angle (radians, clockwise on screen) of every item in turn.
    public internal(set) var states: [Float] = []
    /// Per frame, the attachments as segments x1, y1, x2, y2 (item end, then other item or anchor).
    public internal(set) var joints: [[Float]] = []
    /// Per frame, the snap behaviors as x1, y1 (the item) and x2, y2 (the snap point).
    public internal(set) var snaps: [[Float]] = []
    /// Per frame, the points (x, y) of the contacts that began since the frame before.
    public internal(set) var contacts: [[Float]] = []
    /// Per frame, how many items were awake.
    public internal(set) var awake: [Int] = []
    /// Per frame, vx, vy (points/s) and the spin (radians/s) of every item in turn.
    public internal(set) var velocities: [Float] = []
    /// Per frame, 1 for every item that was awake, 0 for one at rest, in turn.
    public internal(set) var itemAwake: [UInt8] = []
    /// Per frame, the contacts that began or ended since the frame before, with what touched what.
    public internal(set) var contactEvents: [[RecordedContact]] = []
    /// The collision boundaries as polylines, from the frame at which they took this shape.
    public internal(set) var boundaryChanges: [(frame: Int, outlines: [[CGPoint]])] = []
    /// An item's size from the frame at which its bounds took it (items otherwise keep their size in `items`): an
    /// item whose bounds a behavior's action changes, such as a button that grows.
    public internal(set) var sizeChanges: [(frame: Int, item: Int, width: Double, height: Double)] = []

    public var frameCount: Int { times.count }

    init(title: String, viewBox: CGRect, stepTime: Double, every: Int, items: [RecordedItem]) {
        self.title = title
        self.viewBox = viewBox
        self.stepTime = stepTime
        self.every = every
        self.items = items
    }

    /// A frame's contact events, and the points of those that began (what the replay page draws).
    func takeContacts(_ events: [RecordedContact]) {
        contactEvents.append(events)
        contacts.append(events.filter(\.began).flatMap { [$0.x, $0.y] })
    }

    /// The boundaries in force at `frame`.
    public func boundaries(atFrame frame: Int) -> [[CGPoint]] {
        boundaryChanges.last(where: { $0.frame <= frame })?.outlines ?? []
    }

    /// Each item's size at `frame`.
    public func sizes(atFrame frame: Int) -> [(width: Double, height: Double)] {
        var sizes = items.map { (width: $0.width, height: $0.height) }
        for change in sizeChanges where change.frame <= frame { sizes[change.item] = (change.width, change.height) }
        return sizes
    }

    /// The last frame at or before `time` seconds.
    public func frame(at time: Double) -> Int {
        var k = 0
        while k + 1 < times.count && times[k + 1] <= time + 1e-9 { k += 1 }
        return k
    }
}

/// Records an animator as it steps: frame 0 at creation, then one frame every `every` steps (and a last one on
/// `finish()` if the final step fell between frames). It watches through `addStepObserver`, so it is not part of
/// the behavior tree and survives `removeAllBehaviors()`.
public final class Recorder {
    public let recording: Recording
    private let animator: DynamicAnimator
    private let tracked: [DynamicItem]
    private let trackedIndex: [ObjectIdentifier: Int]
    private var schedule = FrameSchedule()
    /// The sizes last recorded, to notice an item whose bounds change.
    private var lastSizes: [CGSize]

    /// The default palette, by item index, for items without a color.
    public static let palette = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
                                 "#9c755f", "#bab0ac"]

    public init(animator: DynamicAnimator, items: [DynamicItem], title: String, every: Int = 1) {
        precondition(every >= 1, "Recorder: every must be at least 1, got \(every)")
        self.animator = animator
        tracked = items
        var index: [ObjectIdentifier: Int] = [:]
        for (k, item) in items.enumerated() where index[ObjectIdentifier(item)] == nil { index[ObjectIdentifier(item)] = k }
        trackedIndex = index
        // Compiled now, so that the first frame counts the awake items as the first step will.
        _ = animator.itemCount
        let recorded = items.enumerated().map { k, item -> RecordedItem in
            let headless = item as? HeadlessItem
            return RecordedItem(name: headless?.name ?? "item \(k)", width: Double(item.bounds.width),
                                height: Double(item.bounds.height), ellipse: item.collisionBoundsType == .ellipse,
                                color: headless?.color ?? Recorder.palette[k % Recorder.palette.count])
        }
        lastSizes = items.map(\.bounds.size)
        recording = Recording(title: title, viewBox: .zero, stepTime: animator.timeStep, every: every, items: recorded)
        recording.viewBox = Self.viewBox(animator: animator, items: items)
        if let rb = animator.referenceBounds, rb.width > 0, rb.height > 0 { recording.viewBoxIsReferenceBounds = true }
        capture()
        animator.addStepObserver { [weak self] _ in self?.stepped() }
    }

    private func stepped() {
        let events = animator.lastStepContactEvents().compactMap { e -> RecordedContact? in
            /// An item's number in the recording (−1 for one not recorded), or a boundary's identifier.
            func party(_ p: ContactEvent.Party) -> (Int, String?) {
                switch p {
                case let .item(item): return (trackedIndex[ObjectIdentifier(item)] ?? -1, nil)
                case let .boundary(_, id): return (-1, id.map { "\($0)" } ?? "reference bounds")
                }
            }
            let (a, boundaryA) = party(e.first), (b, boundaryB) = party(e.second)
            return RecordedContact.between(a, b, began: e.began, boundary: boundaryA ?? boundaryB,
                                           point: e.point.map { (Float($0.x), Float($0.y)) })
        }
        if schedule.stepped(events, every: recording.every) { capture() }
    }

    /// Records the current state as a frame unless the last step was just recorded.
    public func finish() {
        if schedule.needsLastFrame { capture() }
    }

    private func capture() {
        let r = recording
        r.times.append(animator.elapsedTime)
        var moving: [ObjectIdentifier: ItemState] = [:]
        for state in animator.itemStates() { moving[ObjectIdentifier(state.item)] = state }
        for item in tracked {
            r.states.append(Float(item.center.x)); r.states.append(Float(item.center.y))
            r.states.append(Float(item.transform.rotationAngle))
            // An item outside the world (no behavior holds it) is at rest.
            let state = moving[ObjectIdentifier(item)]
            r.velocities += [Float(state?.velocity.x ?? 0), Float(state?.velocity.y ?? 0), Float(state?.angularVelocity ?? 0)]
            r.itemAwake.append(state?.isAwake == true ? 1 : 0)
        }
        var joints: [Float] = [], snaps: [Float] = [], outlines: [[CGPoint]] = []
        Self.forEachBehavior(in: animator) { b in
            if let a = b as? AttachmentBehavior {
                let (p, q) = a.attachmentPoints
                joints += [Float(p.x), Float(p.y), Float(q.x), Float(q.y)]
            } else if let s = b as? SnapBehavior {
                snaps += [Float(s.item.center.x), Float(s.item.center.y), Float(s.snapPoint.x), Float(s.snapPoint.y)]
            } else if let c = b as? CollisionBehavior {
                if c.translatesReferenceBoundsIntoBoundary, let rb = animator.referenceBounds {
                    let i = c.referenceBoundsInsets
                    let x0 = rb.minX + i.left, y0 = rb.minY + i.top, x1 = rb.maxX - i.right, y1 = rb.maxY - i.bottom
                    outlines.append([CGPoint(x: x0, y: y0), CGPoint(x: x1, y: y0), CGPoint(x: x1, y: y1),
                                     CGPoint(x: x0, y: y1), CGPoint(x: x0, y: y0)])
                }
                for id in c.hashableBoundaryIdentifiers ?? [] {
                    if let path = c.boundary(withIdentifier: id) { outlines += path.polylines() }
                }
            }
        }
        r.joints.append(joints)
        r.snaps.append(snaps)
        r.takeContacts(schedule.frameTaken())
        r.awake.append(animator.world.awakeBodyCount)
        let frame = r.times.count - 1
        if r.boundaryChanges.last?.outlines != outlines { r.boundaryChanges.append((frame, outlines)) }
        for (k, item) in tracked.enumerated() where item.bounds.size != lastSizes[k] {
            lastSizes[k] = item.bounds.size
            r.sizeChanges.append((frame, k, Double(item.bounds.width), Double(item.bounds.height)))
        }
    }

    /// Every behavior in the animator's tree, in pre-order.
    private static func forEachBehavior(in animator: DynamicAnimator, _ body: (DynamicBehavior) -> Void) {
        func visit(_ b: DynamicBehavior) {
            body(b)
            for child in b.childBehaviors { visit(child) }
        }
        for b in animator.behaviors { visit(b) }
    }

    private static func viewBox(animator: DynamicAnimator, items: [DynamicItem]) -> CGRect {
        if let rb = animator.referenceBounds, rb.width > 0, rb.height > 0 { return rb }
        var lo = CGPoint(x: CGFloat.infinity, y: .infinity), hi = CGPoint(x: -CGFloat.infinity, y: -.infinity)
        func include(_ p: CGPoint, _ r: CGFloat) {
            lo = CGPoint(x: min(lo.x, p.x - r), y: min(lo.y, p.y - r)); hi = CGPoint(x: max(hi.x, p.x + r), y: max(hi.y, p.y + r))
        }
        for item in items { include(item.center, max(item.bounds.width, item.bounds.height)) }
        forEachBehavior(in: animator) { b in
            if let a = b as? AttachmentBehavior { include(a.attachmentPoints.0, 10); include(a.attachmentPoints.1, 10) }
            if let s = b as? SnapBehavior { include(s.snapPoint, 10) }
        }
        guard lo.x.isFinite, hi.x.isFinite else { return CGRect(x: 0, y: 0, width: 100, height: 100) }
        // A margin of a quarter on every side, so motion near the start stays in view.
        let w = max(hi.x - lo.x, 50), h = max(hi.y - lo.y, 50)
        return CGRect(x: lo.x - w / 4, y: lo.y - h / 4, width: w * 1.5, height: h * 1.5)
    }
}

/// Records a `World` driven through the bulk API (no animator): each body's center and angle, the awake count and
/// the contacts that began, in the same `Recording` the animator's `Recorder` fills, so CSV, JSON lines, the replay
/// page and SVG snapshots work alike. Call `stepped()` after each `World.step` and `finish()` at the end.
///
/// ```swift
/// let recorder = try WorldRecorder(world: world, bodies: ids, items: ids.map { _ in
///     RecordedItem(name: "box", width: 10, height: 10, color: "#4e79a7") }, title: "pile",
///     viewBox: CGRect(x: 0, y: 0, width: 1000, height: 800), stepTime: 1.0 / 60)
/// for _ in 0..<600 { try world.step(dt: 1.0 / 60, substeps: 4); recorder.stepped() }
/// recorder.finish()
/// print(recorder.recording.csv())
/// ```
public final class WorldRecorder {
    public let recording: Recording
    private let world: World
    private let bodies: [BodyID]
    private let index: [BodyID: Int]
    private var schedule = FrameSchedule()
    /// Each body's last recorded state, kept for a body destroyed since (a destroyed body stays where it was).
    private var last: [Float]

    /// `items` describes `bodies`, one for one; `boundaries` are polylines drawn as the collision boundaries (the
    /// world's static lines, say); `stepTime` is the `dt` the caller steps with. Throws a `DynamicsError` when the
    /// lists differ in length, a body is not in the world, `every` is below 1 or the view box is empty or not finite.
    public init(world: World, bodies: [BodyID], items: [RecordedItem], title: String, viewBox: CGRect, stepTime: Double,
                every: Int = 1, boundaries: [[CGPoint]] = []) throws {
        guard bodies.count == items.count else {
            throw DynamicsError("WorldRecorder: \(bodies.count) bodies but \(items.count) recorded items; give one item for each body")
        }
        if let stale = bodies.first(where: { !world.isValid($0) }) {
            throw DynamicsError("WorldRecorder: \(stale) is stale or was never created")
        }
        guard every >= 1 else { throw DynamicsError("WorldRecorder: every must be at least 1, got \(every)") }
        guard [viewBox.minX, viewBox.minY, viewBox.width, viewBox.height].allSatisfy(\.isFinite), viewBox.width > 0, viewBox.height > 0 else {
            throw DynamicsError("WorldRecorder: the view box must have a finite, positive size, got \(viewBox)")
        }
        guard stepTime.isFinite, stepTime > 0 else { throw DynamicsError("WorldRecorder: stepTime must be positive, got \(stepTime)") }
        self.world = world
        self.bodies = bodies
        var index: [BodyID: Int] = [:]
        for (k, id) in bodies.enumerated() where index[id] == nil { index[id] = k }
        self.index = index
        last = [Float](repeating: 0, count: 3 * bodies.count)
        recording = Recording(title: title, viewBox: viewBox, stepTime: stepTime, every: every, items: items)
        if !boundaries.isEmpty { recording.boundaryChanges.append((0, boundaries)) }
        capture()
    }

    /// Takes in the step just made: its contact events, and a frame every `every` steps.
    public func stepped() {
        var events: [RecordedContact] = []
        func add(_ a: BodyID, _ b: BodyID, began: Bool, point: Vec2?) {
            if let c = RecordedContact.between(index[a] ?? -1, index[b] ?? -1, began: began, boundary: nil,
                                               point: point.map { ($0.x, $0.y) }) { events.append(c) }
        }
        for e in world.contactBeganEvents { add(e.bodyA, e.bodyB, began: true, point: e.point) }
        for e in world.contactEndedEvents { add(e.bodyA, e.bodyB, began: false, point: nil) }
        if schedule.stepped(events, every: recording.every) { capture() }
    }

    /// Records the current state as a frame unless the last step was just recorded.
    public func finish() {
        if schedule.needsLastFrame { capture() }
    }

    private func capture() {
        let r = recording
        r.times.append(Double(schedule.steps) * r.stepTime)
        for (k, id) in bodies.enumerated() {
            guard world.isValid(id) else {
                // A destroyed body stays where it was last seen, at rest.
                r.velocities += [0, 0, 0]; r.itemAwake.append(0)
                continue
            }
            let o = world.origin(of: id)
            last[3 * k] = o.x; last[3 * k + 1] = o.y; last[3 * k + 2] = world.angle(of: id)
            // The velocity of the body's origin (the item's center): its center of mass's plus the turn about it.
            let w = world.angularVelocity(of: id)
            let arm = o - world.centerOfMass(of: id)
            let v = world.velocity(of: id) + Vec2(-w * arm.y, w * arm.x)
            r.velocities += [v.x, v.y, w]
            r.itemAwake.append(world.isAwake(id) ? 1 : 0)
        }
        r.states += last
        r.joints.append([])
        r.snaps.append([])
        r.takeContacts(schedule.frameTaken())
        r.awake.append(world.awakeBodyCount)
    }
}

/// When the recorders take a frame: every `every` steps, and once more at the end unless the last step was taken;
/// the points of the contacts that began since the last frame.
struct FrameSchedule {
    private(set) var steps = 0
    private var lastFrameStep = -1
    private var contacts: [RecordedContact] = []

    /// Counts a step and its contact events; whether to take a frame now.
    mutating func stepped(_ events: [RecordedContact], every: Int) -> Bool {
        steps += 1
        contacts += events
        return steps % every == 0
    }

    var needsLastFrame: Bool { lastFrameStep != steps }

    /// A frame is taken now: the contacts since the last one.
    mutating func frameTaken() -> [RecordedContact] {
        lastFrameStep = steps
        defer { contacts.removeAll() }
        return contacts
    }
}
