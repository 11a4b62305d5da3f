import DynamicsKit
import DynamicsScenes

/// Reads the JSON of a profile into a validated `Profile`. Every refusal names the file, the path inside it and
/// what was expected.
struct ProfileParser {
    let file: String
    /// Replaces the file's seed (the command line's `--seed`).
    var seedOverride: UInt32?
    /// Changes applied to the file's JSON before it is read (`--set`, a sweep's parameters), in order.
    var overrides: [ProfileOverride] = []
    private var items: [Profile.Item] = []
    private var groups: [(name: String, range: Range<Int>)] = []
    /// Group index by name: names are looked up once per item and reference, so loading stays linear.
    private var groupIndex: [String: Int] = [:]
    private var generatorLinks: [String: [Profile.Link]] = [:]

    init(file: String) { self.file = file }

    static let behaviorKinds = ["gravity", "collision", "itemBehavior", "attachment", "snap", "push", "field", "links", "composite"]
    static let fieldKinds = ["drag", "vortex", "radialGravity", "linearGravity", "velocity", "noise", "turbulence", "spring",
                             "electric", "magnetic"]
    static let generators = ["rain", "pyramid", "jointGrid", "swarm", "grid"]
    /// The most items a profile may make (a generator's count, rows or side beyond it is refused).
    static let maximumItems = 1_000_000

