import DynamicsCore

/// An engine-neutral benchmark scene from Benchmarks/SCENES.md: the items, walls and links that every engine builds the
/// same way, so timings compare. Items are squares at angle 0, at rest, density 1.
public struct BenchmarkScene: Sendable {
    public enum Kind: String, Sendable, CaseIterable { case rain, pyramid, jointGrid = "joint_grid", fieldSwarm = "field_swarm" }

    public struct Item: Sendable { public var center: SIMD2<Double>; public var size: Double }
    /// A wall segment, solid on the side its outward normal points to.
    public struct Wall: Sendable { public var from: SIMD2<Double>; public var to: SIMD2<Double>; public var outward: SIMD2<Double> }
    /// A rigid link between item centers (`a`, `b` item indices; `b == nil` links to the fixed point `anchor`).
    public struct Link: Sendable { public var a: Int; public var b: Int?; public var anchor: SIMD2<Double>; public var length: Double }

    public var kind: Kind
    public var size: Int
    public var width: Double
    public var height: Double
    public var gravity: Bool
    public var collisions: Bool
    public var items: [Item] = []
    public var walls: [Wall] = []
    public var links: [Link] = []

    /// `kind/size`, as in benchmark names (`rain/1000`).
    public var name: String { "\(kind.rawValue)/\(size)" }

    /// The Benchmarks/SCENES.md LCG (Numerical Recipes constants).
    public struct LCG: Sendable {
        public var state: UInt32
        public init(seed: UInt32 = 12345) { state = seed }
        public mutating func next() -> UInt32 { state = state &* 1_664_525 &+ 1_013_904_223; return state }
        public mutating func unit() -> Double { Double(next()) / 4_294_967_296.0 }
        public mutating func jitter() -> Double { (2 * unit() - 1) * 2 }
    }

    /// rain_N: N 10×10 squares on a jittered grid of pitch 15 inside a W×2W box of four walls.
    public static func rain(_ n: Int, seed: UInt32 = 12345) -> BenchmarkScene {
        let w: Double = n <= 1000 ? 1200 : (n <= 4000 ? 2400 : 3600)
        let h = 2 * w
        var s = BenchmarkScene(kind: .rain, size: n, width: w, height: h, gravity: true, collisions: true)
        s.walls = [Wall(from: [0, 0], to: [w, 0], outward: [0, -1]), Wall(from: [w, 0], to: [w, h], outward: [1, 0]),
                   Wall(from: [w, h], to: [0, h], outward: [0, 1]), Wall(from: [0, h], to: [0, 0], outward: [-1, 0])]
        let cols = Int(((w - 40) / 15).rounded(.down)) + 1
        var rng = LCG(seed: seed)
        for i in 0..<n {
            let row = i / cols, col = i % cols
            let jx = rng.jitter(), jy = rng.jitter()
            s.items.append(Item(center: [20 + 15 * Double(col) + jx, 20 + 15 * Double(row) + jy], size: 10))
        }
        return s
    }

    /// pyramid_B: B rows of 10×10 boxes on a ground segment, 0.5-point gaps in each row.
    public static func pyramid(_ b: Int) -> BenchmarkScene {
        var s = BenchmarkScene(kind: .pyramid, size: b, width: 2000, height: 1000, gravity: true, collisions: true)
        s.walls = [Wall(from: [0, 1000], to: [2000, 1000], outward: [0, 1])]
        for k in 0..<b {
            let count = b - k
            for i in 0..<count {
                let x = 1000 + (Double(i) - Double(count - 1) / 2) * 10.5
                s.items.append(Item(center: [x, 1000 - 5 - 10 * Double(k)], size: 10))
            }
        }
        return s
    }

    /// joint_grid_S: an S×S grid of 5×5 items hanging from S fixed anchors by rigid links of 10 points.
    public static func jointGrid(_ n: Int) -> BenchmarkScene {
        var s = BenchmarkScene(kind: .jointGrid, size: n, width: 2000, height: 2000, gravity: true, collisions: false)
        let x0 = (2000 - 10 * Double(n - 1)) / 2, y0 = 100.0
        for r in 0..<n { for c in 0..<n { s.items.append(Item(center: [x0 + 10 * Double(c), y0 + 10 * Double(r)], size: 5)) } }
        for c in 0..<n { s.links.append(Link(a: c, b: nil, anchor: [x0 + 10 * Double(c), y0 - 10], length: 10)) }
        for r in 0..<n {
            for c in 0..<n {
                let i = r * n + c
                if c + 1 < n { s.links.append(Link(a: i, b: i + 1, anchor: .zero, length: 10)) }
                if r + 1 < n { s.links.append(Link(a: i, b: i + n, anchor: .zero, length: 10)) }
            }
        }
        return s
    }

