import DynamicsKit
import DynamicsProfiles
import DynamicsReplay
import Foundation

/// A running scene that pages put their fingers on: a profile's animator, the drags in progress, and the frames and
/// figures the pages are sent. It is not thread-safe: one owner (the server's simulation loop) calls it.
///
/// The gestures are UIKit's: a pointer down on an item adds a zero-length `AttachmentBehavior` at the touch point
/// (the drag of the reference documents), a move sets its `anchorPoint`, and an up removes it so that the item
/// flies on with the velocity the drag gave it, or adds a `SnapBehavior` back to where the item was picked up.
///
/// Inputs are applied between steps, in the order given, and each applied input is passed to `onApplied` with the
/// step it came before (`steps`), which is what an input log needs to re-simulate the session bit for bit.
public final class PlaySession {
    public let profile: Profile
    /// The profile's source, kept so that a log can rebuild the scene.
    public let profileJSON: String
    public private(set) var scene: ProfileScene
    /// The scene's items, then the spawned ones.
    public private(set) var items: [HeadlessItem]
    /// Steps advanced since the session began (resets included).
    public private(set) var steps = 0
    public private(set) var paused = false
    public private(set) var speed = 1.0
    /// Goes up whenever the item table changes (a reset, a spawn): pages need the new table before the next frame.
    public private(set) var sceneVersion = 0
    /// Called with every applied input and the step it was applied before.
    public var onApplied: ((_ step: Int, _ client: Int, _ input: PlayInput) -> Void)?
    /// Called after a reset or spawn with the new animator and items (a recorder starts a new segment).
    public var onSceneChange: ((PlaySession) -> Void)?
    public let workerCount: Int?

    struct DragKey: Hashable, Comparable {
        let client: Int, pointer: Int
        static func < (a: DragKey, b: DragKey) -> Bool { (a.client, a.pointer) < (b.client, b.pointer) }
    }
    struct Drag {
        let item: HeadlessItem
        let attachment: AttachmentBehavior
        let pickedUpAt: CGPoint
    }
    private var drags: [DragKey: Drag] = [:]
    private var snaps: [ObjectIdentifier: SnapBehavior] = [:]
    private var spawned = 0
    /// The states of the last captured frame (x, y, angle per item), for delta frames.
    private var lastStates: [Float] = []
    private var contactsThisFrame: [Float] = []

    /// Builds the session from a profile's JSON (a name's file or a path's) with its file name for messages.
    public init(profileJSON: String, file: String, workerCount: Int? = nil) throws {
        self.profileJSON = profileJSON
        self.workerCount = workerCount
        profile = try Profile(json: profileJSON, file: file)
        let scene = try profile.makeCheckedScene()
        self.scene = scene
        items = scene.items
        configure()
    }

    private func configure() {
        if let w = workerCount { scene.animator.workerCount = w }
        scene.animator.addStepObserver { [weak self] animator in
            guard let self else { return }
            for e in animator.lastStepContactEvents() where e.began {
                if let p = e.point { contactsThisFrame += [Float(p.x), Float(p.y)] }
            }
        }
    }

    public var animator: DynamicAnimator { scene.animator }
    /// The pointers held down, as (client, pointer), in order.
    public var heldPointers: [(client: Int, pointer: Int)] { drags.keys.sorted().map { ($0.client, $0.pointer) } }

    // MARK: Input

