import DynamicsKit
import DynamicsReplay

/// A sweep: one profile run many times with fields varied, and what to measure in each run. Read from a JSON file
/// (`Profiles/README.md`, "Sweeps"); `dynamics sweep` runs it on a pool of processes, in shards on a cluster, and
/// merges the shards.
///
/// Run `r` of a sweep is the same run wherever it executes: its parameters follow from `r` alone (random draws
/// too, from the sweep's seed and `r`), and its record holds no wall-clock figure unless `msPerStep` is asked for.
public struct SweepSpec {
    /// A varied field: its path in the profile and how its values are chosen.
    public struct Parameter {
        public let path: String
        let values: Values

        enum Values {
            /// Listed values, one per combination.
            case list([JSON])
            /// A uniform draw from `from ..< to` (whole numbers from `from ... to` when `integer`), per run.
            case uniform(from: Double, to: Double, integer: Bool)
            /// A draw among listed values, per run.
            case choice([JSON])
        }

        var isDrawn: Bool { if case .list = values { return false } else { return true } }
        var listCount: Int { if case let .list(v) = values { return v.count } else { return 1 } }
    }

    /// The file the sweep came from (for messages).
    public let file: String
    public let name: String
    /// The profile as named in the sweep, its file's name, and its text (read once).
    public let profileName: String
    let profileFile: String
    let profileText: String
    public let parameters: [Parameter]
    /// Random draws per combination of listed values.
    public let draws: Int
    /// The seed of the random draws.
    public let seed: UInt64
    /// The most steps of each run; nil: the profile's.
    public let steps: Int?
    public let metrics: [SweepMetric]
    /// Runs in all: the product of the listed values' counts, times `draws`.
    public let runCount: Int

    /// The most runs a sweep may have.
    public static let maximumRuns = 10_000_000