    /// field_swarm_N: N 4×4 items on a square grid over 2000×2000, no gravity, no collisions.
    public static func fieldSwarm(_ n: Int) -> BenchmarkScene {
        var s = BenchmarkScene(kind: .fieldSwarm, size: n, width: 2000, height: 2000, gravity: false, collisions: false)
        let cols = Int(Double(n).squareRoot().rounded(.up))
        let pitch = 2000 / Double(cols)
        for i in 0..<n {
            let row = i / cols, col = i % cols
            s.items.append(Item(center: [pitch * (Double(col) + 0.5), pitch * (Double(row) + 0.5)], size: 4))
        }
        return s
    }

    /// The scene with every item center moved by up to `amplitude` points in x and in y, uniformly, drawn from
    /// SplitMix64 seeded with `seed`: a member of an ensemble. How soon a pile comes to rest is chaotic (a change in
    /// the last bit of one position moves rain_10000's last slip by tens of steps), so one run's sleep step is one
    /// sample; runs of slightly moved copies give its spread.
    public func perturbed(seed: UInt64, amplitude: Double) -> BenchmarkScene {
        var s = self
        var rng = SplitMix64(state: seed)
        for k in s.items.indices {
            let dx = (2 * rng.unit() - 1) * amplitude, dy = (2 * rng.unit() - 1) * amplitude
            s.items[k].center += SIMD2(dx, dy)
        }
        return s
    }

    public static func named(_ kind: Kind, size: Int) -> BenchmarkScene {
        switch kind {
        case .rain: return rain(size)
        case .pyramid: return pyramid(size)
        case .jointGrid: return jointGrid(size)
        case .fieldSwarm: return fieldSwarm(size)
        }
    }
}

extension World {
    /// Builds a benchmark scene into an empty world through the bulk API: friction 0.2 and restitution 0 on every
    /// contact (Benchmarks/SCENES.md), gravity 1000 points/s² when the scene has it, no damping. Returns the item ids in
    /// scene order and the joint ids in link order.
    public func build(_ scene: BenchmarkScene) throws -> (items: [BodyID], links: [JointID]) {
        if scene.collisions { setCollisionMatrix(classCount: 2) { a, b in a == 1 && b == 1 } }
        var ids: [BodyID] = []
        ids.reserveCapacity(scene.items.count)
        try reserveCapacity(bodies: scene.items.count + scene.walls.count, shapes: scene.items.count + scene.walls.count,
                        vertices: 4 + 4 * scene.walls.count)
        for item in scene.items {
            var d = BodyDefinition.box(center: Vec2(Float(item.center.x), Float(item.center.y)),
                                       width: Float(item.size), height: Float(item.size))
            d.restitution = 0; d.friction = 0.2
            d.linearDamping = 0; d.angularDamping = 0
            d.gravity = scene.gravity ? Vec2(0, 1000) : .zero
            d.collisionClass = scene.collisions ? 1 : 0
            ids.append(try createBody(d))
        }
        for wall in scene.walls {
            var d = BodyDefinition()
            d.type = .static
            // Benchmarks/SCENES.md allows thickness on the outer side only; the inner face stays on the segment.
            d.shapes = [ShapeDefinition(try .wall(from: Vec2(Float(wall.from.x), Float(wall.from.y)),
                                                  to: Vec2(Float(wall.to.x), Float(wall.to.y)),
                                                  outward: Vec2(Float(wall.outward.x), Float(wall.outward.y))), mass: 0)]
            d.restitution = 0; d.friction = 0.2
            d.linearDamping = 0; d.angularDamping = 0
            d.collisionClass = scene.collisions ? 1 : 0
            try createBody(d)
        }
        if scene.kind == .fieldSwarm {
            // Benchmarks/SCENES.md's swarm field as two fields around (1000, 1000): radial gravity a = 4e7 / max(r, 50)² pt/s²
            // (strength 40, falloff 2, minimum radius 50 pt, since a = 100 · strength · r_m^−2) and a vortex of
            // 0.1 · r pt/s², clockwise on screen (strength −0.1, falloff −1).
            var radial = FieldDefinition(kind: .radialGravity)
            radial.position = Vec2(1000, 1000); radial.strength = 40; radial.falloff = 2; radial.minimumRadius = 50
            var vortex = FieldDefinition(kind: .vortex)
            vortex.position = Vec2(1000, 1000); vortex.strength = -0.1; vortex.falloff = -1
            try setFields([(radial, ids), (vortex, ids)])
        }
        var joints: [JointID] = []
        for link in scene.links {
            var j = JointDefinition(kind: .distance, bodyA: ids[link.a], bodyB: link.b.map { ids[$0] })
            if link.b == nil { j.localAnchorB = Vec2(Float(link.anchor.x), Float(link.anchor.y)) }
            j.length = Float(link.length); j.minLength = j.length; j.maxLength = j.length
            joints.append(try createJoint(j))
        }
        return (ids, joints)
    }
}