    /// Applies one input from `client` before the next step. Refusals name the input and the rule.
    public func apply(_ input: PlayInput, from client: Int) throws {
        let before = steps
        switch input {
        case let .down(pointer, x, y):
            let key = DragKey(client: client, pointer: pointer)
            guard drags[key] == nil else { throw PlayInputError("down: pointer \(pointer) is already down; send 'up' first") }
            let point = CGPoint(x: x, y: y)
            // Nothing under the pointer: a touch on the background, which UIKit code ignores too.
            guard let item = item(at: point) else { break }
            if let snap = snaps.removeValue(forKey: ObjectIdentifier(item)) { animator.removeBehavior(snap) }
            let d = CGPoint(x: point.x - item.center.x, y: point.y - item.center.y)
            let a = -item.transform.rotationAngle
            let local = UIOffset(horizontal: d.x * cos(a) - d.y * sin(a), vertical: d.x * sin(a) + d.y * cos(a))
            let attachment = AttachmentBehavior(item: item, offsetFromCenter: local, attachedToAnchor: point)
            attachment.length = 0
            animator.addBehavior(attachment)
            drags[key] = Drag(item: item, attachment: attachment, pickedUpAt: item.center)
        case let .move(pointer, x, y):
            guard let drag = drags[DragKey(client: client, pointer: pointer)] else { break }
            drag.attachment.anchorPoint = CGPoint(x: x, y: y)
        case let .up(pointer, snapBack, velocity):
            guard let drag = drags.removeValue(forKey: DragKey(client: client, pointer: pointer)) else { break }
            animator.removeBehavior(drag.attachment)
            if !snapBack, let velocity {
                // The release: the item leaves at the pointer's velocity, as UIKit drag code does on `.ended` with
                // `addLinearVelocity(gesture.velocity(in:), for:)` (here net of what the drag already gave it, so
                // that a smooth drag is not thrown at twice its speed).
                let behavior = releaseBehavior()
                if !behavior.items.contains(where: { $0 === drag.item }) { behavior.addItem(drag.item) }
                let now = behavior.linearVelocity(for: drag.item)
                behavior.addLinearVelocity(CGPoint(x: velocity.dx - now.x, y: velocity.dy - now.y), for: drag.item)
            } else if snapBack {
                let snap = SnapBehavior(item: drag.item, snapTo: drag.pickedUpAt)
                animator.addBehavior(snap)
                snaps[ObjectIdentifier(drag.item)] = snap
            }
        case .pause: paused = true
        case .play: paused = false
        case .step:
            guard paused else { throw PlayInputError("step: single steps are taken while paused; pause first") }
        case .reset:
            let scene = try profile.makeCheckedScene()
            self.scene = scene
            items = scene.items
            drags.removeAll(); snaps.removeAll(); spawned = 0; release = nil
            lastStates = []
            configure()
            sceneVersion += 1
        case let .speed(v): speed = v
        case let .tilt(angle):
            let gravities = animator.behaviors.compactMap { $0 as? GravityBehavior }
            guard !gravities.isEmpty else { throw PlayInputError("tilt: this scene has no gravity behavior to tilt") }
            for g in gravities { g.angle = CGFloat(angle) }
        case let .spawn(x, y, ball):
            guard items.count < Self.maximumItems else {
                throw PlayInputError("spawn: the sandbox holds at most \(Self.maximumItems) items")
            }
            let side = Self.spawnSize
            let item = HeadlessItem(center: CGPoint(x: x, y: y), size: CGSize(width: side, height: side),
                                    name: "spawned[\(spawned)]", color: Recorder.palette[(items.count) % Recorder.palette.count],
                                    collisionBoundsType: ball ? .ellipse : .rectangle)
            spawned += 1
            var joined = false
            for b in animator.behaviors {
                if let g = b as? GravityBehavior { g.addItem(item); joined = true }
                if let c = b as? CollisionBehavior { c.addItem(item); joined = true }
            }
            if !joined {
                let g = GravityBehavior(items: [item]), c = CollisionBehavior(items: [item])
                c.translatesReferenceBoundsIntoBoundary = true
                animator.addBehavior(g); animator.addBehavior(c)
            }
            items.append(item)
            sceneVersion += 1
        }
        if case .step = input { advanceOneStep() }
        onApplied?(before, client, input)
        if case .reset = input { onSceneChange?(self) } else if case .spawn = input { onSceneChange?(self) }
    }

    /// The item behavior that gives released items their velocity (it sets no property of theirs).
    private func releaseBehavior() -> DynamicItemBehavior {
        if let b = release { return b }
        let b = DynamicItemBehavior(items: [])
        b.name = "release velocities"
        animator.addBehavior(b)
        release = b
        return b
    }
    private var release: DynamicItemBehavior?

