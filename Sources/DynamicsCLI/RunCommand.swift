import ArgumentParser
import DynamicsKit
import DynamicsProfiles
import DynamicsReplay
#if canImport(Glibc)
import Glibc
#endif

/// What a run did, for the summary table and `--json`.
struct RunSummary {
    var profile = ""
    var items = 0
    var steps = 0
    /// The most steps the run could take (it ends sooner when everything is at rest).
    var maximumSteps = 0
    /// The C kernels' vector lanes.
    var lanes = 4
    var simulated = 0.0
    var wall = 0.0
    var awake = 0
    var contacts = 0
    /// Items whose center, angle or velocity is not a finite number at the end (always 0: the engine lets no
    /// NaN or infinity in; a script can check it).
    var nonFinite = 0
    var pausedAt: Double?
    /// Mean milliseconds per step of each stage.
    var stages: [(String, Double)] = []

    var stepsPerSecond: Double { wall > 0 ? Double(steps) / wall : 0 }

    func table() -> String {
        var rows: [(String, String)] = [
            ("profile", profile), ("items", "\(items)"),
            ("steps", pausedAt != nil && steps < maximumSteps ? "\(steps) (of at most \(maximumSteps): everything came to rest)" : "\(steps)"),
            ("simulated time", String(format: "%.3f s", simulated)), ("wall time", String(format: "%.3f s", wall)),
            ("steps/s", String(format: "%.1f", stepsPerSecond)), ("vector lanes", "\(lanes)"), ("awake items", "\(awake)"), ("contacts", "\(contacts)"),
            ("non-finite items", "\(nonFinite)"), ("paused at", pausedAt.map { String(format: "%.3f s (at rest)", $0) } ?? "did not pause"),
        ]
        for (name, ms) in stages { rows.append(("\(name) ms/step", String(format: "%.4f", ms))) }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { "\($0.0.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.1)" }.joined(separator: "\n")
    }