/// The statistics Benchmarks/SCENES.md asks for after the last step, from the item centers (in scene order) and, for the
/// joint grid, the length of every link (in link order).
public struct SceneStatistics: Sendable {
    /// Items whose center is not inside the bounds (rain: must be 0).
    public var outside = 0
    /// Items whose center is not finite (must be 0).
    public var nonfinite = 0
    /// rain: mean center y.
    public var meanY = 0.0
    /// pyramid: final minus initial y and x of the top box, and whether |top_dy| ≤ 5.
    public var topDY = 0.0, topDX = 0.0
    public var stable = false
    /// joint_grid: mean sag of the bottom row and the largest link length error.
    public var sag = 0.0, maxLinkError = 0.0
    /// field_swarm: mean distance from (1000, 1000).
    public var meanR = 0.0

    public init(scene: BenchmarkScene, centers: [SIMD2<Double>], linkLengths: [Double] = []) {
        var sumY = 0.0, sumR = 0.0, finite = 0
        for p in centers {
            guard p.x.isFinite && p.y.isFinite else { nonfinite += 1; continue }
            finite += 1
            if !(p.x >= 0 && p.x <= scene.width && p.y >= 0 && p.y <= scene.height) { outside += 1 }
            sumY += p.y
            let d = p - SIMD2(1000, 1000)
            sumR += (d.x * d.x + d.y * d.y).squareRoot()
        }
        meanY = finite > 0 ? sumY / Double(finite) : 0
        meanR = finite > 0 ? sumR / Double(finite) : 0
        switch scene.kind {
        case .pyramid:
            if let top = centers.last, let start = scene.items.last?.center {
                topDY = top.y - start.y
                topDX = top.x - start.x
                stable = abs(topDY) <= 5
            }
        case .jointGrid:
            let n = scene.size
            if centers.count == n * n {
                var s = 0.0
                for c in 0..<n { s += centers[(n - 1) * n + c].y - scene.items[(n - 1) * n + c].center.y }
                sag = s / Double(n)
            }
            maxLinkError = linkLengths.reduce(0) { Swift.max($0, abs($1 - 10)) }
        default:
            break
        }
    }

    /// The scene's own numbers as (name, value) pairs, in Benchmarks/SCENES.md's names.
    public func values(for kind: BenchmarkScene.Kind) -> [(String, Double)] {
        var out: [(String, Double)] = [("outside", Double(outside)), ("nonfinite", Double(nonfinite))]
        switch kind {
        case .rain: out.append(("mean_y", meanY))
        case .pyramid: out += [("top_dy", topDY), ("top_dx", topDX), ("stable", stable ? 1 : 0)]
        case .jointGrid: out += [("sag", sag), ("max_link_err", maxLinkError)]
        case .fieldSwarm: out.append(("mean_r", meanR))
        }
        return out
    }
}

extension World {
    /// `SceneStatistics` of a scene built with `build(_:)`.
    public func statistics(of scene: BenchmarkScene, items: [BodyID], links: [JointID]) -> SceneStatistics {
        let centers = items.map { id -> SIMD2<Double> in let p = origin(of: id); return SIMD2(Double(p.x), Double(p.y)) }
        let lengths = links.map { l -> Double in let (a, b) = jointAnchors(l); return Double(length(b - a)) }
        return SceneStatistics(scene: scene, centers: centers, linkLengths: lengths)
    }
}
