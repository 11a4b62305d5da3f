import DynamicsKit
import DynamicsScenes

/// A workload profile: a scene described in JSON (reference bounds, items from lists and generators, a behavior
/// tree, time step, substeps, step count, seed), validated on load. `Profiles/README.md` documents the format.
///
/// A profile is a description; `makeScene()` builds a fresh animator from it each time it is called, so one profile
/// can be run many times (benchmark repetitions) with identical results.
public struct Profile {
    public struct Item {
        public var name: String
        public var center: CGPoint
        public var size: CGSize
        public var ellipse: Bool
        public var color: String?
        /// The starting angle, radians (clockwise on screen).
        public var angle: Double = 0
        /// The starting velocity, points/s.
        public var velocity: CGVector = .zero
    }

    /// A rigid link produced by the joint-grid generator: item `a` to item `b`, or to a fixed anchor.
    public struct Link {
        public var a: Int
        public var b: Int?
        public var anchor: CGPoint
    }

    public indirect enum Behavior {
        case gravity(items: [Int], magnitude: Double, angle: Double)
        case collision(items: [Int], mode: CollisionBehavior.Mode, referenceBounds: Bool, insets: UIEdgeInsets,
                       boundaries: [(String, CGPoint, CGPoint)], boundaryFriction: Double?, boundaryElasticity: Double?)
        case itemProperties(items: [Int], elasticity: Double?, friction: Double?, density: Double?, resistance: Double?,
                            angularResistance: Double?, charge: Double?, allowsRotation: Bool?, anchored: Bool?)
        case attachment(item: Int, offset: UIOffset, to: Int?, toOffset: UIOffset, anchor: CGPoint?, length: Double?,
                        frequency: Double, damping: Double)
        case snap(item: Int, point: CGPoint, damping: Double)
        case push(items: [Int], instantaneous: Bool, magnitude: Double, angle: Double)
        case field(FieldSpec, items: [Int])
        case links(group: String, links: [Link])
        case composite(name: String?, children: [Behavior])
    }

    public struct FieldSpec {
        public var kind: String
        public var position: CGPoint
        public var strength: Double?
        public var falloff: Double?
        public var minimumRadius: Double?
        public var direction: CGVector
        public var smoothness: Double
        public var animationSpeed: Double
        public var region: RegionSpec
    }

    public indirect enum RegionSpec {
        case infinite
        case radius(Double)
        case size(CGSize)
        case inverse(RegionSpec)
        case union(RegionSpec, RegionSpec)
        case intersection(RegionSpec, RegionSpec)
        case difference(RegionSpec, from: RegionSpec)
    }

    /// The file name the profile came from (for messages).
    public var file: String
    public var name: String
    public var summary: String
    public var bounds: CGSize
    public var timeStep: Double
    public var substeps: Int
    /// The world's contact stiffness (`WorldSettings.contactHertz`), when the profile sets it; nil keeps the
    /// engine's default.
    public var contactHertz: Double?
    /// The world's contact damping ratio (`WorldSettings.contactDampingRatio`), when the profile sets it; nil keeps
    /// the engine's default.
    public var contactDampingRatio: Double?
    public var steps: Int
    /// Steps run before measuring starts (a settled-pile profile measures only what follows).
    public var warmupSteps: Int
    public var seed: UInt32
    /// The Benchmarks/SCENES.md scene this profile reproduces, if any (its statistics then apply).
    public var scene: BenchmarkScene?
    public var items: [Item]
    /// Item index ranges by generator or item name.
    public var groups: [(name: String, range: Range<Int>)]
    public var behaviors: [Behavior]

    init(file: String, name: String, summary: String, bounds: CGSize, timeStep: Double, substeps: Int, contactHertz: Double?, contactDampingRatio: Double? = nil, steps: Int,
         warmupSteps: Int, seed: UInt32, scene: BenchmarkScene?, items: [Item], groups: [(name: String, range: Range<Int>)], behaviors: [Behavior]) {
        self.file = file; self.name = name; self.summary = summary; self.bounds = bounds
        self.timeStep = timeStep; self.substeps = substeps; self.contactHertz = contactHertz; self.contactDampingRatio = contactDampingRatio; self.steps = steps; self.warmupSteps = warmupSteps; self.seed = seed
        self.scene = scene; self.items = items; self.groups = groups; self.behaviors = behaviors
    }