    /// The summary as one JSON object, keys sorted; `pausedAtSeconds` is null for a run that did not pause.
    func json() -> String {
        struct Fields: Encodable {
            let summary: RunSummary
            enum Keys: String, CodingKey {
                case profile, items, steps, maximumSteps, lanes, simulatedSeconds, wallSeconds, stepsPerSecond, awakeItems,
                     contacts, nonFiniteItems, pausedAtSeconds, stageMsPerStep
            }
            func encode(to encoder: Encoder) throws {
                var c = encoder.container(keyedBy: Keys.self)
                try c.encode(summary.profile, forKey: .profile)
                try c.encode(summary.items, forKey: .items)
                try c.encode(summary.steps, forKey: .steps)
                try c.encode(summary.maximumSteps, forKey: .maximumSteps)
                try c.encode(summary.lanes, forKey: .lanes)
                try c.encode(summary.simulated, forKey: .simulatedSeconds)
                try c.encode(summary.wall, forKey: .wallSeconds)
                try c.encode(summary.stepsPerSecond, forKey: .stepsPerSecond)
                try c.encode(summary.awake, forKey: .awakeItems)
                try c.encode(summary.contacts, forKey: .contacts)
                try c.encode(summary.nonFinite, forKey: .nonFiniteItems)
                try c.encode(summary.pausedAt, forKey: .pausedAtSeconds)   // null when it did not pause
                try c.encode(Dictionary(uniqueKeysWithValues: summary.stages), forKey: .stageMsPerStep)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Names and finite numbers cannot fail to encode.
        return String(decoding: try! encoder.encode(Fields(summary: self)), as: UTF8.self)
    }
}

/// A progress bar on a terminal, plain lines every tenth otherwise; on standard error, so `--json` stays clean.
struct Progress {
    let total: Int
    /// What is counted: "steps", "runs".
    var unit = "steps"
    let tty = isatty(2) != 0
    var lastTenth = -1

    /// `done` of `total`, with `note` after the count (", 2 failed, 9.1 runs/s").
    mutating func update(_ done: Int, note: String = "") {
        if tty {
            guard done == total || done % max(1, total / 200) == 0 else { return }
            let width = 30, filled = total > 0 ? width * done / total : width
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            fputs("\r[\(bar)] \(done)/\(total) \(unit)\(note)", stderr)
            if done == total { fputs("\n", stderr) }
        } else {
            let tenth = total > 0 ? 10 * done / total : 10
            if tenth != lastTenth { lastTenth = tenth; fputs("progress: \(done)/\(total) \(unit)\(note)\n", stderr) }
        }
    }

    /// The run ended after `done` steps, before the last: everything came to rest.
    func endAtRest(_ done: Int) {
        if tty { fputs("\r\(done)/\(total) steps: everything came to rest" + String(repeating: " ", count: 30) + "\n", stderr) }
        else { fputs("progress: \(done)/\(total) steps: everything came to rest\n", stderr) }
    }
}

/// The options that shape a profile's run.
struct RunOptions: ParsableArguments {
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The most steps to run: the run ends sooner when everything comes to rest (default: the profile's).", valueName: "N"))
    var steps: Int?
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The most simulated seconds to run, instead of --steps.", valueName: "S"))
    var duration: Double?
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Time step, seconds (default: the profile's).", valueName: "seconds"))
    var dt: Double?
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Substeps per step (default: the profile's).", valueName: "N"))
    var substeps: Int?
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Seed of the profile's generators (default: the profile's).", valueName: "N"))
    var seed: UInt32?
    @Option(name: .customLong("set"), help: ArgumentHelp("Change a field of the profile before it loads, as path=value: any field, e.g. behaviors[0].magnitude=2 or items[0].count=500 (repeatable; the changed profile is checked as a file is).", valueName: "path=value"))
    var changes: [String] = []
    @Option(parsing: .unconditional, help: "Hold the C kernels (contacts, free motion) to at most this many lanes; results are identical.")
    var lanes: Scene.Lanes?
    @OptionGroup var workerOption: WorkersOption
    @OptionGroup var folder: ProfilesFolder
    var profiles: String? { folder.profiles }

    func validate() throws {
        for change in changes {
            do { _ = try ProfileOverride(assignment: change) } catch let e as ProfileError { throw ValidationError(e.message) }
        }
        if steps != nil && duration != nil { throw ValidationError("give --steps or --duration, not both") }
        if let n = steps, n < 1 { throw ValidationError("--steps must be at least 1, got \(n)") }
        if let d = duration, !(d.isFinite && d > 0) { throw ValidationError("--duration must be a positive number of seconds, got \(d)") }
        if let h = dt, !SupportedRange.timeStep.contains(h) { throw ValidationError("--dt must be between 0.00001 and 1 second, got \(h)") }
        if let n = substeps, !(1...64).contains(n) { throw ValidationError("--substeps must be within 1...64, got \(n)") }
    }

    /// The profile with the overrides applied, and the number of steps to run.
    func load(_ name: String) throws -> (Profile, Int) {
        let overrides = try changes.map { try ProfileOverride(assignment: $0) }
        var profile = try ProfileLocator.load(name, profiles: profiles, seed: seed, overrides: overrides)
        if let dt { profile.timeStep = dt }
        if let substeps { profile.substeps = substeps }
        let count = steps ?? duration.map { max(1, Int(($0 / profile.timeStep).rounded())) } ?? profile.steps
        return (profile, count)
    }
}

/// Runs a profile with a progress bar and a summary, optionally recording it.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a workload profile (a name from `dynamics list`, or a .json file) and summarize it.",
        discussion: """
        The run ends when everything comes to rest (the animator pauses, as UIKit's does) or after --steps steps \
        (--duration seconds), whichever comes first; the summary says which.
        """)

    @Argument(help: "The profile: a name in the profiles folder, or a path to a .json file.")
    var profile: String
    @OptionGroup var options: RunOptions
    @OptionGroup var output: OutputOptions
    @Flag(name: .long, help: "Print the summary as JSON (for scripts) instead of a table.")
    var json = false
    @Option(name: .long, help: ArgumentHelp("Write the final state of every item (name, center, angle, velocities, awake) as CSV or JSON lines (by extension: .csv, .jsonl).", valueName: "file"))
    var final: String?

    func validate() throws {
        if let f = final, !(f.hasSuffix(".csv") || f.hasSuffix(".jsonl")) {
            throw ValidationError("--final \(f): the file must end in .csv or .jsonl")
        }
    }

    func run() throws {
        let (profile, steps) = try options.load(self.profile)
        try output.checkWritable()
        try OutputOptions.checkWritable([("--final", final)])
        try output.checkSnapshotTime(within: Double(steps) * profile.timeStep)
        let scene = try profile.makeCheckedScene()
        let animator = scene.animator
        options.workerOption.apply(to: animator)
        try World.limitVectorLanes(to: options.lanes?.rawValue)
        defer { try? World.limitVectorLanes(to: nil) }
        let recorder = output.wantsRecording
            ? Recorder(animator: animator, items: scene.items, title: profile.name, every: output.every) : nil
        var summary = RunSummary(profile: profile.name, items: scene.items.count, maximumSteps: steps, lanes: World.vectorLanes)
        var sums = [Double](repeating: 0, count: 8)
        var progress = Progress(total: steps)
        let clock = ContinuousClock()
        let start = clock.now
        // A violation while stepping (there should be none once the scene is built) ends the run with its message.
        let (_, violations) = ContractViolation.collecting {
        for k in 0..<steps {
            guard animator.step() else { break }
            let t = animator.lastStepTimings
            for (i, v) in [t.compile, t.engine.forces, t.engine.broadphase, t.engine.narrowphase, t.engine.solve,
                           t.engine.islands, t.writeBack, t.callbacks].enumerated() { sums[i] += v }
            summary.steps = k + 1
            progress.update(k + 1)
            if !animator.isRunning { summary.pausedAt = animator.elapsedTime; break }
        }
        }
        if let first = violations.first { throw CommandFailure("\(profile.file): \(first)") }
        if summary.steps < steps { progress.endAtRest(summary.steps) }
        summary.wall = (clock.now - start) / .seconds(1)
        recorder?.finish()
        summary.simulated = animator.elapsedTime
        summary.awake = animator.world.awakeBodyCount
        summary.contacts = animator.world.allTouchingContactCount
        summary.nonFinite = animator.itemStates().filter { state in
            ![state.center.x, state.center.y, state.angle, state.velocity.x, state.velocity.y, state.angularVelocity].allSatisfy(\.isFinite)
        }.count
        let names = ["compile", "forces", "broadphase", "narrowphase", "solve", "islands", "write-back", "callbacks"]
        summary.stages = zip(names, sums).map { ($0, summary.steps > 0 ? 1000 * $1 / Double(summary.steps) : 0) }
        print(json ? summary.json() : summary.table())
        if let final {
            try write(finalStates(scene, csv: final.hasSuffix(".csv")), to: final, what: "final state")
            if !json { print("wrote \(final) (\(count(scene.items.count, "item")))") }
        }
        if let recorder {
            recorder.recording.summary = profile.summary
            recorder.recording.outcome = summary.pausedAt.map { String(format: "came to rest at %.2f s (step %d of at most %d)", $0, summary.steps, steps) }
                ?? "ran \(summary.steps) steps (\(String(format: "%.2f", summary.simulated)) s); \(summary.awake) of \(summary.items) items still moving"
            try output.write([recorder.recording], title: "DynamicsKit: \(profile.name)")
        }
    }
}

/// Every item's state at the end of a run, in the profile's item order: index, name, center, angle, velocity,
/// angular velocity and whether it is awake, as CSV (a header row) or one JSON object per item.
func finalStates(_ scene: ProfileScene, csv: Bool) -> String {
    var index: [ObjectIdentifier: Int] = [:]
    for (k, item) in scene.items.enumerated() { index[ObjectIdentifier(item)] = k }
    var rows = [ItemState?](repeating: nil, count: scene.items.count)
    for state in scene.animator.itemStates() {
        if let k = index[ObjectIdentifier(state.item)] { rows[k] = state }
    }
    var out = csv ? "item,name,x,y,angle,vx,vy,angularVelocity,awake\n" : ""
    for (k, item) in scene.items.enumerated() {
        // An item no behavior holds is not in the world: it is where it was left, at rest.
        let s = rows[k]
        let values = [s?.center.x ?? item.center.x, s?.center.y ?? item.center.y, s?.angle ?? 0, s?.velocity.x ?? 0,
                      s?.velocity.y ?? 0, s?.angularVelocity ?? 0].map { "\(Double($0))" }
        let awake = s?.isAwake ?? false
        if csv {
            out += "\(k),\(csvField(item.name ?? "")),\(values.joined(separator: ",")),\(awake ? 1 : 0)\n"
        } else {
            out += "{\"item\":\(k),\"name\":\(jsonString(item.name ?? "")),\"x\":\(values[0]),\"y\":\(values[1]),\"angle\":\(values[2]),"
                + "\"vx\":\(values[3]),\"vy\":\(values[4]),\"angularVelocity\":\(values[5]),\"awake\":\(awake)}\n"
        }
    }
    return out
}

/// A quick in-process timing table for a developer's machine.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time profiles in process: a quick table for a developer's machine.",
        discussion: """
        Each profile runs all its steps (a step after everything came to rest costs next to nothing and counts, as \
        in the benchmark suite), after its warm-up steps, --repetitions times from a fresh scene; the table gives \
        the median and least mean ms per step. The Google Benchmark suite in Benchmarks/ against Box2D and Chipmunk \
        remains the real instrument.
        """)

