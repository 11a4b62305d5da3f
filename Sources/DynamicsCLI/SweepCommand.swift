import ArgumentParser
import DynamicsKit
import DynamicsProfiles
import DynamicsReplay
#if canImport(Glibc)
import Glibc
#endif

/// `dynamics sweep`: many runs of one profile with fields varied, on a pool of processes, in shards on a cluster,
/// and the merge of the shards' results.
struct SweepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Run a sweep: one profile many times with fields varied (see Profiles/README.md, \"Sweeps\").",
        subcommands: [SweepRun.self, SweepMerge.self],
        defaultSubcommand: SweepRun.self)
}

/// Runs a sweep, or one shard of it, or one run of it.
struct SweepRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a sweep file's runs on a pool of processes and write one JSON line per run.",
        discussion: """
        Each run is a process of its own (`--only`), so a run that fails is recorded with its message and the sweep \
        goes on. The results file is rewritten sorted by run at the end; a run's line is the same wherever and with \
        whatever else it ran. On a cluster, --shard K/N (or, by default, a Kubernetes Indexed Job's \
        JOB_COMPLETION_INDEX with JOB_COMPLETIONS, or a Slurm job array's SLURM_ARRAY_TASK_ID with \
        SLURM_ARRAY_TASK_COUNT) runs every N-th run from K; `dynamics sweep merge` joins the shards. Exit status: 0 \
        when the runs were carried out (failed runs included: they are results), 1 when the sweep cannot run.
        """)

    @Argument(help: "The sweep file (.json).")
    var spec: String
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Runs at once, each a process (default: the machine's cores).", valueName: "N"))
    var jobs: Int?
    @Option(name: .long, help: ArgumentHelp("The results file, one JSON line per run (default: NAME-results.jsonl, or NAME-shard-K-of-N.jsonl for a shard).", valueName: "file"))
    var out: String?
    @Option(name: .long, help: ArgumentHelp("Also write the results as CSV, one row per run.", valueName: "file"))
    var csv: String?
    @Option(name: .long, help: ArgumentHelp("Run shard K of N (K from 0): every N-th run from K (default: from the scheduler's environment, else all).", valueName: "K/N"))
    var shard: String?
    @Flag(name: .long, help: "Continue an interrupted sweep: keep the results file's runs and run only the others.")
    var resume = false
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Run only run K, in this process, and print its line (what each process of the pool does).", valueName: "K"))
    var only: Int?
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Threads each run's steps use; the runs themselves fill the cores.", valueName: "N"))
    var workers = 1
    @OptionGroup var folder: ProfilesFolder

    func validate() throws {
        if let n = jobs, !(1...1024).contains(n) { throw ValidationError("--jobs must be between 1 and 1024, got \(n)") }
        if !(1...WorkerPool.maximumWorkers).contains(workers) {
            throw ValidationError("--workers must be between 1 and \(WorkerPool.maximumWorkers), got \(workers)")
        }
        if let k = only, k < 0 { throw ValidationError("--only must be a run number from 0, got \(k)") }
        if only != nil && (out != nil || csv != nil || shard != nil || resume) {
            throw ValidationError("--only prints one run's line: it takes no --out, --csv, --shard or --resume")
        }
        if let shard { _ = try SweepRun.parseShard(shard, option: "--shard") }
    }

    func run() throws {
        let sweep = try SweepRun.load(spec, profiles: folder.profiles)
        if let k = only {
            guard k < sweep.runCount else { throw CommandFailure("--only \(k): the sweep has \(count(sweep.runCount, "run")) (0 to \(sweep.runCount - 1))") }
            print(sweep.run(k, workers: workers).line)
            return
        }
        let slice = try shard.map { try SweepRun.parseShard($0, option: "--shard") }
            ?? SweepRun.shardFromEnvironment(ProcessInfo.processInfo.environment)
        let outPath = out ?? (slice.map { "\(sweep.name)-shard-\($0.index)-of-\($0.count).jsonl" } ?? "\(sweep.name)-results.jsonl")
        try OutputOptions.checkWritable([("--out", outPath), ("--csv", csv)])
        var kept: [Int: String] = [:]
        if FileManager.default.fileExists(atPath: outPath) {
            guard resume else {
                throw CommandFailure("--out \(outPath) exists: give --resume to continue that sweep, or another --out")
            }
            kept = try SweepRun.readForResume(outPath, sweep: sweep)
        }
        let mine = Array(slice.map { sweep.runs(shard: $0.index, of: $0.count) } ?? sweep.runs(shard: 0, of: 1))
        let todo = mine.filter { kept[$0] == nil }
        let jobCount = min(jobs ?? WorkerPool.processorCount, max(1, todo.count))
        let sliceText = slice.map { ", shard \($0.index) of \($0.count)" } ?? ""
        fputs("sweep \(sweep.name): \(count(sweep.runCount, "run"))\(sliceText); \(todo.count) to run on \(count(jobCount, "process")) at once"
              + (kept.isEmpty ? "" : " (\(kept.count) kept from \(outPath))") + "\n", stderr)
        let clock = ContinuousClock()
        let start = clock.now
        let pool = try SweepPool(sweep: sweep, spec: URL(fileURLWithPath: spec).standardizedFileURL.path,
                                 profiles: folder.profiles, workers: workers, jobs: jobCount)
        let fresh = try pool.run(todo, appendingTo: outPath)
        let wall = (clock.now - start) / .seconds(1)
        for (r, line) in fresh { kept[r] = line }
        let lines = kept.sorted { $0.key < $1.key }.map(\.value)
        try write(lines.map { $0 + "\n" }.joined(), to: outPath, what: "results")
        let records = try lines.enumerated().map { try SweepRecord(line: $1, file: outPath, lineNumber: $0 + 1) }
        print(SweepSummary(records: records, metrics: sweep.metrics).table())
        print(String(format: "ran %d runs in %.2f s (%.2f runs/s) on %@; wrote %@", fresh.count, wall,
                     wall > 0 ? Double(fresh.count) / wall : 0, count(jobCount, "process"), outPath))
        if let csv {
            try write(SweepSummary.csv(records, metrics: sweep.metrics), to: csv, what: "CSV")
            print("wrote \(csv)")
        }
    }

    /// Reads a sweep file, its profile found by name in the profiles folder or by path beside the sweep.
    static func load(_ path: String, profiles: String?) throws -> SweepSpec {
        let url = URL(fileURLWithPath: path)
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("\(path): no such file") }
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw CommandFailure("\(path): cannot be read: \(error.localizedDescription)")
        }
        let folder = url.deletingLastPathComponent()
        do {
            return try SweepSpec(json: text, file: url.lastPathComponent) { name in
                if name.hasSuffix(".json") || name.contains("/") {
                    let target = name.hasPrefix("/") ? URL(fileURLWithPath: name) : folder.appendingPathComponent(name)
                    guard FileManager.default.fileExists(atPath: target.path) else { throw CommandFailure("\(target.path): no such file") }
                    return target
                }
                return try ProfileLocator.url(for: name, profiles: profiles)
            }
        } catch let e as ProfileError {
            throw CommandFailure("\(e)")
        }
    }

    /// `K/N` with 0 ≤ K < N.
    static func parseShard(_ text: String, option: String) throws -> (index: Int, count: Int) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, k >= 0, k < n else {
            throw ValidationError("\(option) \(text): expected K/N with N at least 1 and K from 0 to N − 1")
        }
        return (k, n)
    }

    /// The shard a cluster scheduler gave this process, if any: a Kubernetes Indexed Job's pod (its completion
    /// index, and the completions, which the Job passes in JOB_COMPLETIONS), or a task of a Slurm job array.
    static func shardFromEnvironment(_ env: [String: String]) throws -> (index: Int, count: Int)? {
        func number(_ name: String) throws -> Int? {
            guard let text = env[name] else { return nil }
            guard let n = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw CommandFailure("\(name)=\(text) in the environment is not a whole number")
            }
            return n
        }
        if let index = try number("JOB_COMPLETION_INDEX") {
            guard let total = try number("JOB_COMPLETIONS") else {
                throw CommandFailure("JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but JOB_COMPLETIONS is not: set it in the Job's env to its completions (deploy/kubernetes-sweep-job.yaml does), or give --shard K/N")
            }
            return try checked(index, total, "JOB_COMPLETION_INDEX=\(index) with JOB_COMPLETIONS=\(total)")
        }
        if let task = try number("SLURM_ARRAY_TASK_ID") {
            guard let total = try number("SLURM_ARRAY_TASK_COUNT") else {
                throw CommandFailure("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; give --shard K/N")
            }
            let first = try number("SLURM_ARRAY_TASK_MIN") ?? 0
            let step = try number("SLURM_ARRAY_TASK_STEP") ?? 1
            guard step >= 1, (task - first) % step == 0 else {
                throw CommandFailure("SLURM_ARRAY_TASK_ID=\(task) is not on the array's steps (from \(first) by \(step)); give --shard K/N")
            }
            return try checked((task - first) / step, total, "SLURM_ARRAY_TASK_ID=\(task) (array from \(first) by \(step), \(total) tasks)")
        }
        return nil
    }

    private static func checked(_ index: Int, _ total: Int, _ what: String) throws -> (index: Int, count: Int) {
        guard total >= 1, index >= 0, index < total else { throw CommandFailure("\(what): not a shard from 0 to the count − 1") }
        return (index, total)
    }

    /// The runs already in a results file, by run, checked against the sweep: same run count, same parameters.
    /// A last line cut short (the sweep was stopped while writing it) is dropped.
    static func readForResume(_ path: String, sweep: SweepSpec) throws -> [Int: String] {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw CommandFailure("--out \(path): cannot be read: \(error.localizedDescription)")
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() } else if !lines.isEmpty && !text.hasSuffix("\n") { lines.removeLast() }
        var kept: [Int: String] = [:]
        for (k, line) in lines.enumerated() where !line.isEmpty {
            let record: SweepRecord
            do { record = try SweepRecord(line: line, file: path, lineNumber: k + 1) } catch {
                throw CommandFailure("cannot resume from \(path): \(error)")
            }
            guard record.runs == sweep.runCount else {
                throw CommandFailure("cannot resume from \(path): line \(k + 1) is from a sweep of \(record.runs) runs; this one has \(sweep.runCount)")
            }
            let expected = sweep.overrides(run: record.run).map { ($0.path, $0.valueText) }
            guard expected.elementsEqual(record.parameterTexts, by: { $0 == $1 }) else {
                throw CommandFailure("cannot resume from \(path): run \(record.run) there had other parameters; the sweep file changed")
            }
            kept[record.run] = line
        }
        return kept
    }
}