    /// Parses and validates a profile; `file` names it in errors. `overrides` change fields of the JSON before it
    /// is read, in order; `seed`, when given, then replaces the seed of the generators.
    public init(json text: String, file: String, seed: UInt32? = nil, overrides: [ProfileOverride] = []) throws {
        var parser = ProfileParser(file: file)
        parser.seedOverride = seed
        parser.overrides = overrides
        self = try parser.parse(text)
    }

    /// Reads a profile file.
    public init(contentsOf url: URL, seed: UInt32? = nil, overrides: [ProfileOverride] = []) throws {
        try self.init(json: try Profile.text(of: url), file: url.lastPathComponent, seed: seed, overrides: overrides)
    }

    /// A profile file's text, or an error naming it.
    static func text(of url: URL) throws -> String {
        do { return try String(contentsOf: url, encoding: .utf8) } catch {
            throw ProfileError(file: url.lastPathComponent, path: "", message: "cannot be read: \(error.localizedDescription)")
        }
    }
}

/// A profile built into a live animator.
public final class ProfileScene {
    public let profile: Profile
    public let animator: DynamicAnimator
    public let items: [HeadlessItem]
    /// The attachments of the joint-grid links, in link order (for `max_link_err`).
    public private(set) var links: [(AttachmentBehavior, Profile.Link)] = []

    init(profile: Profile) {
        self.profile = profile
        animator = DynamicAnimator(referenceBounds: CGRect(origin: .zero, size: profile.bounds))
        animator.timeStep = profile.timeStep
        animator.substepCount = profile.substeps
        do { try animator.world.setSettings(profile.worldSettings) } catch { ContractViolation.handler("\(profile.file): \(error)") }
        items = profile.items.map {
            let item = HeadlessItem(center: $0.center, size: $0.size, name: $0.name, color: $0.color,
                                    collisionBoundsType: $0.ellipse ? .ellipse : .rectangle)
            if $0.angle != 0 { item.transform = CGAffineTransform(rotationAngle: $0.angle) }
            return item
        }
        for b in profile.behaviors { animator.addBehavior(make(b)) }
        // Starting velocities, given once through an item behavior that sets no property.
        let moving = profile.items.indices.filter { profile.items[$0].velocity != .zero }
        if !moving.isEmpty {
            let start = DynamicItemBehavior(items: moving.map { items[$0] })
            start.name = "starting velocities"
            for k in moving {
                let v = profile.items[k].velocity
                start.addLinearVelocity(CGPoint(x: v.dx, y: v.dy), for: items[k])
            }
            animator.addBehavior(start)
        }
    }

    private func make(_ spec: Profile.Behavior) -> DynamicBehavior {
        func list(_ indices: [Int]) -> [DynamicItem] { indices.map { items[$0] } }
        switch spec {
        case let .gravity(indices, magnitude, angle):
            let g = GravityBehavior(items: list(indices))
            g.setAngle(angle, magnitude: magnitude)
            return g
        case let .collision(indices, mode, referenceBounds, insets, boundaries, boundaryFriction, boundaryElasticity):
            let c = CollisionBehavior(items: list(indices))
            c.collisionMode = mode
            if let v = boundaryFriction { c.boundaryFriction = v }
            if let v = boundaryElasticity { c.boundaryElasticity = v }
            if referenceBounds { c.setTranslatesReferenceBoundsIntoBoundary(with: insets) }
            for (id, from, to) in boundaries { c.addBoundary(withIdentifier: id, from: from, to: to) }
            return c
        case let .itemProperties(indices, elasticity, friction, density, resistance, angularResistance, charge, allowsRotation, anchored):
            let p = DynamicItemBehavior(items: list(indices))
            if let v = elasticity { p.elasticity = v }
            if let v = friction { p.friction = v }
            if let v = density { p.density = v }
            if let v = resistance { p.resistance = v }
            if let v = angularResistance { p.angularResistance = v }
            if let v = charge { p.charge = v }
            if let v = allowsRotation { p.allowsRotation = v }
            if let v = anchored { p.isAnchored = v }
            return p
        case let .attachment(item, offset, to, toOffset, anchor, length, frequency, damping):
            let a: AttachmentBehavior
            if let to {
                a = AttachmentBehavior(item: items[item], offsetFromCenter: offset, attachedTo: items[to], offsetFromCenter: toOffset)
            } else {
                a = AttachmentBehavior(item: items[item], offsetFromCenter: offset, attachedToAnchor: anchor ?? .zero)
            }
            if let length { a.length = length }
            a.frequency = frequency
            a.damping = damping
            return a
        case let .snap(item, point, damping):
            let s = SnapBehavior(item: items[item], snapTo: point)
            s.damping = damping
            return s
        case let .push(indices, instantaneous, magnitude, angle):
            let p = PushBehavior(items: list(indices), mode: instantaneous ? .instantaneous : .continuous)
            p.setAngle(angle, magnitude: magnitude)
            return p
        case let .field(f, indices):
            let field = makeField(f)
            for i in indices { field.addItem(items[i]) }
            return field
        case let .links(group, links):
            let parent = DynamicBehavior()
            parent.name = "links of \(group)"
            for link in links {
                let a: AttachmentBehavior
                if let b = link.b {
                    a = AttachmentBehavior(item: items[link.a], attachedTo: items[b])
                } else {
                    a = AttachmentBehavior(item: items[link.a], attachedToAnchor: link.anchor)
                }
                parent.addChildBehavior(a)
                self.links.append((a, link))
            }
            return parent
        case let .composite(name, children):
            let parent = DynamicBehavior()
            parent.name = name
            for c in children { parent.addChildBehavior(make(c)) }
            return parent
        }
    }

