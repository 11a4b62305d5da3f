import ArgumentParser
import DynamicsKit
import DynamicsScenes

/// Runs a Benchmarks/SCENES.md benchmark scene through the engine's bulk API and prints its figures.
struct Scene: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run a Benchmarks/SCENES.md scene (rain, pyramid, joint_grid, field_swarm) and time it.")

    @Argument(help: "Scene kind.")
    var kind: BenchmarkScene.Kind
    @Argument(help: "Scene size (rain: items; pyramid: rows; joint_grid: side; field_swarm: items).")
    var size: Int
    @Option(parsing: .unconditional, help: "Steps of 1/60 s.")
    var steps = 600
    @Option(parsing: .unconditional, help: "Substeps per step.")
    var substeps = 4
    @Flag(help: "Print per-stage timings every 60 steps.")
    var verbose = false
    @Flag(help: "Print, for each step until every item rests, the awake items, the items ready to sleep and the peak linear (pt/s) and angular (degrees/s) speeds.")
    var settling = false
    @Option(parsing: .unconditional, help: "Broadphase grid cell size in points (default: chosen from the typical item size).")
    var cellSize: Float = 0
    @Option(parsing: .unconditional, help: "Contact stiffness in Hz, used up to a quarter of the substep rate.")
    var contactHertz: Float = WorldSettings().contactHertz
    @Option(parsing: .unconditional, help: "Contact damping ratio (non-dimensional).")
    var contactDampingRatio: Float = WorldSettings().contactDampingRatio
    @Option(parsing: .unconditional, help: "Hold the C kernels (contacts, free motion) to at most this many lanes; results are identical.")
    var lanes: Lanes?

    @OptionGroup var workerOption: WorkersOption

    /// The widths the C kernels can be held to.
    enum Lanes: Int, CaseIterable, ExpressibleByArgument { case four = 4, eight = 8, sixteen = 16 }

    func validate() throws {
        guard size > 0 else { throw ValidationError("size must be positive, got \(size)") }
        guard steps > 0 else { throw ValidationError("steps must be positive, got \(steps)") }
        guard substeps > 0 else { throw ValidationError("substeps must be positive, got \(substeps)") }
        guard contactHertz.isFinite && contactHertz > 0 else { throw ValidationError("contact hertz must be positive, got \(contactHertz)") }
        guard contactDampingRatio.isFinite && contactDampingRatio >= 0 else { throw ValidationError("contact damping ratio must be finite and not negative, got \(contactDampingRatio)") }
        guard cellSize.isFinite && cellSize >= 0 else { throw ValidationError("cell size must be finite and not negative, got \(cellSize)") }
    }

    func run() throws {
        let scene = BenchmarkScene.named(kind, size: size)
        var settings = WorldSettings()
        settings.gridCellSize = cellSize
        settings.contactHertz = contactHertz
        settings.contactDampingRatio = contactDampingRatio
        try World.limitVectorLanes(to: lanes?.rawValue)
        defer { try? World.limitVectorLanes(to: nil) }
        let world = try World(settings: settings)
        if let workers = workerOption.workers { try world.setWorkerCount(workers) }
        let (ids, links) = try world.build(scene)
        let clock = ContinuousClock()
        var times: [Double] = []
        var asleepAt: Int?
        if settling { print("step  awake  ready  peak_pt_s  peak_deg_s") }
        times.reserveCapacity(steps)
        for s in 0..<steps {
            let t = clock.now
            try world.step(dt: 1.0 / 60, substeps: substeps)
            let d = clock.now - t
            times.append(d / .milliseconds(1))
            if settling && world.awakeBodyCount > 0 { printSettling(world, step: s + 1) }
            if asleepAt == nil && world.awakeBodyCount == 0 { asleepAt = s + 1 }
            if verbose && (s + 1) % 60 == 0 { print("step \(s + 1): awake \(world.awakeBodyCount), contacts \(world.contactCount), \(world.profile)") }
        }
        let mean = times.reduce(0, +) / Double(times.count)
        let tail = times.suffix(min(120, times.count))
        let stats = world.statistics(of: scene, items: ids, links: links)
        print("scene \(scene.name): \(ids.count) items, \(links.count) links, \(steps) steps, \(World.vectorLanes) lanes, \(count(world.workerCount, "worker"))")
        print(String(format: "ms_per_step %.3f  ms_last120 %.3f  max_step %.3f  awake %d  outside %d  nonfinite %d",
                     mean, tail.reduce(0, +) / Double(tail.count), times.max() ?? 0, world.awakeBodyCount, stats.outside, stats.nonfinite))
        print("asleep_at " + (asleepAt.map { "step \($0)" } ?? "never"))
        print("state_hash " + String(world.stateHash(), radix: 16))
        switch scene.kind {
        case .rain: print(String(format: "mean_y %.2f", stats.meanY))
        case .pyramid:
            print(String(format: "top_dy %.3f  top_dx %.3f  stable %d", stats.topDY, stats.topDX, stats.stable ? 1 : 0))
        case .jointGrid: print(String(format: "sag %.3f  max_link_err %.4f", stats.sag, stats.maxLinkError))
        case .fieldSwarm: print(String(format: "mean_r %.2f", stats.meanR))
        }
    }
}

extension BenchmarkScene.Kind: ExpressibleByArgument {}

/// One line of the settling trace: the awake items, how many of them are ready to sleep, and the fastest awake item's
/// speed and turn rate.
private func printSettling(_ world: World, step: Int) {
    let (peak, peakTurn) = world.withBodyStates { states -> (Float, Float) in
        var peak: Float = 0, turn: Float = 0
        for k in 0..<states.awakeCount {
            let v = states.velocity(at: k)
            peak = max(peak, (v.x * v.x + v.y * v.y).squareRoot())
            turn = max(turn, abs(states.angularVelocity(at: k)))
        }
        return (peak, turn)
    }
    print(String(format: "%4d  %5d  %5d  %9.3f  %10.3f", step, world.awakeBodyCount, world.awakeBodiesReadyToSleep,
                 peak, peakTurn * 180 / .pi))
}