    /// Lifts every pointer `client` holds (a page that closed), as `up` inputs in pointer order.
    public func release(client: Int) {
        for key in drags.keys.sorted() where key.client == client {
            // Still, as a finger that leaves the glass without flicking.
            try? apply(.up(pointer: key.pointer, snapBack: false, velocity: .zero), from: client)
        }
    }

    /// The topmost item whose shape contains the point (the last drawn is on top).
    public func item(at p: CGPoint) -> HeadlessItem? {
        for item in items.reversed() {
            let d = CGPoint(x: p.x - item.center.x, y: p.y - item.center.y)
            let a = -item.transform.rotationAngle
            let x = d.x * cos(a) - d.y * sin(a), y = d.x * sin(a) + d.y * cos(a)
            let hw = item.bounds.width / 2, hh = item.bounds.height / 2
            switch item.collisionBoundsType {
            case .ellipse:
                if (x * x) / (hw * hw) + (y * y) / (hh * hh) <= 1 { return item }
            default:
                if abs(x) <= hw && abs(y) <= hh { return item }
            }
        }
        return nil
    }

    public static let maximumItems = 20_000
    public static let spawnSize: CGFloat = 30

    // MARK: Stepping

    /// One fixed step (the animator's `timeStep`), unless paused. An animator that came to rest does not step
    /// until something wakes it, as in UIKit.
    public func advance() {
        guard !paused else { return }
        advanceOneStep()
    }

    /// Steps, paused or not, until `steps` reaches `n` (re-simulating a log, whose step numbers say where each
    /// input came).
    public func advance(to n: Int) {
        while steps < n { advanceOneStep() }
    }

    private func advanceOneStep() {
        steps += 1
        animator.step()
    }

    /// A hash of every item's state: equal for two sessions given the same inputs at the same steps.
    public func stateHash() -> UInt64 { animator.world.stateHash() }

    // MARK: Frames

    /// The item table pages draw with, as JSON: the title, the view box, each item's name, size, shape and color.
    public func sceneJSON() -> String {
        let b = animator.referenceBounds ?? CGRect(x: 0, y: 0, width: profile.bounds.width, height: profile.bounds.height)
        var s = "{\"kind\":\"scene\",\"version\":\(sceneVersion),\"title\":\(jsonString(profile.name)),\"summary\":\(jsonString(profile.summary)),"
        s += "\"screen\":true,\"viewBox\":[\(b.minX),\(b.minY),\(b.width),\(b.height)],\"timeStep\":\(animator.timeStep),"
        s += "\"outlines\":[" + outlines().map { line in "[" + line.map { "\($0.x),\($0.y)" }.joined(separator: ",") + "]" }.joined(separator: ",") + "],"
        s += "\"items\":[" + items.enumerated().map { k, item in
            "[\(jsonString(item.name ?? "item \(k)")),\(item.bounds.width),\(item.bounds.height),\(item.collisionBoundsType == .ellipse ? 1 : 0),\(jsonString(item.color ?? Recorder.palette[k % Recorder.palette.count]))]"
        }.joined(separator: ",") + "]}"
        return s
    }

    /// The collision boundaries as polylines: the reference bounds (with their insets) and added boundaries.
    func outlines() -> [[CGPoint]] {
        var out: [[CGPoint]] = []
        for case let c as CollisionBehavior in animator.behaviors {
            if c.translatesReferenceBoundsIntoBoundary, let rb = animator.referenceBounds {
                let i = c.referenceBoundsInsets
                let x0 = rb.minX + i.left, y0 = rb.minY + i.top, x1 = rb.maxX - i.right, y1 = rb.maxY - i.bottom
                out.append([CGPoint(x: x0, y: y0), CGPoint(x: x1, y: y0), CGPoint(x: x1, y: y1), CGPoint(x: x0, y: y1), CGPoint(x: x0, y: y0)])
            }
            for id in c.hashableBoundaryIdentifiers ?? [] {
                if let path = c.boundary(withIdentifier: id) { out += path.polylines() }
            }
        }
        return out
    }

