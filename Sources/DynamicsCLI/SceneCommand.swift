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
    @Flag(help: "Print per-stage timings every 60 steps (--every).")
    var verbose = false
    @Option(parsing: .unconditional, help: ArgumentHelp("With --verbose, print every N steps instead of 60.", valueName: "N"))
    var every = 60
    @Flag(help: "Print, for each step until every item rests, the awake items, the items ready to sleep, the peak linear (pt/s) and angular (degrees/s) speeds, and the fastest item (its index in the scene) with its center.")
    var settling = false
    @Option(parsing: .unconditional, help: "Broadphase grid cell size in points (default: chosen from the typical item size).")
    var cellSize: Float = 0
    @Option(parsing: .unconditional, help: "Contact stiffness in Hz, used up to a quarter of the substep rate.")
    var contactHertz: Float = WorldSettings().contactHertz
    @Option(parsing: .unconditional, help: "Contact damping ratio (non-dimensional).")
    var contactDampingRatio: Float = WorldSettings().contactDampingRatio
    @Option(parsing: .unconditional, help: "Stacks deeper than this many items get the substeps and contact stiffness they need to stand (WorldSettings.tallStackDepth); 0 turns the rule off.")
    var tallStackDepth: Int = WorldSettings().tallStackDepth
    @Option(parsing: .unconditional, help: "Hold the C kernels (contacts, free motion) to at most this many lanes; results are identical.")
    var lanes: Lanes?

    @Option(parsing: .unconditional, help: ArgumentHelp("Run this many copies of the scene, each with every item center moved by up to --jitter points (seeds 1 to N), and print each one's sleep step and figures, then their spread. With 1, --settling and --verbose trace the moved copy.", valueName: "N"))
    var ensemble: Int?
    @Option(parsing: .unconditional, help: "With --ensemble: the largest move of an item center, in points.")
    var jitter: Double = 0.001

    @OptionGroup var workerOption: WorkersOption

    /// The widths the C kernels can be held to.
    enum Lanes: Int, CaseIterable, ExpressibleByArgument { case four = 4, eight = 8, sixteen = 16 }

    func validate() throws {
        guard size > 0 else { throw ValidationError("size must be positive, got \(size)") }
        guard steps > 0 else { throw ValidationError("steps must be positive, got \(steps)") }
        guard substeps > 0 else { throw ValidationError("substeps must be positive, got \(substeps)") }
        guard contactHertz.isFinite && contactHertz > 0 else { throw ValidationError("contact hertz must be positive, got \(contactHertz)") }
        guard contactDampingRatio.isFinite && contactDampingRatio >= 0 else { throw ValidationError("contact damping ratio must be finite and not negative, got \(contactDampingRatio)") }
        guard tallStackDepth >= 0 else { throw ValidationError("--tall-stack-depth must not be negative, got \(tallStackDepth)") }
        guard cellSize.isFinite && cellSize >= 0 else { throw ValidationError("cell size must be finite and not negative, got \(cellSize)") }
        if let ensemble, ensemble < 1 { throw ValidationError("ensemble must be at least 1, got \(ensemble)") }
        guard jitter.isFinite && jitter >= 0 else { throw ValidationError("jitter must be finite and not negative, got \(jitter)") }
        guard every >= 1 else { throw ValidationError("--every must be at least 1, got \(every)") }
        if let ensemble, ensemble > 1 && (settling || verbose) { throw ValidationError("--ensemble prints one line per copy; run one copy (--ensemble 1) for --settling or --verbose") }
    }

    /// One run of `scene`: the step times (ms), the step at which every item rested, and the world after it.
    func simulate(_ scene: BenchmarkScene) throws -> (times: [Double], asleepAt: Int?, world: World, ids: [BodyID], links: [JointID],
                                                     callerOnly: Double) {
        var settings = WorldSettings()
        settings.gridCellSize = cellSize
        settings.contactHertz = contactHertz
        settings.tallStackDepth = tallStackDepth
        settings.contactDampingRatio = contactDampingRatio
        let world = try World(settings: settings)
        if let workers = workerOption.workers { try world.setWorkerCount(workers) }
        if workerOption.pinWorkers { world.workersAdapt = false }
        let (ids, links) = try world.build(scene)
        let clock = ContinuousClock()
        var times: [Double] = []
        var asleepAt: Int?
        var stepSeconds = 0.0, workerSeconds = 0.0
        if settling { print("step  awake  ready  peak_pt_s  peak_deg_s  fastest     at_x     at_y") }
        times.reserveCapacity(steps)
        for s in 0..<steps {
            let t = clock.now
            try world.step(dt: 1.0 / 60, substeps: substeps)
            let d = clock.now - t
            times.append(d / .milliseconds(1))
            stepSeconds += world.profile.total; workerSeconds += world.profile.onWorkers
            if settling && world.awakeBodyCount > 0 { printSettling(world, step: s + 1) }
            if asleepAt == nil && world.awakeBodyCount == 0 { asleepAt = s + 1 }
            if verbose && (s + 1) % every == 0 { print("step \(s + 1): awake \(world.awakeBodyCount), contacts \(world.contactCount), \(world.profile)") }
        }
        // The share of the step time spent outside the passes handed to the workers.
        let callerOnly = stepSeconds > 0 ? 1 - workerSeconds / stepSeconds : 1
        return (times, asleepAt, world, ids, links, callerOnly)
    }

    func run() throws {
        let scene = BenchmarkScene.named(kind, size: size)
        try World.limitVectorLanes(to: lanes?.rawValue)
        defer { try? World.limitVectorLanes(to: nil) }
        if let ensemble { return try runEnsemble(scene, members: ensemble) }
        let (times, asleepAt, world, ids, links, callerOnly) = try simulate(scene)
        let mean = times.reduce(0, +) / Double(times.count)
        let tail = times.suffix(min(120, times.count))
        let stats = world.statistics(of: scene, items: ids, links: links)
        print("scene \(scene.name): \(ids.count) items, \(links.count) links, \(steps) steps, \(World.vectorLanes) lanes, \(count(world.workerCount, "worker"))")
        print(String(format: "ms_per_step %.3f  ms_last120 %.3f  max_step %.3f  awake %d  outside %d  nonfinite %d",
                     mean, tail.reduce(0, +) / Double(tail.count), times.max() ?? 0, world.awakeBodyCount, stats.outside, stats.nonfinite))
        // With several workers: how much of the step ran on the caller's thread alone (Amdahl's serial share).
        if world.workerCount > 1 { print(String(format: "caller_only_share %.3f", callerOnly)) }
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

    /// `members` runs of `scene` moved by up to `jitter` points (seeds 1 … members): one line each, then the spread
    /// of the sleep step (a run that never rests counts as later than any that does) and of the scene's figure.
    func runEnsemble(_ scene: BenchmarkScene, members: Int) throws {
        // The scene's own figure: the first of `SceneStatistics.values(for:)` after outside and nonfinite.
        let figureName = SceneStatistics(scene: scene, centers: []).values(for: scene.kind)[2].0
        print("scene \(scene.name): \(scene.items.count) items, \(members == 1 ? "1 copy" : "\(members) copies") with centers moved by up to \(jitter) pt, \(steps) steps")
        print("seed  asleep_at  \(figureName)  outside  ms_per_step")
        var sleeps: [Int] = [], figures: [Double] = []
        for seed in 1...members {
            let copy = scene.perturbed(seed: UInt64(seed), amplitude: jitter)
            let (times, asleepAt, world, ids, links, _) = try simulate(copy)
            let stats = world.statistics(of: copy, items: ids, links: links)
            let figure = stats.values(for: scene.kind)[2].1
            sleeps.append(asleepAt ?? Int.max)
            figures.append(figure)
            print(String(format: "%4d  %9@  %9.3f  %7d  %11.3f", seed, asleepAt.map { String($0) } ?? "never", figure,
                         stats.outside, times.reduce(0, +) / Double(times.count)))
        }
        sleeps.sort(); figures.sort()
        func step(_ s: Int) -> String { s == Int.max ? "never" : String(s) }
        let never = sleeps.filter { $0 == Int.max }.count
        // The median of an even count is the lower middle one: a sleep step that some run reached.
        print("asleep_at min \(step(sleeps[0]))  median \(step(sleeps[(members - 1) / 2]))  max \(step(sleeps[members - 1]))  never \(never) of \(members)")
        print(String(format: "\(figureName) min %.3f  median %.3f  max %.3f", figures[0], figures[(members - 1) / 2], figures[members - 1]))
    }
}

