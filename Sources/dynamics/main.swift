import DynamicsCore
let args = CommandLine.arguments
let kind = BenchmarkScene.Kind(rawValue: args.count > 1 ? args[1] : "rain")!
let size = args.count > 2 ? Int(args[2])! : 1000
let steps = args.count > 3 ? Int(args[3])! : 600
let scene = BenchmarkScene.named(kind, size: size)
let world = World()
let (ids, links) = try world.build(scene)
let clock = ContinuousClock()
var total = Duration.zero
for s in 0..<steps {
    let t = clock.now
    world.step(dt: 1.0 / 60, substeps: 4)
    total += clock.now - t
    if s % 60 == 59 { print("step \(s+1) awake \(world.awakeBodyCount) contacts \(world.contactCount) \(world.profile)") }
}
var sumY: Double = 0, outside = 0
for id in ids { let p = world.origin(of: id); sumY += Double(p.y); if !(p.x >= 0 && p.x <= Float(scene.width) && p.y >= 0 && p.y <= Float(scene.height)) { outside += 1 } }
print("mean ms/step \(Double(total.components.attoseconds) / 1e15 / Double(steps) + Double(total.components.seconds) * 1000 / Double(steps)) mean_y \(sumY / Double(ids.count)) outside \(outside) awake \(world.awakeBodyCount)")
if !links.isEmpty {
    var maxErr: Float = 0
    for l in links { let (a, b) = world.jointAnchors(l); maxErr = max(maxErr, abs(length(b - a) - 10)) }
    print("max_link_err \(maxErr)")
}
if kind == .pyramid { print("top_dy \(world.origin(of: ids.last!).y - Float(scene.items.last!.center.y))") }