    @Argument(help: "Profiles: names in the profiles folder or paths to .json files.")
    var profileNames: [String]
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Timed steps per profile (default: each profile's).", valueName: "N"))
    var steps: Int?
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Runs of each profile.", valueName: "N"))
    var repetitions = 1
    @Flag(name: .long, help: "Print one JSON object per profile (for scripts) instead of a table.")
    var json = false
    @OptionGroup var workerOption: WorkersOption
    @OptionGroup var folder: ProfilesFolder
    var profiles: String? { folder.profiles }

    func validate() throws {
        if profileNames.isEmpty { throw ValidationError("name at least one profile (see `dynamics list`)") }
        if let n = steps, n < 1 { throw ValidationError("--steps must be at least 1, got \(n)") }
        if !(1...1000).contains(repetitions) { throw ValidationError("--repetitions must be between 1 and 1000, got \(repetitions)") }
    }

    /// One profile's figures over its repetitions.
    struct Result: Encodable {
        let profile: String
        let items: Int
        let steps: Int
        let repetitions: Int
        let medianMsPerStep: Double
        let minMsPerStep: Double
        let maxMsPerStep: Double
        let maxStepMs: Double
        let nsPerItemStep: Double
        let awakeItems: Int
    }

    func run() throws {
        if !json { print("profile                 items   steps  runs  ms/step (median)  min ms/step  max step ms  ns/item/step  awake") }
        for name in profileNames {
            let profile = try ProfileLocator.load(name, profiles: profiles)
            let count = steps ?? profile.steps
            var means: [Double] = [], worst = 0.0, awake = 0, items = 0
            for _ in 0..<repetitions {
                let scene = try profile.makeCheckedScene()
                let animator = scene.animator
                workerOption.apply(to: animator)
                items = scene.items.count
                for _ in 0..<profile.warmupSteps { animator.step() }
                let clock = ContinuousClock()
                var total = 0.0
                for _ in 0..<count {
                    let t = clock.now
                    animator.step()
                    let ms = (clock.now - t) / .milliseconds(1)
                    total += ms; worst = max(worst, ms)
                }
                means.append(total / Double(count))
                awake = animator.world.awakeBodyCount
            }
            means.sort()
            let median = means.count % 2 == 1 ? means[means.count / 2] : (means[means.count / 2 - 1] + means[means.count / 2]) / 2
            let result = Result(profile: profile.name, items: items, steps: count, repetitions: repetitions, medianMsPerStep: median,
                                minMsPerStep: means[0], maxMsPerStep: means[means.count - 1], maxStepMs: worst,
                                nsPerItemStep: items == 0 ? 0 : median * 1e6 / Double(items), awakeItems: awake)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(result), as: UTF8.self))
            } else {
                print(String(format: "%@ %6d  %6d  %4d  %16.3f  %11.3f  %11.2f  %12.1f  %5d", profile.name.padding(toLength: 22, withPad: " ", startingAt: 0),
                             items, count, repetitions, median, means[0], worst, result.nsPerItemStep, awake))
            }
        }
    }
}

/// `--workers`: the threads each step runs on.
struct WorkersOption: ParsableArguments {
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Threads each step runs on, the caller's included (default: the machine's cores); results are identical.", valueName: "N"))
    var workers: Int?
    @Flag(name: .long, help: "Keep every step on the workers: no fall-back to the caller's thread when they are held up or slower (for measuring that path); results are identical.")
    var pinWorkers = false

    func validate() throws {
        if let n = workers, !(1...WorkerPool.maximumWorkers).contains(n) {
            throw ValidationError("--workers must be between 1 and \(WorkerPool.maximumWorkers), got \(n)")
        }
    }

    func apply(to animator: DynamicAnimator) {
        if let workers { animator.workerCount = workers }
        if pinWorkers { animator.workersAdapt = false }
    }
}
