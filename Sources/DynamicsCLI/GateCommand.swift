import ArgumentParser
import DynamicsKit
import DynamicsProfiles
#if canImport(Glibc)
import Glibc
#endif

/// `dynamics gate`: a performance gate for profiles, against a baseline file, with figures that hold on a shared CI
/// machine.
struct Gate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fail when profiles' steps cost more than their baseline (instructions, allocations, or time).",
        discussion: """
        Each profile runs through `dynamics run` in a process of its own. With valgrind (--method callgrind, the \
        default where it is installed) the gate counts the instructions of the engine's step (World.step) per step \
        on one worker, and the heap allocations the step makes in steps N+1…2N on any thread (the steady state; \
        valgrind's DHAT, runs at N and 2N steps; none more than the baseline is allowed; a run that comes to rest at \
        step R before 2N is counted over steps M+1…2M, M = R/2, and says so). Where valgrind is missing, Linux perf \
        counts the process's instructions at N and 2N steps (their difference per step), if the machine lets it; \
        else the wall clock gives the median time per step of \
        --repetitions runs, and the gate allows their spread as well as the tolerance. \
        Exit status: 0 when every case is within its baseline, 1 when one is not (or has no baseline), 2 when a \
        case cannot be measured. --update writes the figures measured into the baseline file instead.
        """)

    enum Method: String, ExpressibleByArgument, CaseIterable { case auto, callgrind, perf, time }
    enum Format: String, ExpressibleByArgument, CaseIterable { case text, github }
    enum Measure: String, ExpressibleByArgument, CaseIterable { case instructions, allocations, both }

    @Argument(help: "Profiles: names, .json paths or folders of them; NAME@N measures N steps instead of --steps.")
    var profiles: [String]
    @Option(name: .long, help: ArgumentHelp("The baseline file (JSON).", valueName: "file"))
    var baseline: String
    @Flag(name: .long, help: "Write the measured figures into the baseline file (other cases there are kept).")
    var update = false
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The allowed growth, percent (default: the baseline file's, else 3).", valueName: "percent"))
    var tolerance: Double?
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Steps measured per profile.", valueName: "N"))
    var steps = 60
    @Option(parsing: .unconditional, help: "Hold the C kernels to at most this many lanes (a case whose processor has fewer is skipped).")
    var lanes: Scene.Lanes?
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Threads of the allocation runs (instructions are counted on one).", valueName: "N"))
    var workers = 1
    @Option(name: .long, help: "How to measure.")
    var method: Method = .auto
    @Option(name: .long, help: "What to measure with callgrind.")
    var measure: Measure = .both
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Runs per profile for --method time.", valueName: "N"))
    var repetitions = 5
    @Option(name: .long, help: "Output: a table, or the table and GitHub Actions annotations.")
    var format: Format = .text
    @OptionGroup var folder: ProfilesFolder

    func validate() throws {
        if profiles.isEmpty { throw ValidationError("name at least one profile or folder") }
        if let t = tolerance, !(t.isFinite && t >= 0 && t <= 1000) { throw ValidationError("--tolerance must be a percentage from 0 to 1000, got \(t)") }
        guard (1...1_000_000).contains(steps) else { throw ValidationError("--steps must be between 1 and 1,000,000, got \(steps)") }
        guard (1...WorkerPool.maximumWorkers).contains(workers) else { throw ValidationError("--workers must be between 1 and \(WorkerPool.maximumWorkers), got \(workers)") }
        guard (3...100).contains(repetitions) else { throw ValidationError("--repetitions must be between 3 and 100, got \(repetitions)") }
    }

    /// A profile to measure and for how many steps.
    struct Case {
        var path: String
        var name: String
        var steps: Int
    }

    func run() throws {
        let cases = try collectCases()
        let chosen: Method
        do { chosen = try resolvedMethod() } catch let e as GateMeasureError {
            fputs("Error: \(e.message)\n", stderr)
            throw ExitCode(2)
        }
        var base = try GateBaseline(path: baseline, required: !update)
        let tol = tolerance.map { $0 / 100 } ?? base.tolerance
        let exe = try ownExecutable()
        var rows: [GateRow] = []
        var failed = false
        for c in cases {
            let key = caseKey(c)
            let measured: GateFigures
            do { measured = try measureCase(c, method: chosen, executable: exe) } catch let e as GateMeasureError {
                emit(GateRow(key: key, path: c.path, measure: chosen.rawValue, baseline: "–", now: "–", change: "", verdict: "FAIL (cannot measure: \(e.message))", failed: true))
                throw ExitCode(2)
            }
            if let lanes, measured.lanes < lanes.rawValue {
                let row = GateRow(key: key, path: c.path, measure: chosen.rawValue, baseline: "", now: "", change: "",
                                  verdict: "skipped (this processor runs the kernels at \(measured.lanes) lanes)", failed: false)
                rows.append(row); emit(row)
                continue
            }
            let old = base.cases[key]
            for row in compare(key: key, path: c.path, measured: measured, baseline: old, tolerance: tol) {
                rows.append(row); emit(row)
                if row.failed && !update { failed = true }
            }
            if update { base.cases[key] = measured }
        }
        if update {
            base.tolerance = tol
            try base.write(to: baseline)
            print("gate: wrote \(baseline)")
            return
        }
        if format == .github {
            print("::notice title=DynamicsKit performance gate::\(rows.filter(\.failed).count) of \(rows.count) cases failed (tolerance \(String(format: "%g", tol * 100))%, \(chosen.rawValue))")
        }
        print(failed ? "gate: FAILED" : "gate: passed")
        if failed { throw ExitCode(1) }
    }

    /// The profiles named, folders expanded (sorted by file name), each with its step count.
    func collectCases() throws -> [Case] {
        var out: [Case] = []
        for argument in profiles {
            var spec = argument, n = steps
            if let at = argument.lastIndex(of: "@"), let k = Int(argument[argument.index(after: at)...]) {
                guard k >= 1 else { throw ValidationError("\(argument): the steps after @ must be at least 1") }
                spec = String(argument[..<at]); n = k
            }
            var isFolder: ObjCBool = false
            let urls: [URL]
            if FileManager.default.fileExists(atPath: spec, isDirectory: &isFolder), isFolder.boolValue {
                // The baseline file may sit in the folder it measures.
                let baselinePath = URL(fileURLWithPath: baseline).standardizedFileURL.path
                urls = ProfileLocator.files(in: spec).map { URL(fileURLWithPath: spec).appendingPathComponent($0) }
                    .filter { $0.standardizedFileURL.path != baselinePath }
                guard !urls.isEmpty else { throw CommandFailure("\(spec): no profiles (.json files) in this folder") }
            } else {
                urls = [try ProfileLocator.url(for: spec, profiles: folder.profiles)]
            }
            for url in urls {
                let profile: Profile
                do { profile = try Profile(contentsOf: url) } catch { throw CommandFailure("\(error)") }
                out.append(Case(path: url.standardizedFileURL.path, name: profile.name, steps: n))
            }
        }
        return out
    }

    func caseKey(_ c: Case) -> String {
        var key = "\(c.name)@\(c.steps)"
        if let lanes { key += " \(lanes.rawValue) lanes" }
        if workers > 1 && measure != .instructions { key += " \(workers)w" }
        return key
    }

    func resolvedMethod() throws -> Method {
        switch method {
        case .auto:
            if Gate.onPath("valgrind") { return .callgrind }
            if Gate.perfCounts() { return .perf }
            return .time
        case .callgrind:
            guard Gate.onPath("valgrind") else { throw GateMeasureError(message: "--method callgrind: valgrind is not installed (Debian: apt-get install valgrind)") }
            return .callgrind
        case .perf:
            guard Gate.perfCounts() else { throw GateMeasureError(message: "--method perf: `perf stat -e instructions:u` does not count here (no perf, no hardware counters, or perf_event_paranoid forbids it)") }
            return .perf
        case .time:
            return .time
        }
    }

    static func onPath(_ program: String) -> Bool { which(program) != nil }

    /// Where `program` is on the PATH, if it is.
    static func which(_ program: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether `perf stat` counts user instructions where the gate runs (a virtual machine may expose no counters).
    static func perfCounts() -> Bool {
        guard onPath("perf"), let r = try? capture(["perf", "stat", "-x,", "-e", "instructions:u", "--", "/bin/true"]) else { return false }
        return r.status == 0 && perfInstructions(r.err) != nil
    }

    static func perfInstructions(_ text: String) -> Double? {
        for line in text.split(separator: "\n") where line.contains("instructions") {
            if let v = Double(line.split(separator: ",").first ?? "") { return v }
        }
        return nil
    }

    func ownExecutable() throws -> String {
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            throw CommandFailure("cannot find this program's own file (/proc/self/exe) to run the profiles")
        }
        return exe
    }

    /// `dynamics run` of a case, as arguments after the executable.
    func runArguments(_ c: Case, steps n: Int, workers w: Int) -> [String] {
        ["run", c.path, "--steps", String(n), "--workers", String(w), "--json"] + (lanes.map { ["--lanes", String($0.rawValue)] } ?? [])
    }

    func measureCase(_ c: Case, method: Method, executable exe: String) throws -> GateFigures {
        var f = GateFigures(method: method.rawValue)
        switch method {
        case .auto: preconditionFailure("resolved before")
        case .callgrind:
            if measure != .allocations {
                let r = try Gate.callgrind(exe, runArguments(c, steps: c.steps, workers: 1))
                f.instructionsPerStep = (r.instructions / Double(max(1, r.summary.steps))).rounded()
                f.lanes = r.summary.lanes
            }
            if measure != .instructions {
                // On several workers, pinned to them: a fall-back to the caller's thread (under valgrind, which runs
                // one thread at a time, the workers are slower than one thread) would switch paths at steps that
                // depend on the timing, and a path's lists grow the first time it runs.
                func count(_ n: Int) throws -> (Int, GateRunSummary) {
                    try Gate.dhatAllocations(exe, runArguments(c, steps: n, workers: workers) + (workers > 1 ? ["--pin-workers"] : []))
                }
                var (first, s1) = try count(c.steps)
                var (second, s2) = try count(2 * c.steps)
                // A run ends when everything rests, and steps it did not run would pass for steps without
                // allocations: a run that rests before step 2N is counted over steps M+1…2M instead, the last 2M
                // steps it runs (the same steps in every run, as the run is deterministic).
                if s2.steps < 2 * c.steps {
                    let rest = s2.steps, half = rest / 2
                    guard half >= 1 else {
                        throw GateMeasureError(message: "the scene comes to rest at step \(rest): no steps to count allocations over")
                    }
                    (first, s1) = try count(half)
                    (second, s2) = try count(2 * half)
                    f.restWindow = (rest, half)
                }
                f.lanes = s1.lanes
                f.steadyAllocations = second - first
            }
        case .perf:
            func counted(_ n: Int) throws -> (Double, GateRunSummary) {
                let r = try Gate.capture(["perf", "stat", "-x,", "-e", "instructions:u", "--", exe] + runArguments(c, steps: n, workers: 1))
                guard r.status == 0, let i = Gate.perfInstructions(r.err) else { throw GateMeasureError(message: "perf stat failed: \(r.err.split(separator: "\n").last ?? "")") }
                return (i, try GateRunSummary(r.out))
            }
            let (i1, s1) = try counted(c.steps), (i2, s2) = try counted(2 * c.steps)
            f.lanes = s1.lanes
            // The difference leaves out the set-up; a scene that came to rest before N steps is measured whole.
            f.instructionsPerStep = (s2.steps > s1.steps ? (i2 - i1) / Double(s2.steps - s1.steps) : i1 / Double(max(1, s1.steps))).rounded()
        case .time:
            var times: [Double] = []
            for _ in 0..<repetitions {
                let r = try Gate.capture([exe] + runArguments(c, steps: c.steps, workers: workers))
                guard r.status == 0 else { throw GateMeasureError(message: "dynamics run failed: \(r.err.split(separator: "\n").last ?? "")") }
                let s = try GateRunSummary(r.out)
                f.lanes = s.lanes
                times.append(1000 * s.wallSeconds / Double(max(1, s.steps)))
            }
            times.sort()
            let median = times[times.count / 2]
            f.msPerStep = median
            f.noise = median > 0 ? (times[times.count - 1] - times[0]) / median : 0
        }
        return f
    }

    /// The rows of one case: each figure against its baseline.
    func compare(key: String, path: String, measured: GateFigures, baseline old: GateFigures?, tolerance tol: Double) -> [GateRow] {
        var rows: [GateRow] = []
        /// `exact`: a count that may grow by `limit` at most (not a fraction).
        func row(_ what: String, _ now: Double, _ before: Double?, limit: Double, exact: Bool = false, format: (Double) -> String) {
            guard let before else {
                rows.append(GateRow(key: key, path: path, measure: what, baseline: "–", now: format(now), change: "",
                                    verdict: update ? "recorded" : "FAIL (no baseline: run with --update and commit \(baseline))", failed: !update))
                return
            }
            let change = before > 0 ? String(format: "%+.2f%%", (now / before - 1) * 100) : (now > before ? "+\(format(now - before))" : "+0")
            let worse = exact ? now > before + limit : now > before * (1 + limit)
            let better = !exact && now < before * (1 - limit)
            let verdict = worse ? (exact ? "FAIL (the steady steps allocate more)" : "FAIL (more than \(String(format: "%.3g", limit * 100))% above the baseline)")
                : better ? "ok (faster: consider --update)" : "ok"
            rows.append(GateRow(key: key, path: path, measure: what, baseline: format(before), now: format(now), change: change, verdict: verdict, failed: worse))
        }
        if old != nil && old!.method != measured.method {
            return [GateRow(key: key, path: path, measure: measured.method, baseline: old!.method, now: measured.method, change: "",
                            verdict: update ? "recorded" : "FAIL (the baseline was measured with \(old!.method); run with --update)", failed: !update)]
        }
        let whole: (Double) -> String = { String(format: "%.0f", $0) }
        if let i = measured.instructionsPerStep { row("instr/step", i, old?.instructionsPerStep, limit: tol, format: whole) }
        // Counted exactly (DHAT sees every allocation, on every thread): none more than the baseline is allowed.
        if let a = measured.steadyAllocations {
            // The window's steps, where the run rests before step 2N.
            let window = measured.restWindow.map { "allocs in \($0.half + 1)…\(2 * $0.half) (rests at \($0.rest))" } ?? "allocs in N+1…2N"
            row(window, Double(a), old?.steadyAllocations.map(Double.init), limit: 0, exact: true, format: { String(format: "%.0f", $0) })
        }
        if let t = measured.msPerStep {
            let band = max(tol, measured.noise ?? 0, old?.noise ?? 0)
            row("ms/step (noise \(String(format: "%.0f", (measured.noise ?? 0) * 100))%)", t, old?.msPerStep, limit: band, format: { String(format: "%.4f", $0) })
        }
        return rows
    }

    func emit(_ row: GateRow) {
        print("\(row.key.padding(toLength: 34, withPad: " ", startingAt: 0)) \(row.measure.padding(toLength: max(22, row.measure.count), withPad: " ", startingAt: 0)) "
              + "\(String(repeating: " ", count: max(0, 14 - row.baseline.count)))\(row.baseline) \(String(repeating: " ", count: max(0, 14 - row.now.count)))\(row.now) "
              + "\(String(repeating: " ", count: max(0, 9 - row.change.count)))\(row.change)  \(row.verdict)")
        if format == .github && row.failed {
            let relative = row.path.hasPrefix(FileManager.default.currentDirectoryPath + "/") ? String(row.path.dropFirst(FileManager.default.currentDirectoryPath.count + 1)) : row.path
            print("::error file=\(relative),title=Performance gate: \(row.key)::\(row.measure) \(row.baseline) → \(row.now) \(row.change): \(row.verdict)")
        }
    }

    /// Runs a program, its output into files (no pipe to fill); the exit status and both outputs.
    static func capture(_ arguments: [String]) throws -> (status: Int, out: String, err: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dynamics-gate-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path, err = dir.appendingPathComponent("err").path
        var argv = arguments
        if !argv[0].hasPrefix("/") {
            guard let found = which(argv[0]) else { throw GateMeasureError(message: "\(argv[0]) is not installed") }
            argv[0] = found
        }
        let status = SweepPool.spawnAndWait(argv, stdout: out, stderr: err)
        return (status, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "", (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    static let engineStep = "$s12DynamicsCore5WorldC4step2dt8substepsySf_SitKF"

    /// The frames whose allocations are the engine's: the step, and the world's pool threads (which run only the
    /// step's passes; under valgrind, which runs one thread at a time, the caller's thread takes nearly all of them).
    static let engineFrames = [engineStep, "dk_pool_helper"]

    /// `exe arguments` under valgrind with `options`, its output file (named by the `output` option) in a folder of
    /// its own: the run, and the file's contents if it wrote one. Throws if the run failed.
    static func underValgrind(_ options: [String], output: String, _ exe: String, _ arguments: [String]) throws -> ((status: Int, out: String, err: String), Data?) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dynamics-gate-vg-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("valgrind.out").path
        let r = try capture(["valgrind"] + options + ["\(output)=\(file)", exe] + arguments)
        guard r.status == 0 else {
            throw GateMeasureError(message: "valgrind \(options[0]) \(arguments.prefix(2).joined(separator: " ")) failed: \(r.err.split(separator: "\n").suffix(2).joined(separator: " "))")
        }
        return (r, FileManager.default.contents(atPath: file))
    }

    /// One `dynamics run` under valgrind's DHAT: the heap blocks allocated with World.step or a pool thread on the
    /// stack, on any thread. DHAT records every allocation with its whole stack, so the count is exact and the same
    /// in identical runs (callgrind's call graph attributes some of the Swift runtime's allocations differently from
    /// run to run when a step runs on two threads, and sees a thread's calls only while that thread is inside the
    /// step it toggles on).
    static func dhatAllocations(_ exe: String, _ arguments: [String]) throws -> (Int, GateRunSummary) {
        // Deep enough for any of the engine's stacks to reach the step or the pool thread's start.
        let (r, data) = try underValgrind(["--tool=dhat", "--num-callers=500"], output: "--dhat-out-file", exe, arguments)
        guard let data,
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let frames = root["ftbl"] as? [String], let points = root["pps"] as? [[String: Any]] else {
            throw GateMeasureError(message: "DHAT wrote no readable profile")
        }
        let engine = frames.map { frame in engineFrames.contains { frame.contains($0) } }
        var allocations = 0
        for point in points {
            guard let stack = point["fs"] as? [Int], let blocks = point["tbk"] as? Int else { continue }
            if stack.contains(where: { $0 >= 0 && $0 < engine.count && engine[$0] }) { allocations += blocks }
        }
        return (allocations, try GateRunSummary(r.out))
    }

    /// One `dynamics run` under callgrind, counting inside World.step only: its instructions.
    static func callgrind(_ exe: String, _ arguments: [String]) throws -> (instructions: Double, summary: GateRunSummary) {
        let (r, _) = try underValgrind(["--tool=callgrind", "--toggle-collect=\(engineStep)"], output: "--callgrind-out-file", exe, arguments)
        guard let collected = r.err.split(separator: "\n").first(where: { $0.contains("Collected :") }),
              let total = Double(collected.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") else {
            throw GateMeasureError(message: "callgrind reported no instruction count")
        }
        guard total > 0 else { throw GateMeasureError(message: "callgrind counted nothing in World.step: is this a release build?") }
        return (total, try GateRunSummary(r.out))
    }
}

struct GateMeasureError: Error { let message: String }

/// What `dynamics run --json` reports that the gate reads.
struct GateRunSummary {
    var steps: Int
    var lanes: Int
    var wallSeconds: Double

    init(_ output: String) throws {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let steps = object["steps"] as? Int, let lanes = object["lanes"] as? Int, let wall = object["wallSeconds"] as? Double else {
            throw GateMeasureError(message: "dynamics run printed no summary")
        }
        self.steps = steps; self.lanes = lanes; wallSeconds = wall
    }
}

/// One case's figures, as the baseline file keeps them.
struct GateFigures: Codable, Equatable {
    var method: String
    var instructionsPerStep: Double?
    /// Heap allocations made by World.step in steps N+1…2N (the steady state).
    var steadyAllocations: Int?
    var msPerStep: Double?
    var noise: Double?
    /// The lanes the run used (not stored).
    var lanes = 4
    /// Where a run rests before step 2N: the step it rests at, and the half window M whose steps M+1…2M were
    /// counted instead (not stored).
    var restWindow: (rest: Int, half: Int)?

    static func == (a: GateFigures, b: GateFigures) -> Bool {
        a.method == b.method && a.instructionsPerStep == b.instructionsPerStep && a.steadyAllocations == b.steadyAllocations
            && a.msPerStep == b.msPerStep && a.noise == b.noise && a.lanes == b.lanes
    }

    enum CodingKeys: String, CodingKey { case method, instructionsPerStep, steadyAllocations, msPerStep, noise }
    init(method: String) { self.method = method }
}

/// The baseline file: a figure set per case, the tolerance they were written with and a note.
struct GateBaseline: Codable {
    var note = "Figures of `dynamics gate`: per case (profile@steps, lanes, workers), instructions of World.step per step (callgrind on one worker, or perf), heap allocations of World.step in steps N+1…2N on any thread (DHAT), or the median wall-clock ms per step and its spread. Rewrite with `dynamics gate … --update` and say why in the commit."
    var tolerance = 0.03
    var cases: [String: GateFigures] = [:]

    init() {}

    /// Reads `path`; a missing file is an empty baseline unless `required`.
    init(path: String, required: Bool) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            if required { throw CommandFailure("--baseline \(path): no such file (create it with --update)") }
            self.init()
            return
        }
        do { self = try JSONDecoder().decode(GateBaseline.self, from: Data(contentsOf: URL(fileURLWithPath: path))) } catch {
            throw CommandFailure("--baseline \(path): not a baseline file of `dynamics gate` (\(error.localizedDescription))")
        }
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try DynamicsCLI.write(String(decoding: try encoder.encode(self), as: UTF8.self) + "\n", to: path, what: "baseline")
    }
}

struct GateRow {
    var key: String
    var path: String
    var measure: String
    var baseline: String
    var now: String
    var change: String
    var verdict: String
    var failed: Bool
}