/// Joins the results files of a sweep's shards.
struct SweepMerge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Join the results files of a sweep's shards into one, sorted by run.",
        discussion: """
        Refuses a run that appears twice and files from different sweeps. Exit status: 0 when every run of the sweep \
        is there, 3 when some are missing (the merged file is written and the missing runs are listed), 1 when the \
        files cannot be merged.
        """)

    @Argument(help: "The shards' results files.")
    var files: [String]
    @Option(name: .long, help: ArgumentHelp("The merged results file.", valueName: "file"))
    var out: String
    @Option(name: .long, help: ArgumentHelp("Also write the merged results as CSV.", valueName: "file"))
    var csv: String?

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one results file") }
    }

    func run() throws {
        try OutputOptions.checkWritable([("--out", out), ("--csv", csv)])
        var byRun: [Int: (line: String, record: SweepRecord, place: String)] = [:]
        var total: (runs: Int, place: String)?
        for file in files {
            let text: String
            do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
                throw CommandFailure("\(file): cannot be read: \(error.localizedDescription)")
            }
            for (k, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
                let place = "\(file):\(k + 1)"
                let record: SweepRecord
                do { record = try SweepRecord(line: String(line), file: file, lineNumber: k + 1) } catch { throw CommandFailure("\(error)") }
                if let total, total.runs != record.runs {
                    throw CommandFailure("\(place) is from a sweep of \(record.runs) runs, \(total.place) from one of \(total.runs): not the same sweep")
                }
                total = total ?? (record.runs, place)
                if let other = byRun[record.run] {
                    throw CommandFailure("run \(record.run) appears twice: \(other.place) and \(place)")
                }
                byRun[record.run] = (String(line), record, place)
            }
        }
        guard let total else { throw CommandFailure("the files hold no runs") }
        let sorted = byRun.sorted { $0.key < $1.key }
        try write(sorted.map { $0.value.line + "\n" }.joined(), to: out, what: "merged results")
        let records = sorted.map(\.value.record)
        print(SweepSummary(records: records, metrics: nil).table())
        print("wrote \(out): \(count(records.count, "run")) of \(total.runs) from \(count(files.count, "file"))")
        if let csv {
            try write(SweepSummary.csv(records, metrics: nil), to: csv, what: "CSV")
            print("wrote \(csv)")
        }
        let missing = (0..<total.runs).filter { byRun[$0] == nil }
        if !missing.isEmpty {
            let shown = missing.prefix(20).map(String.init).joined(separator: ", ")
            fputs("missing \(missing.count) of \(total.runs) runs: \(shown)\(missing.count > 20 ? ", …" : "")\n", stderr)
            throw ExitCode(3)
        }
    }
}