    mutating func parse(_ text: String) throws -> Profile {
        var json = try JSONParser.parse(text, file: file)
        for change in overrides { json = try change.apply(to: json, file: file) }
        let root = Node(value: json, path: "", file: file)
        try root.allowOnly(["name", "description", "scene", "bounds", "timeStep", "substeps", "contactHertz", "contactDampingRatio", "steps", "warmupSteps", "seed", "items", "behaviors"])
        let name = try root.required("name").string()
        let summary = try root.optional("description")?.string() ?? ""
        let fileSeed = try root.optional("seed").map { n -> UInt32 in
            let v = try n.integer(min: 0)
            guard v <= Int(UInt32.max) else { throw n.fail("expected a whole number below 2^32, found \(v)") }
            return UInt32(v)
        } ?? 12345
        let seed = seedOverride ?? fileSeed

        var scene: BenchmarkScene?
        if let s = try root.optional("scene") {
            try s.allowOnly(["kind", "size"])
            let kindNode = try s.required("kind")
            let kindName = try kindNode.string()
            guard let kind = BenchmarkScene.Kind(rawValue: kindName) else {
                throw kindNode.fail("unknown scene '\(kindName)'; expected one of: \(BenchmarkScene.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let size = try s.required("size").integer(min: 1, max: ProfileParser.maximumItems)
            scene = kind == .rain ? .rain(size, seed: seed) : .named(kind, size: size)
        }

        var bounds: CGSize
        if let b = try root.optional("bounds") {
            let (w, h) = try b.pair()
            guard w > 0, h > 0 else { throw b.fail("expected a positive width and height, found [\(w), \(h)]") }
            bounds = CGSize(width: w, height: h)
        } else if let scene {
            bounds = CGSize(width: scene.width, height: scene.height)
        } else {
            throw root.fail("missing field 'bounds' (the reference bounds [width, height] in points)")
        }

        let timeStep = try root.optional("timeStep")?.number(in: SupportedRange.timeStep, "a time step between 0.00001 and 1 second") ?? 1.0 / 60
        let substeps = try root.optional("substeps")?.integer(min: SupportedRange.substeps.lowerBound, max: SupportedRange.substeps.upperBound) ?? 4
        var contactHertz: Double?
        if let node = try root.optional("contactHertz") {
            let hz = try node.positive()
            var settings = WorldSettings()
            settings.contactHertz = Float(hz)
            do { try settings.validate() } catch { throw node.fail("\(error)") }
            guard hz <= 1_000_000 else { throw node.fail("expected a stiffness of at most 1,000,000 Hz, found \(hz)") }
            contactHertz = hz
        }
        let contactDampingRatio = try root.optional("contactDampingRatio")?.number(in: 0...1000, "a damping ratio from 0 to 1000")
        let steps = try root.required("steps").integer(min: 1, max: SupportedRange.stepsPerCall)
        var warmupSteps = 0
        if let w = try root.optional("warmupSteps") {
            warmupSteps = try w.integer(min: 0)
            guard warmupSteps < steps else { throw w.fail("expected fewer warm-up steps than 'steps' (\(steps)), found \(warmupSteps)") }
        }

        for entry in try root.required("items").array() { try parseItemEntry(entry, seed: seed) }
        let behaviors = try root.required("behaviors").array().map { try parseBehavior($0) }
        return Profile(file: file, name: name, summary: summary, bounds: bounds, timeStep: timeStep, substeps: substeps,
                       contactHertz: contactHertz, contactDampingRatio: contactDampingRatio, steps: steps, warmupSteps: warmupSteps, seed: seed, scene: scene, items: items, groups: groups, behaviors: behaviors)
    }

    // MARK: items

    private mutating func addGroup(_ node: Node, _ name: String, _ new: [Profile.Item]) throws {
        guard !name.isEmpty, !name.contains("["), name != "all" else { throw node.fail("expected a name without '[' other than 'all', found '\(name)'") }
        guard groupIndex[name] == nil else { throw node.fail("the name '\(name)' is already used") }
        let start = items.count
        items.append(contentsOf: new)
        groupIndex[name] = groups.count
        groups.append((name, start..<items.count))
    }

    /// The fields every generator takes besides its own: each item's center moved by up to `jitter` [jx, jy] (right
    /// and down), its angle `angle` ± `angleJitter` radians, its velocity `velocity` [vx, vy] ± `velocityJitter`
    /// [jx, jy] points/s.
    static let startFields: Set<String> = ["jitter", "angle", "angleJitter", "velocity", "velocityJitter"]

    /// Applies the start fields to a generator's items, drawing from `random` per item: x, y of the jitter, then the
    /// angle, then vx, vy, each only where its spread is not zero (so a generator without them draws nothing).
    private func applyStart(_ node: Node, to items: inout [Profile.Item], random: inout SplitMix64) throws {
        func spread(_ key: String) throws -> (Double, Double) {
            guard let n = try node.optional(key) else { return (0, 0) }
            let (a, b) = try n.pair()
            guard a >= 0, b >= 0 else { throw n.fail("expected a spread of at least 0 in each direction, found [\(a), \(b)]") }
            return (a, b)
        }
        let (jx, jy) = try spread("jitter"), (vjx, vjy) = try spread("velocityJitter")
        let angle = try node.optional("angle")?.number() ?? 0
        let angleJitter = try node.optional("angleJitter")?.nonNegative() ?? 0
        var velocity = (0.0, 0.0)
        if let v = try node.optional("velocity") { velocity = try v.pair() }
        guard hypot(abs(velocity.0) + vjx, abs(velocity.1) + vjy) <= Double(SupportedRange.speed) else {
            throw node.fail("expected 'velocity' and 'velocityJitter' to stay within \(Int(SupportedRange.speed)) points/s")
        }
        for k in items.indices {
            if jx > 0 || jy > 0 { items[k].center.x += jx * random.unit(); items[k].center.y += jy * random.unit() }
            items[k].angle = angle + (angleJitter > 0 ? angleJitter * (2 * random.unit() - 1) : 0)
            var vx = velocity.0, vy = velocity.1
            if vjx > 0 { vx += vjx * (2 * random.unit() - 1) }
            if vjy > 0 { vy += vjy * (2 * random.unit() - 1) }
            items[k].velocity = CGVector(dx: vx, dy: vy)
        }
    }

    private mutating func parseItemEntry(_ node: Node, seed: UInt32) throws {
        if let g = try node.optional("generator") {
            let kind = try g.string()
            let idNode = try node.required("id")
            let id = try idNode.string()
            var new: [Profile.Item] = []
            func sceneItems(_ scene: BenchmarkScene) -> [Profile.Item] {
                scene.items.enumerated().map {
                    Profile.Item(name: "\(id)[\($0)]", center: CGPoint(x: $1.center.x, y: $1.center.y),
                                 size: CGSize(width: $1.size, height: $1.size), ellipse: false, color: nil)
                }
            }
            switch kind {
            case "rain":
                try node.allowOnly(ProfileParser.startFields.union(["generator", "id", "count"]))
                new = sceneItems(.rain(try node.required("count").integer(min: 1, max: ProfileParser.maximumItems), seed: seed))
            case "pyramid":
                try node.allowOnly(ProfileParser.startFields.union(["generator", "id", "rows"]))
                new = sceneItems(.pyramid(try node.required("rows").integer(min: 1, max: ProfileParser.maximumItems)))
            case "swarm":
                try node.allowOnly(ProfileParser.startFields.union(["generator", "id", "count"]))
                new = sceneItems(.fieldSwarm(try node.required("count").integer(min: 1, max: ProfileParser.maximumItems)))
            case "jointGrid":
                try node.allowOnly(ProfileParser.startFields.union(["generator", "id", "side"]))
                let scene = BenchmarkScene.jointGrid(try node.required("side").integer(min: 1, max: ProfileParser.maximumItems))
                new = sceneItems(scene)
                let base = items.count
                generatorLinks[id] = scene.links.map {
                    Profile.Link(a: base + $0.a, b: $0.b.map { base + $0 }, anchor: CGPoint(x: $0.anchor.x, y: $0.anchor.y))
                }
            case "grid":
                try node.allowOnly(ProfileParser.startFields.union(["generator", "id", "rows", "columns", "origin", "pitch", "size", "shape", "color"]))
                let rows = try node.required("rows").integer(min: 1, max: ProfileParser.maximumItems), columns = try node.required("columns").integer(min: 1, max: ProfileParser.maximumItems)
                let (ox, oy) = try node.required("origin").pair()
                let pitchNode = try node.required("pitch")
                let (px, py) = try pitchNode.pair()
                let (w, h) = try size(try node.required("size"))
                let ellipse = try shape(node)
                let color = try node.optional("color")?.string()
                for r in 0..<rows {
                    for c in 0..<columns {
                        new.append(Profile.Item(name: "\(id)[\(r * columns + c)]", center: CGPoint(x: ox + px * Double(c), y: oy + py * Double(r)),
                                                size: CGSize(width: w, height: h), ellipse: ellipse, color: color))
                    }
                }
            default:
                throw g.fail("unknown generator '\(kind)'; expected one of: \(ProfileParser.generators.joined(separator: ", "))")
            }
            // The draws of the start fields: SplitMix64 from the seed, the first generator's from the seed itself.
            var random = SplitMix64(state: UInt64(seed) ^ UInt64(groups.count) << 32)
            try applyStart(node, to: &new, random: &random)
            try addGroup(idNode, id, new)
        } else {
            try node.allowOnly(["id", "center", "size", "shape", "color", "angle", "velocity"])
            let idNode = try node.required("id")
            let id = try idNode.string()
            let (x, y) = try node.required("center").pair()
            let (w, h) = try size(try node.required("size"))
            var item = Profile.Item(name: id, center: CGPoint(x: x, y: y), size: CGSize(width: w, height: h),
                                    ellipse: try shape(node), color: try node.optional("color")?.string())
            var single = [item]
            var none = SplitMix64(state: 0)   // an item's own angle and velocity draw nothing
            try applyStart(node, to: &single, random: &none)
            item = single[0]
            try addGroup(idNode, id, [item])
        }
    }

    private func size(_ node: Node) throws -> (Double, Double) {
        let (w, h) = try node.pair()
        let range = Double(SupportedRange.size.lowerBound)...Double(SupportedRange.size.upperBound)
        guard range.contains(w), range.contains(h) else {
            throw node.fail("expected a width and height between 0.01 and 100,000 points, found [\(w), \(h)]")
        }
        return (w, h)
    }

    private func shape(_ node: Node) throws -> Bool {
        guard let s = try node.optional("shape") else { return false }
        switch try s.string() {
        case "rectangle": return false
        case "ellipse": return true
        case let other: throw s.fail("unknown shape '\(other)'; expected rectangle or ellipse")
        }
    }

    // MARK: item references

    /// "all", a group or item name, or "name[k]".
    private func resolve(_ node: Node) throws -> [Int] {
        let ref = try node.string()
        if ref == "all" { return Array(0..<items.count) }
        if let open = ref.firstIndex(of: "["), ref.hasSuffix("]") {
            let name = String(ref[..<open])
            let indexText = ref[ref.index(after: open)..<ref.index(before: ref.endIndex)]
            guard let g = groupIndex[name].map({ groups[$0] }) else { throw node.fail("no item or generator named '\(name)' is defined") }
            guard let k = Int(indexText), k >= 0, k < g.range.count else {
                throw node.fail("'\(ref)' is out of range: '\(name)' has \(g.range.count) item\(g.range.count == 1 ? "" : "s")")
            }
            return [g.range.lowerBound + k]
        }
        guard let g = groupIndex[ref].map({ groups[$0] }) else { throw node.fail("no item or generator named '\(ref)' is defined") }
        return Array(g.range)
    }

    private func itemList(_ node: Node) throws -> [Int] {
        let list = try node.required("items")
        if list.isString { return try resolve(list) }
        var out: [Int] = []
        for entry in try list.array() { out.append(contentsOf: try resolve(entry)) }
        return out
    }

    private func oneItem(_ node: Node, _ key: String) throws -> Int {
        let n = try node.required(key)
        let r = try resolve(n)
        guard r.count == 1 else { throw n.fail("expected one item, but this names \(r.count)") }
        return r[0]
    }

    private func point(_ node: Node?) throws -> CGPoint? {
        guard let node else { return nil }
        let (x, y) = try node.pair()
        return CGPoint(x: x, y: y)
    }

    private func offset(_ node: Node?) throws -> UIOffset {
        guard let node else { return .zero }
        let (x, y) = try node.pair()
        return UIOffset(horizontal: x, vertical: y)
    }

    // MARK: behaviors

    private func parseBehavior(_ node: Node) throws -> Profile.Behavior {
        let kindNode = try node.required("kind")
        let kind = try kindNode.string()
        switch kind {
        case "gravity":
            try node.allowOnly(["kind", "items", "magnitude", "angle"])
            return .gravity(items: try itemList(node), magnitude: try node.optional("magnitude")?.number() ?? 1,
                            angle: try node.optional("angle")?.number() ?? .pi / 2)
        case "collision":
            try node.allowOnly(["kind", "items", "mode", "referenceBounds", "insets", "boundaries", "boundaryFriction", "boundaryElasticity"])
            var mode = CollisionBehavior.Mode.everything
            if let m = try node.optional("mode") {
                switch try m.string() {
                case "items": mode = .items
                case "boundaries": mode = .boundaries
                case "everything": mode = .everything
                case let other: throw m.fail("unknown collision mode '\(other)'; expected items, boundaries or everything")
                }
            }
            var insets = UIEdgeInsets.zero
            if let i = try node.optional("insets") {
                let a = try i.array()
                guard a.count == 4 else { throw i.fail("expected [top, left, bottom, right], found \(a.count) values") }
                insets = UIEdgeInsets(top: try a[0].number(), left: try a[1].number(), bottom: try a[2].number(), right: try a[3].number())
            }
            var boundaries: [(String, CGPoint, CGPoint)] = []
            for b in try node.optional("boundaries")?.array() ?? [] {
                try b.allowOnly(["id", "from", "to"])
                let from = try point(try b.required("from"))!, to = try point(try b.required("to"))!
                guard from != to else { throw b.fail("a boundary needs two different points") }
                boundaries.append((try b.required("id").string(), from, to))
            }
            return .collision(items: try itemList(node), mode: mode,
                              referenceBounds: try node.optional("referenceBounds")?.bool() ?? false, insets: insets, boundaries: boundaries,
                              boundaryFriction: try node.optional("boundaryFriction")?.nonNegative(),
                              boundaryElasticity: try node.optional("boundaryElasticity")?.nonNegative())
        case "itemBehavior":
            try node.allowOnly(["kind", "items", "elasticity", "friction", "density", "resistance", "angularResistance", "charge",
                                "allowsRotation", "anchored"])
            let density = try node.optional("density")?.positive()
            return .itemProperties(items: try itemList(node), elasticity: try node.optional("elasticity")?.nonNegative(),
                                   friction: try node.optional("friction")?.nonNegative(), density: density,
                                   resistance: try node.optional("resistance")?.nonNegative(),
                                   angularResistance: try node.optional("angularResistance")?.nonNegative(),
                                   charge: try node.optional("charge")?.number(), allowsRotation: try node.optional("allowsRotation")?.bool(),
                                   anchored: try node.optional("anchored")?.bool())
        case "attachment":
            try node.allowOnly(["kind", "item", "offset", "attachedTo", "attachedOffset", "anchor", "length", "frequency", "damping"])
            let item = try oneItem(node, "item")
            let to = try node.optional("attachedTo") != nil ? try oneItem(node, "attachedTo") : nil
            let anchor = try point(try node.optional("anchor"))
            if to == nil && anchor == nil { throw node.fail("an attachment needs 'attachedTo' (an item) or 'anchor' ([x, y])") }
            if to != nil && anchor != nil { throw node.fail("an attachment takes 'attachedTo' or 'anchor', not both") }
            if to == item { throw node.fail("an item cannot be attached to itself") }
            return .attachment(item: item, offset: try offset(try node.optional("offset")), to: to,
                               toOffset: try offset(try node.optional("attachedOffset")), anchor: anchor,
                               length: try node.optional("length")?.nonNegative(), frequency: try node.optional("frequency")?.nonNegative() ?? 0,
                               damping: try node.optional("damping")?.nonNegative() ?? 0)
        case "snap":
            try node.allowOnly(["kind", "item", "point", "damping"])
            let damping = try node.optional("damping")?.nonNegative() ?? 0.5
            if damping > 1 { throw try node.required("damping").fail("expected a damping within 0...1, found \(damping)") }
            return .snap(item: try oneItem(node, "item"), point: try point(try node.required("point"))!, damping: damping)
        case "push":
            try node.allowOnly(["kind", "items", "mode", "magnitude", "angle"])
            var instantaneous = false
            if let m = try node.optional("mode") {
                switch try m.string() {
                case "continuous": instantaneous = false
                case "instantaneous": instantaneous = true
                case let other: throw m.fail("unknown push mode '\(other)'; expected continuous or instantaneous")
                }
            }
            return .push(items: try itemList(node), instantaneous: instantaneous, magnitude: try node.optional("magnitude")?.number() ?? 0,
                         angle: try node.optional("angle")?.number() ?? 0)
        case "field":
            try node.allowOnly(["kind", "items", "field", "position", "strength", "falloff", "minimumRadius", "direction", "smoothness",
                                "animationSpeed", "region"])
            let fieldNode = try node.required("field")
            let fieldKind = try fieldNode.string()
            guard ProfileParser.fieldKinds.contains(fieldKind) else {
                throw fieldNode.fail("unknown field '\(fieldKind)'; expected one of: \(ProfileParser.fieldKinds.joined(separator: ", ")) (a custom field needs code)")
            }
            let smoothness = try node.optional("smoothness")?.nonNegative() ?? 0
            if smoothness > 1 { throw try node.required("smoothness").fail("expected a smoothness within 0...1, found \(smoothness)") }
            let direction = try point(try node.optional("direction")) ?? .zero
            let spec = Profile.FieldSpec(kind: fieldKind, position: try point(try node.optional("position")) ?? .zero,
                                         strength: try node.optional("strength")?.number(), falloff: try node.optional("falloff")?.number(in: -4...4, "a falloff within ±4"),
                                         minimumRadius: try node.optional("minimumRadius")?.nonNegative(),
                                         direction: CGVector(dx: direction.x, dy: direction.y), smoothness: smoothness,
                                         animationSpeed: try node.optional("animationSpeed")?.number() ?? 0,
                                         region: try parseRegion(try node.optional("region")))
            return .field(spec, items: try itemList(node))
        case "links":
            try node.allowOnly(["kind", "of"])
            let of = try node.required("of")
            let name = try of.string()
            guard let links = generatorLinks[name] else { throw of.fail("'\(name)' is not a jointGrid generator defined in 'items'") }
            return .links(group: name, links: links)
        case "composite":
            try node.allowOnly(["kind", "name", "children"])
            return .composite(name: try node.optional("name")?.string(),
                              children: try node.required("children").array().map { try parseBehavior($0) })
        default:
            throw kindNode.fail("unknown behavior kind '\(kind)'; expected one of: \(ProfileParser.behaviorKinds.joined(separator: ", "))")
        }
    }

    /// `"infinite"`, `{"radius": r}`, `{"size": [w, h]}`, `{"inverse": R}`, `{"union": [R, R]}`,
    /// `{"intersection": [R, R]}`, `{"difference": [R, from]}`.
    private func parseRegion(_ node: Node?) throws -> Profile.RegionSpec {
        guard let node else { return .infinite }
        if node.isString {
            guard try node.string() == "infinite" else { throw node.fail("expected \"infinite\" or a region object") }
            return .infinite
        }
        let members = try node.members()
        guard members.count == 1, let key = members.first?.0 else {
            throw node.fail("expected one of: radius, size, inverse, union, intersection, difference")
        }
        let value = try node.required(key)
        func two() throws -> (Profile.RegionSpec, Profile.RegionSpec) {
            let a = try value.array()
            guard a.count == 2 else { throw value.fail("expected two regions, found \(a.count)") }
            return (try parseRegion(a[0]), try parseRegion(a[1]))
        }
        switch key {
        case "radius": return .radius(try value.nonNegative())
        case "size":
            let (w, h) = try value.pair()
            guard w >= 0, h >= 0 else { throw value.fail("expected a size ≥ 0, found [\(w), \(h)]") }
            return .size(CGSize(width: w, height: h))
        case "inverse": return .inverse(try parseRegion(value))
        case "union": let (a, b) = try two(); return .union(a, b)
        case "intersection": let (a, b) = try two(); return .intersection(a, b)
        case "difference": let (a, b) = try two(); return .difference(a, from: b)
        default: throw node.fail("unknown region '\(key)'; expected one of: radius, size, inverse, union, intersection, difference")
        }
    }
}