    /// The current state as a frame, both as a key frame (every item) and as a delta against the last captured
    /// frame (only the items whose center or angle changed, when that is smaller). See `PlayFrame`.
    public func captureFrame() -> PlayFrame {
        let n = items.count
        var states = [Float](repeating: 0, count: 3 * n)
        for (k, item) in items.enumerated() {
            states[3 * k] = Float(item.center.x); states[3 * k + 1] = Float(item.center.y)
            states[3 * k + 2] = Float(item.transform.rotationAngle)
        }
        var changed: [UInt32] = []
        if lastStates.count == states.count {
            for k in 0..<n where states[3 * k].bitPattern != lastStates[3 * k].bitPattern
                || states[3 * k + 1].bitPattern != lastStates[3 * k + 1].bitPattern
                || states[3 * k + 2].bitPattern != lastStates[3 * k + 2].bitPattern {
                changed.append(UInt32(k))
            }
        } else {
            changed = (0..<n).map(UInt32.init)
        }
        var joints: [Float] = [], snapLines: [Float] = []
        for b in animator.behaviors {
            if let a = b as? AttachmentBehavior {
                let (p, q) = a.attachmentPoints
                joints += [Float(p.x), Float(p.y), Float(q.x), Float(q.y)]
            } else if let s = b as? SnapBehavior {
                snapLines += [Float(s.item.center.x), Float(s.item.center.y), Float(s.snapPoint.x), Float(s.snapPoint.y)]
            }
        }
        let extras = PlayFrame.Extras(step: UInt32(truncatingIfNeeded: steps), awake: UInt32(animator.world.awakeBodyCount),
                                      sceneVersion: UInt32(truncatingIfNeeded: sceneVersion),
                                      joints: joints, snaps: snapLines, contacts: Array(contactsThisFrame.prefix(2 * 256)))
        contactsThisFrame.removeAll(keepingCapacity: true)
        let key = PlayFrame.encode(kind: .key, states: states, indices: nil, itemCount: n, extras: extras)
        let delta = changed.count * 16 < n * 12
            ? PlayFrame.encode(kind: .delta, states: states, indices: changed, itemCount: n, extras: extras) : key
        lastStates = states
        return PlayFrame(key: key, delta: delta, changedItems: changed.count)
    }

    // MARK: Figures

    /// The live figures pages show, as JSON.
    public func statsJSON(stepsPerSecond: Double, clients: Int, extra: String = "") -> String {
        let t = animator.lastStepTimings, e = t.engine
        func ms(_ s: Double) -> String { String(format: "%.3f", s * 1000) }
        var s = "{\"kind\":\"stats\",\"step\":\(steps),\"stepsPerSecond\":\(String(format: "%.1f", stepsPerSecond)),"
        s += "\"items\":\(items.count),\"awake\":\(animator.world.awakeBodyCount),\"contacts\":\(animator.world.contactCount),"
        s += "\"paused\":\(paused),\"resting\":\(!animator.isRunning),\"speed\":\(numberText(speed)),\"clients\":\(clients),"
        s += "\"stagesMs\":{\"forces\":\(ms(e.forces)),\"broadphase\":\(ms(e.broadphase)),\"narrowphase\":\(ms(e.narrowphase)),"
        s += "\"solve\":\(ms(e.solve)),\"islands\":\(ms(e.islands)),\"engine\":\(ms(e.total)),\"writeBack\":\(ms(t.writeBack))}"
        s += extra + "}"
        return s
    }
}