/// The runs of a sweep, each a process of this executable (`dynamics sweep run SPEC --only K`), at most `jobs` at
/// once. Each finished run's line is appended to the results file as it arrives, so an interrupted sweep keeps what
/// it did.
final class SweepPool {
    let sweep: SweepSpec
    let spec: String
    let profiles: String?
    let workers: Int
    let jobs: Int
    let executable: String
    let scratch: String

    init(sweep: SweepSpec, spec: String, profiles: String?, workers: Int, jobs: Int) throws {
        self.sweep = sweep
        self.spec = spec
        self.profiles = profiles.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        self.workers = workers
        self.jobs = jobs
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            throw CommandFailure("cannot find this program's own file (/proc/self/exe) to start the runs' processes")
        }
        executable = exe
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dynamics-sweep-\(getpid())").path
    }

    /// Runs `runs`; returns each run's line.
    func run(_ runs: [Int], appendingTo path: String) throws -> [(Int, String)] {
        guard !runs.isEmpty else { return [] }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        guard let output = FileHandle(forWritingAtPath: path) ?? {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            return FileHandle(forWritingAtPath: path)
        }() else { throw CommandFailure("--out \(path): cannot be opened for writing") }
        defer { try? output.close() }
        output.seekToEndOfFile()
        let shared = Shared(runs: runs, output: output)
        let finished = DispatchGroup()
        for slot in 0..<jobs {
            finished.enter()
            let thread = Thread { [self] in
                defer { finished.leave() }
                while let r = shared.take() { shared.finish(r, self.runProcess(r, slot: slot)) }
            }
            thread.start()
        }
        finished.wait()
        return shared.done
    }

    /// What the pool's threads share, behind one lock: the next run to hand out, the finished runs, the results
    /// file and the progress bar.
    private final class Shared: @unchecked Sendable {
        let lock = NSLock()
        let runs: [Int]
        let output: FileHandle
        var next = 0, failures = 0
        var done: [(Int, String)] = []
        var progress: Progress
        let clock = ContinuousClock()
        let start = ContinuousClock().now

        init(runs: [Int], output: FileHandle) {
            self.runs = runs
            self.output = output
            progress = Progress(total: runs.count, unit: "runs")
        }

        func take() -> Int? {
            lock.lock(); defer { lock.unlock() }
            guard next < runs.count else { return nil }
            next += 1
            return runs[next - 1]
        }

        func finish(_ r: Int, _ line: String) {
            lock.lock(); defer { lock.unlock() }
            output.write(Data((line + "\n").utf8))
            done.append((r, line))
            if line.contains("\"status\":\"failed\"") { failures += 1 }
            let seconds = (clock.now - start) / .seconds(1)
            progress.update(done.count, note: (failures > 0 ? ", \(failures) failed" : "")
                                + (seconds > 0 ? String(format: ", %.1f runs/s", Double(done.count) / seconds) : ""))
        }
    }

    /// Runs `r` in a process of its own and returns its line, or a failed run's line saying how the process ended.
    func runProcess(_ r: Int, slot: Int) -> String {
        var arguments = [executable, "sweep", "run", spec, "--only", String(r), "--workers", String(workers)]
        if let profiles { arguments += ["--profiles", profiles] }
        let outFile = "\(scratch)/\(slot).out", errFile = "\(scratch)/\(slot).err"
        let status = SweepPool.spawnAndWait(arguments, stdout: outFile, stderr: errFile)
        let out = (try? String(contentsOfFile: outFile, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: errFile, encoding: .utf8)) ?? ""
        let lines = out.split(separator: "\n")
        if status == 0, lines.count == 1, let record = try? SweepRecord(line: String(lines[0]), file: "run \(r)", lineNumber: 1), record.run == r {
            return String(lines[0])
        }
        let how: String
        switch status {
        case .min..<0: how = "its process could not be started (error \(-status))"
        case 0..<256: how = "its process exited with status \(status) without a result"
        default: how = "its process was ended by signal \(status - 256)"
        }
        let detail = err.split(separator: "\n").last.map { ": " + $0 } ?? ""
        return sweep.failedRecord(run: r, message: how + detail).line
    }

    /// Starts `arguments` with standard output and error into files and waits: its exit status, 256 + the signal
    /// that ended it, or −errno when it could not start.
    static func spawnAndWait(_ arguments: [String], stdout: String, stderr: String) -> Int {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let started = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        guard started == 0 else { return -Int(started) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? Int((status >> 8) & 0xff) : 256 + Int(signal)
    }
}