    /// Reads a sweep; `profileURL` finds the file of the profile it names (a name in the profiles folder, or a
    /// path relative to the sweep's file).
    public init(json text: String, file: String, profileURL: (String) throws -> URL) throws {
        let root = Node(value: try JSONParser.parse(text, file: file), path: "", file: file)
        try root.allowOnly(["name", "description", "profile", "parameters", "draws", "seed", "steps", "metrics"])
        self.file = file
        name = try root.optional("name")?.string() ?? String(file.split(separator: "/").last ?? "")
            .replacingOccurrences(of: ".json", with: "")
        let profileNode = try root.required("profile")
        profileName = try profileNode.string()
        let url: URL
        do { url = try profileURL(profileName) } catch { throw profileNode.fail("\(error)") }
        profileFile = url.lastPathComponent
        profileText = try Profile.text(of: url)
        // The profile itself must load, so that a failing run is the parameters' doing.
        _ = try Profile(json: profileText, file: profileFile)

        var parameters: [Parameter] = []
        let parameterNode = try root.required("parameters")
        for (path, _) in try parameterNode.members() {
            let node = try parameterNode.required(path)
            do { _ = try ProfileOverride.parse(path) } catch let e as ProfileError { throw node.fail(e.message) }
            parameters.append(Parameter(path: path, values: try SweepSpec.values(node)))
        }
        self.parameters = parameters
        draws = try root.optional("draws")?.integer(min: 1, max: SweepSpec.maximumRuns) ?? 1
        seed = UInt64(try root.optional("seed")?.integer(min: 0, max: Int(UInt32.max)) ?? 1)
        steps = try root.optional("steps")?.integer(min: 1, max: SupportedRange.stepsPerCall)
        if let m = try root.optional("metrics") {
            let names = try m.array()
            guard !names.isEmpty else { throw m.fail("expected at least one metric") }
            var chosen: [SweepMetric] = []
            for n in names {
                let word = try n.string()
                guard let metric = SweepMetric(rawValue: word) else {
                    throw n.fail("unknown metric '\(word)'; expected one of: \(SweepMetric.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                guard !chosen.contains(metric) else { throw n.fail("the metric '\(word)' is listed twice") }
                chosen.append(metric)
            }
            metrics = chosen
        } else {
            metrics = SweepMetric.standard
        }
        var count = draws
        for p in parameters {
            guard count <= SweepSpec.maximumRuns / p.listCount else {
                throw root.fail("the sweep has more than \(SweepSpec.maximumRuns) runs")
            }
            count *= p.listCount
        }
        if !parameters.contains(where: \.isDrawn) && draws > 1 {
            throw root.fail("'draws' is \(draws) but no parameter is drawn at random: every draw would be the same run")
        }
        runCount = count
    }

    private static func values(_ node: Node) throws -> Parameter.Values {
        if case let .array(values) = node.value {
            guard !values.isEmpty else { throw node.fail("expected at least one value") }
            return .list(values)
        }
        let members = try node.members()
        if members.count == 1, members[0].0 == "random" {
            let r = try node.required("random")
            if let choices = try r.optional("choices") {
                try r.allowOnly(["choices"])
                let list = try choices.array().map(\.value)
                guard !list.isEmpty else { throw choices.fail("expected at least one value") }
                return .choice(list)
            }
            try r.allowOnly(["from", "to", "integer"])
            let from = try r.required("from").anyNumber(), to = try r.required("to").anyNumber()
            let integer = try r.optional("integer")?.bool() ?? false
            guard from < to || (integer && from == to) else { throw r.fail("expected 'from' below 'to', found \(from) and \(to)") }
            if integer {
                guard from == from.rounded(), to == to.rounded(), abs(from) < 1e15, abs(to) < 1e15 else {
                    throw r.fail("expected whole numbers 'from' and 'to' for integer draws, found \(from) and \(to)")
                }
            }
            return .uniform(from: from, to: to, integer: integer)
        }
        try node.allowOnly(["from", "to", "step", "count"])
        let from = try node.required("from").anyNumber(), to = try node.required("to").anyNumber()
        guard from <= to else { throw node.fail("expected 'from' at most 'to', found \(from) and \(to)") }
        let step = try node.optional("step"), count = try node.optional("count")
        switch (step, count) {
        case let (s?, nil):
            let d = try s.anyNumber()
            guard d > 0 else { throw s.fail("expected a step > 0, found \(d)") }
            let n = ((to - from) / d * (1 + 1e-12)).rounded(.down) + 1
            guard n <= Double(maximumRuns) else { throw s.fail("the range has more than \(maximumRuns) values") }
            return .list((0..<Int(n)).map { .number(from + Double($0) * d) })
        case let (nil, c?):
            let n = try c.integer(min: 1, max: maximumRuns)
            if n == 1 { return .list([.number(from)]) }
            return .list((0..<n).map { k in .number(k == n - 1 ? to : from + (to - from) * Double(k) / Double(n - 1)) })
        default:
            throw node.fail("expected a list of values, {\"from\", \"to\", \"step\"}, {\"from\", \"to\", \"count\"} or {\"random\": …}")
        }
    }

    /// The changes run `r` makes to the profile, in the sweep's parameter order.
    public func overrides(run r: Int) -> [ProfileOverride] {
        precondition(r >= 0 && r < runCount, "run \(r) of a sweep of \(runCount)")
        // Listed values as the digits of r / draws, the last parameter changing fastest.
        var combination = r / draws
        var chosen = [JSON](repeating: .null, count: parameters.count)
        for (k, p) in parameters.enumerated().reversed() {
            if case let .list(values) = p.values {
                chosen[k] = values[combination % values.count]
                combination /= values.count
            }
        }
        for (k, p) in parameters.enumerated() {
            let u = SweepSpec.uniform(seed: seed, run: r, parameter: k)
            switch p.values {
            case .list: break
            case let .uniform(from, to, integer):
                if integer {
                    let span = to - from + 1
                    chosen[k] = .number(Swift.min(to, from + (u * span).rounded(.down)))
                } else {
                    chosen[k] = .number(from + u * (to - from))
                }
            case let .choice(values):
                chosen[k] = values[Swift.min(values.count - 1, Int(u * Double(values.count)))]
            }
        }
        // The paths were checked as the sweep was read.
        return zip(parameters, chosen).map { try! ProfileOverride(path: $0.path, value: $1) }
    }

    /// A number in [0, 1) from the sweep's seed, the run and the parameter alone (SplitMix64 of the three).
    static func uniform(seed: UInt64, run: Int, parameter: Int) -> Double {
        @inline(__always) func mix(_ x: UInt64) -> UInt64 {
            var z = x &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let z = mix(mix(mix(seed) ^ UInt64(run)) ^ UInt64(parameter))
        return Double(z >> 11) * 0x1p-53
    }

    /// Runs `r` in this process (on `workers` threads: runs in a pool of processes each take one) and returns
    /// its record. A run that cannot be built or breaks a rule of the library is recorded as failed with the
    /// message; it never stops the caller.
    public func run(_ r: Int, workers: Int = 1) -> SweepRecord {
        let changes = overrides(run: r)
        let parameters = changes.map { ($0.path, $0.value) }
        func failed(_ message: String) -> SweepRecord {
            SweepRecord(run: r, runs: runCount, parameters: parameters, outcome: .failed(message))
        }
        let profile: Profile
        do { profile = try Profile(json: profileText, file: profileFile, overrides: changes) } catch {
            return failed("\(error)")
        }
        let scene: ProfileScene
        do { scene = try profile.makeCheckedScene() } catch { return failed("\(error)") }
        let animator = scene.animator
        animator.workerCount = workers
        let count = steps ?? profile.steps
        var done = 0
        var restedAt: Double?
        let clock = ContinuousClock()
        let start = clock.now
        let (_, violations) = ContractViolation.collecting {
            for _ in 0..<count {
                guard animator.step() else { break }
                done += 1
                if !animator.isRunning { restedAt = animator.elapsedTime; break }
            }
        }
        let wall = (clock.now - start) / .seconds(1)
        if let first = violations.first { return failed("\(profile.file): \(first)") }
        let states = animator.itemStates()
        let values: [Double] = states.flatMap { [Double($0.center.x), Double($0.center.y), Double($0.angle),
                                                 Double($0.velocity.x), Double($0.velocity.y), Double($0.angularVelocity)] }
        guard values.allSatisfy(\.isFinite) else { return failed("an item's state is not a finite number at the end") }
        var out: [(SweepMetric, Double?)] = []
        let xs = states.map { Double($0.center.x) }, ys = states.map { Double($0.center.y) }
        func mean(_ v: [Double]) -> Double? { v.isEmpty ? nil : v.reduce(0, +) / Double(v.count) }
        func spread(_ v: [Double]) -> Double? {
            guard let m = mean(v) else { return nil }
            return (v.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(v.count)).squareRoot()
        }
        for metric in metrics {
            let value: Double?
            switch metric {
            case .steps: value = Double(done)
            case .timeToRest: value = restedAt
            case .escapes:
                let b = profile.bounds
                value = Double(states.filter { !($0.center.x >= 0 && $0.center.x <= b.width && $0.center.y >= 0 && $0.center.y <= b.height) }.count)
            case .meanX: value = mean(xs)
            case .meanY: value = mean(ys)
            case .stdX: value = spread(xs)
            case .stdY: value = spread(ys)
            case .minX: value = xs.min()
            case .maxX: value = xs.max()
            case .minY: value = ys.min()
            case .maxY: value = ys.max()
            case .maxSpeed:
                value = states.map { (Double($0.velocity.x) * Double($0.velocity.x) + Double($0.velocity.y) * Double($0.velocity.y)).squareRoot() }.max()
            case .kineticEnergy: value = animator.kineticEnergy()
            case .contacts: value = Double(animator.world.allTouchingContactCount)
            case .awake: value = Double(states.filter(\.isAwake).count)
            case .msPerStep: value = done > 0 ? 1000 * wall / Double(done) : nil
            }
            out.append((metric, value))
        }
        return SweepRecord(run: r, runs: runCount, parameters: parameters, outcome: .ok(out))
    }

    /// The record of run `r` that failed outside `run(_:)` (its process ended without a result).
    public func failedRecord(run r: Int, message: String) -> SweepRecord {
        SweepRecord(run: r, runs: runCount, parameters: overrides(run: r).map { ($0.path, $0.value) }, outcome: .failed(message))
    }

    /// The runs of shard `index` of `count`: every `count`-th run from `index`.
    public func runs(shard index: Int, of count: Int) -> StrideTo<Int> {
        stride(from: index, to: runCount, by: count)
    }
}

/// What a sweep measures at the end of each run.
public enum SweepMetric: String, CaseIterable {
    /// Steps run (fewer than the most when everything came to rest).
    case steps
    /// Simulated seconds until everything came to rest (the animator paused); null when it did not.
    case timeToRest
    /// Items whose center is outside the profile's bounds.
    case escapes
    /// The items' centers: mean, standard deviation, least and greatest, points.
    case meanX, meanY, stdX, stdY, minX, maxX, minY, maxY
    /// The fastest item's speed, points/s.
    case maxSpeed
    /// `DynamicAnimator.kineticEnergy()`.
    case kineticEnergy
    /// Touching contacts, sleeping ones included.
    case contacts
    /// Items still awake.
    case awake
    /// Wall-clock milliseconds per step: the one metric that differs between runs of the same parameters.
    case msPerStep

    /// The metrics of a sweep that names none: every one but `msPerStep`, so records are reproducible.
    public static let standard: [SweepMetric] = allCases.filter { $0 != .msPerStep }
}

/// One run's result: a line of a sweep's results file.
public struct SweepRecord {
    public enum Outcome {
        case ok([(SweepMetric, Double?)])
        case failed(String)
    }

    public let run: Int
    /// The sweep's run count (so shards can be checked for missing runs).
    public let runs: Int
    let parameters: [(String, JSON)]
    public let outcome: Outcome

    init(run: Int, runs: Int, parameters: [(String, JSON)], outcome: Outcome) {
        self.run = run; self.runs = runs; self.parameters = parameters; self.outcome = outcome
    }

    public var failed: Bool { if case .failed = outcome { return true } else { return false } }

    /// The parameters as path and JSON text.
    public var parameterTexts: [(String, String)] { parameters.map { ($0.0, $0.1.text) } }

    /// The metric values, empty for a failed run.
    public var metrics: [(SweepMetric, Double?)] { if case let .ok(m) = outcome { return m } else { return [] } }

    /// The record as one line of JSON (no newline): run, runs, status, parameters, then metrics or error.
    public var line: String {
        var fields = ["\"run\":\(run)", "\"runs\":\(runs)"]
        let params = "{" + parameters.map { JSON.quoted($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        switch outcome {
        case let .ok(metrics):
            fields.append("\"status\":\"ok\"")
            fields.append("\"parameters\":" + params)
            let values = metrics.map { name, value in JSON.quoted(name.rawValue) + ":" + (value.map { numberText($0) } ?? "null") }
            fields.append("\"metrics\":{" + values.joined(separator: ",") + "}")
        case let .failed(message):
            fields.append("\"status\":\"failed\"")
            fields.append("\"parameters\":" + params)
            fields.append("\"error\":" + JSON.quoted(message))
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// Reads a line of a results file; `file` and `lineNumber` name it in errors.
    public init(line: String, file: String, lineNumber: Int) throws {
        let place = "\(file):\(lineNumber)"
        let root = Node(value: try JSONParser.parse(line, file: place), path: "", file: place)
        try root.allowOnly(["run", "runs", "status", "parameters", "metrics", "error"])
        runs = try root.required("runs").integer(min: 1, max: SweepSpec.maximumRuns)
        run = try root.required("run").integer(min: 0, max: runs - 1)
        parameters = try root.required("parameters").members()
        let statusNode = try root.required("status")
        switch try statusNode.string() {
        case "ok":
            let m = try root.required("metrics")
            outcome = .ok(try m.members().map { name, value in
                guard let metric = SweepMetric(rawValue: name) else { throw m.fail("unknown metric '\(name)'") }
                switch value {
                case .null: return (metric, nil)
                case let .number(d): return (metric, d)
                default: throw m.fail("expected a number or null for '\(name)', found \(value.kindName)")
                }
            })
        case "failed":
            outcome = .failed(try root.required("error").string())
        case let other:
            throw statusNode.fail("expected ok or failed, found '\(other)'")
        }
    }
}