extension BenchmarkScene.Kind: ExpressibleByArgument {}

/// One line of the settling trace: the awake items, how many of them are ready to sleep, the peak speed and turn rate
/// of the awake items, and which item moves fastest (its index among the scene's bodies, in the order the scene makes
/// them) and where its center is: the item to follow when a pile is slow to rest.
private func printSettling(_ world: World, step: Int) {
    let (peak, peakTurn, fastest) = world.withBodyStates { states -> (Float, Float, (index: Int32, at: Vec2)?) in
        var peak: Float = 0, turn: Float = 0
        var fastest: (index: Int32, at: Vec2)?
        for k in 0..<states.awakeCount {
            let v = states.velocity(at: k)
            let speed = (v.x * v.x + v.y * v.y).squareRoot()
            if fastest == nil || speed > peak { fastest = (states.id(at: k).index, states.origin(at: k)) }
            peak = max(peak, speed)
            turn = max(turn, abs(states.angularVelocity(at: k)))
        }
        return (peak, turn, fastest)
    }
    let item = fastest.map { String(format: "  %7d  %7.1f  %7.1f", $0.index, $0.at.x, $0.at.y) } ?? ""
    print(String(format: "%4d  %5d  %5d  %9.3f  %10.3f", step, world.awakeBodyCount, world.awakeBodiesReadyToSleep,
                 peak, peakTurn * 180 / .pi) + item)
}