/// The summary table of a sweep's records (each metric's mean, least, median and greatest over the runs that
/// succeeded) and their CSV.
struct SweepSummary {
    let records: [SweepRecord]
    let metrics: [SweepMetric]

    /// `metrics`: the sweep's, or nil to take them from the records.
    init(records: [SweepRecord], metrics: [SweepMetric]?) {
        self.records = records
        self.metrics = metrics ?? SweepSummary.metrics(of: records)
    }

    static func metrics(of records: [SweepRecord]) -> [SweepMetric] {
        var seen: [SweepMetric] = []
        for r in records { for (m, _) in r.metrics where !seen.contains(m) { seen.append(m) } }
        return seen
    }

    func table() -> String {
        let failed = records.filter(\.failed)
        var lines = ["runs: \(records.count) (\(records.count - failed.count) ok, \(failed.count) failed)"]
        let header = ["metric", "runs", "mean", "min", "median", "max"]
        var rows: [[String]] = []
        for m in metrics {
            let values = records.compactMap { r in r.metrics.first { $0.0 == m }?.1 }.sorted()
            guard !values.isEmpty else { rows.append([m.rawValue, "0", "-", "-", "-", "-"]); continue }
            let mean = values.reduce(0, +) / Double(values.count)
            let median = values.count % 2 == 1 ? values[values.count / 2] : (values[values.count / 2 - 1] + values[values.count / 2]) / 2
            rows.append([m.rawValue, "\(values.count)"] + [mean, values[0], median, values[values.count - 1]].map { String(format: "%.4g", $0) })
        }
        let widths = (0..<header.count).map { c in ([header] + rows).map { $0[c].count }.max() ?? 0 }
        for row in [header] + rows {
            lines.append(zip(row, widths).enumerated().map { c, cell in
                c == 0 ? cell.0.padding(toLength: cell.1, withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: cell.1 - cell.0.count) + cell.0
            }.joined(separator: "  "))
        }
        for r in failed.prefix(5) {
            if case let .failed(message) = r.outcome { lines.append("run \(r.run) failed: \(message)") }
        }
        if failed.count > 5 { lines.append("… and \(failed.count - 5) more failed runs (see the results file)") }
        return lines.joined(separator: "\n")
    }

    static func csv(_ records: [SweepRecord], metrics: [SweepMetric]?) -> String {
        let metrics = metrics ?? SweepSummary.metrics(of: records)
        var paths: [String] = []
        for r in records { for (p, _) in r.parameterTexts where !paths.contains(p) { paths.append(p) } }
        var out = (["run", "status"] + paths + metrics.map(\.rawValue) + ["error"]).map(csvField).joined(separator: ",") + "\n"
        for r in records {
            let params = Dictionary(r.parameterTexts, uniquingKeysWith: { a, _ in a })
            let values = Dictionary(r.metrics.map { ($0.0, $0.1) }, uniquingKeysWith: { a, _ in a })
            var row = ["\(r.run)", r.failed ? "failed" : "ok"]
            row += paths.map { params[$0] ?? "" }
            row += metrics.map { m in values[m].flatMap { $0 }.map { "\($0)" } ?? "" }
            if case let .failed(message) = r.outcome { row.append(message) } else { row.append("") }
            out += row.map(csvField).joined(separator: ",") + "\n"
        }
        return out
    }
}