/// A frame for the pages, little-endian binary (a page reads it with a `DataView`, or `Float32Array`s, every field
/// 4-byte aligned):
///
/// | bytes | field |
/// |---|---|
/// | 1 | kind: 1 key frame (every item, in item order), 2 delta (only the items listed) |
/// | 1 | format version: 1 |
/// | 2 | reserved, 0 |
/// | 4 | step (u32) |
/// | 4 | the scene version the frame belongs to (u32) |
/// | 4 | item count (u32) |
/// | 4 | entries (u32): the item count for a key frame, the changed items for a delta |
/// | 4 × entries | a delta's item indices (u32); absent in a key frame |
/// | 12 × entries | x, y, angle (f32) of each entry |
/// | 4 | awake items (u32) |
/// | 2 + 2 + 2 + 2 | attachments, snaps, contacts begun (u16 each), reserved |
/// | 16 × attachments | the item's point and the anchor (x, y, x, y as f32) |
/// | 16 × snaps | the item's center and the snap point |
/// | 8 × contacts | where each contact began (x, y) |
public struct PlayFrame {
    public enum Kind: UInt8 { case key = 1, delta = 2 }
    public struct Extras {
        var step: UInt32, awake: UInt32, sceneVersion: UInt32
        var joints: [Float], snaps: [Float], contacts: [Float]
    }
    public let key: [UInt8]
    public let delta: [UInt8]
    public let changedItems: Int

    static func encode(kind: Kind, states: [Float], indices: [UInt32]?, itemCount: Int, extras: Extras) -> [UInt8] {
        let entries = indices?.count ?? itemCount
        let joints = min(extras.joints.count / 4, Int(UInt16.max)), snaps = min(extras.snaps.count / 4, Int(UInt16.max))
        let contacts = min(extras.contacts.count / 2, Int(UInt16.max))
        var out = [UInt8]()
        out.reserveCapacity(24 + entries * (indices == nil ? 12 : 16) + 12 + 16 * (joints + snaps) + 8 * contacts)
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func f32(_ v: Float) { u32(v.bitPattern) }
        out += [kind.rawValue, 1, 0, 0]
        u32(extras.step); u32(extras.sceneVersion); u32(UInt32(itemCount)); u32(UInt32(entries))
        if let indices {
            for i in indices { u32(i) }
            for i in indices { let k = Int(i); f32(states[3 * k]); f32(states[3 * k + 1]); f32(states[3 * k + 2]) }
        } else {
            for v in states { f32(v) }
        }
        u32(extras.awake)
        u16(UInt16(joints)); u16(UInt16(snaps)); u16(UInt16(contacts)); u16(0)
        for v in extras.joints.prefix(4 * joints) { f32(v) }
        for v in extras.snaps.prefix(4 * snaps) { f32(v) }
        for v in extras.contacts.prefix(2 * contacts) { f32(v) }
        return out
    }

    /// Reads a frame back (tests, and the load test's clients): the step, the scene version, the item count and
    /// each entry's index and state.
    public static func decode(_ bytes: [UInt8]) -> (kind: Kind, step: Int, version: Int, itemCount: Int, entries: [(index: Int, x: Float, y: Float, angle: Float)], awake: Int, joints: [Float])? {
        guard bytes.count >= 20, let kind = Kind(rawValue: bytes[0]), bytes[1] == 1 else { return nil }
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        let step = Int(u32(4)), version = Int(u32(8)), count = Int(u32(12)), entries = Int(u32(16))
        let indexBytes = kind == .delta ? 4 * entries : 0
        let statesAt = 20 + indexBytes
        guard bytes.count >= statesAt + 12 * entries + 12 else { return nil }
        var out: [(Int, Float, Float, Float)] = []
        out.reserveCapacity(entries)
        for e in 0..<entries {
            let index = kind == .delta ? Int(u32(20 + 4 * e)) : e
            let at = statesAt + 12 * e
            out.append((index, Float(bitPattern: u32(at)), Float(bitPattern: u32(at + 4)), Float(bitPattern: u32(at + 8))))
        }
        let tail = statesAt + 12 * entries
        let awake = Int(u32(tail)), joints = u16(tail + 4)
        guard bytes.count >= tail + 12 + 16 * joints else { return nil }
        let jointFloats = (0..<(4 * joints)).map { Float(bitPattern: u32(tail + 12 + 4 * $0)) }
        return (kind, step, version, count, out, awake, jointFloats)
    }
}