    private func makeField(_ f: Profile.FieldSpec) -> FieldBehavior {
        let field: FieldBehavior
        switch f.kind {
        case "drag": field = .dragField()
        case "vortex": field = .vortexField()
        case "radialGravity": field = .radialGravityField(position: f.position)
        case "linearGravity": field = .linearGravityField(direction: f.direction)
        case "velocity": field = .velocityField(direction: f.direction)
        case "noise": field = .noiseField(smoothness: f.smoothness, animationSpeed: f.animationSpeed)
        case "turbulence": field = .turbulenceField(smoothness: f.smoothness, animationSpeed: f.animationSpeed)
        case "spring": field = .springField()
        case "electric": field = .electricField()
        default: field = .magneticField()
        }
        field.position = f.position
        if let v = f.strength { field.strength = v }
        if let v = f.falloff { field.falloff = v }
        if let v = f.minimumRadius { field.minimumRadius = v }
        field.region = makeRegion(f.region)
        return field
    }

    private func makeRegion(_ r: Profile.RegionSpec) -> Region {
        switch r {
        case .infinite: return .infinite
        case let .radius(v): return Region(radius: v)
        case let .size(s): return Region(size: s)
        case let .inverse(a): return makeRegion(a).inverse()
        case let .union(a, b): return makeRegion(a).union(with: makeRegion(b))
        case let .intersection(a, b): return makeRegion(a).intersection(with: makeRegion(b))
        case let .difference(a, from: b): return makeRegion(a).difference(from: makeRegion(b))
        }
    }
}

extension Profile {
    /// Builds a fresh animator with the profile's items and behavior tree.
    public func makeScene() -> ProfileScene { ProfileScene(profile: self) }

    /// The scene, built and compiled with contract violations collected: a value the profile's parser let through
    /// but DynamicsKit refuses (the parser checks ranges; the library also checks combinations) becomes a
    /// `ProfileError` naming the file and the library's rule, never a stop.
    public func makeCheckedScene() throws -> ProfileScene {
        let (scene, violations) = ContractViolation.collecting { () -> ProfileScene in
            let scene = makeScene()
            _ = scene.animator.itemCount   // compiles the behavior tree
            return scene
        }
        if let first = violations.first { throw ProfileError(file: file, path: "", message: first) }
        return scene
    }

    /// The profile's items as a core world through the bulk API, when the profile reproduces a Benchmarks/SCENES.md scene.
    /// The engine settings the profile asks for: the defaults, with the profile's contact stiffness and damping if it
    /// sets them.
    public var worldSettings: WorldSettings {
        var settings = WorldSettings()
        if let contactHertz { settings.contactHertz = Float(contactHertz) }
        if let contactDampingRatio { settings.contactDampingRatio = Float(contactDampingRatio) }
        return settings
    }

    public func makeCoreWorld() throws -> (world: World, items: [BodyID], links: [JointID])? {
        guard let scene else { return nil }
        let world = try World(settings: worldSettings)
        let (ids, links) = try world.build(scene)
        return (world, ids, links)
    }
}
