import ArgumentParser
import DynamicsDemos
import DynamicsKit
import DynamicsProfiles
import DynamicsReplay
#if canImport(Glibc)
import Glibc
#endif

/// The `dynamics` command: run the showcase, a profile, a demo or a benchmark scene headless, record and replay.
public struct Dynamics: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "dynamics",
        abstract: "UIKit Dynamics for Swift on Linux: run, record and replay simulations headless.",
        discussion: """
        With no arguments, runs the built-in showcase: every demo, one line each, and writes the replay page \
        dynamics-showcase.html in the current directory.
        """,
        subcommands: [Showcase.self, Run.self, DemoCommand.self, List.self, Bench.self, Scene.self, Soak.self, SweepCommand.self, Gate.self, Play.self],
        defaultSubcommand: Showcase.self
    )
    public init() {}

    /// The names of the subcommands, for the message about a word that is none of them.
    static var commandNames: [String] {
        configuration.subcommands.map { $0.configuration.commandName ?? $0._commandName }
    }

    /// The refusal of a first argument that is neither an option nor a command (`dynamics foo`), which would
    /// otherwise reach the default command and be reported against its usage.
    static func unknownCommand(_ arguments: [String]) -> ValidationError? {
        guard let first = arguments.first, !first.hasPrefix("-"), !commandNames.contains(first), first != "help" else { return nil }
        return ValidationError("unknown command '\(first)'; the commands are: \(commandNames.joined(separator: ", ")) (see `dynamics --help`)")
    }

    /// The entry point of the `dynamics` executable: refuses an unknown command against the root usage, then runs
    /// ArgumentParser's `main`.
    public static func runFromCommandLine() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let error = unknownCommand(arguments) { exit(withError: error) }
        main(arguments)
    }
}

/// "1 item", "2 items" ("1 process", "2 processes").
func count(_ n: Int, _ noun: String) -> String {
    n == 1 ? "\(n) \(noun)" : "\(n) \(noun)\(noun.hasSuffix("s") ? "es" : "s")"
}


/// A failure met while running a command (a bad profile, an unwritable output), as opposed to a mistake in the
/// arguments: the command prints it as one line and exits 1, without the usage text argument errors get.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Writes text to a file, or fails with one line naming it.
func write(_ text: String, to path: String, what: String) throws {
    do { try text.write(toFile: path, atomically: true, encoding: .utf8) } catch {
        throw CommandFailure("cannot write the \(what) to \(path): \(error.localizedDescription)")
    }
}

/// The output options shared by `run` and `demo`: a recording, a replay page, an SVG snapshot.
struct OutputOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Write the recording as CSV or JSON lines (by extension: .csv, .jsonl).", valueName: "file"))
    var record: String?
    @Option(name: .long, help: ArgumentHelp("Write the self-contained HTML replay page.", valueName: "file"))
    var html: String?
    @Option(name: .long, help: ArgumentHelp("Write an SVG snapshot (of the time given by --at).", valueName: "file"))
    var svg: String?
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Simulated time of the SVG snapshot, seconds (default: the end).", valueName: "seconds"))
    var at: Double?
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Record a frame every K steps.", valueName: "K"))
    var every = 1

    var wantsRecording: Bool { record != nil || html != nil || svg != nil }

    /// Refuses, before anything runs, an output whose folder does not exist or cannot be written.
    func checkWritable() throws { try Self.checkWritable([("--record", record), ("--html", html), ("--svg", svg)]) }

    /// Refuses, before anything runs, an output (option, path) whose folder does not exist or cannot be written.
    static func checkWritable(_ outputs: [(option: String, path: String?)]) throws {
        for (option, path) in outputs {
            guard let path else { continue }
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw CommandFailure("\(option) \(path): the folder \(folder) does not exist")
            }
            guard FileManager.default.isWritableFile(atPath: folder) else {
                throw CommandFailure("\(option) \(path): the folder \(folder) is not writable")
            }
        }
    }

    /// Refuses, before anything runs, an `--at` later than the run can reach (`duration`: its longest simulated time).
    func checkSnapshotTime(within duration: Double) throws {
        if let t = at, t > duration + 1e-9 {
            throw CommandFailure("--at \(t) s is after the end of the run (at most \(String(format: "%.3f", duration)) s)")
        }
    }

    func validate() throws {
        if let r = record, !(r.hasSuffix(".csv") || r.hasSuffix(".jsonl")) {
            throw ValidationError("--record \(r): the file must end in .csv or .jsonl")
        }
        if at != nil && svg == nil { throw ValidationError("--at needs --svg") }
        if let t = at, !(t.isFinite && t >= 0) { throw ValidationError("--at must be a time of at least 0 s, got \(t)") }
        guard every >= 1 else { throw ValidationError("--every must be at least 1, got \(every)") }
    }

    /// Writes what was asked for and says where.
    func write(_ recordings: [Recording], title: String) throws {
        guard let first = recordings.first else { return }
        // A run that ends early (everything at rest) may end before --at: say so rather than draw another time.
        if let t = at, let end = first.times.last, t > end + 1e-9 {
            throw CommandFailure("--at \(t) s is after the end of the recording at \(String(format: "%.3f", end)) s (the run ended there, at rest)")
        }
        if let r = record {
            try DynamicsCLI.write(r.hasSuffix(".csv") ? first.csv() : first.jsonLines(), to: r, what: "recording")
            print("wrote \(r) (\(count(first.frameCount, "frame")) of \(count(first.items.count, "item")))")
        }
        if let h = html {
            try DynamicsCLI.write(ReplayPage.html(recordings, title: title), to: h, what: "replay page")
            print("wrote \(h) (open it in a browser)")
        }
        if let s = svg {
            let t = at ?? first.times.last ?? 0
            try DynamicsCLI.write(first.svg(at: t), to: s, what: "SVG snapshot")
            print("wrote \(s) (t = \(String(format: "%.2f", first.times[first.frame(at: t)])) s)")
        }
    }
}

/// Runs every built-in demo headless, prints one line per demo and writes the replay page.
struct Showcase: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run every built-in demo headless, report each outcome and write the replay page (the default).")

    @Option(name: .long, help: ArgumentHelp("Where to write the replay page.", valueName: "file"))
    var html = "dynamics-showcase.html"
    /// A first word that is no command lands here (this is the default command): refused in `validate`.
    @Argument(help: .hidden)
    var unknown: [String] = []

    func validate() throws {
        if let error = Dynamics.unknownCommand(unknown) { throw error }
        if !unknown.isEmpty { throw ValidationError("unexpected argument '\(unknown[0])'") }
    }

    func run() throws {
        try OutputOptions.checkWritable([("--html", html)])
        print("DynamicsKit showcase (headless, 60 Hz, 4 substeps)")
        var failures = 0
        var recordings: [Recording] = []
        for demo in Demo.all {
            let clock = ContinuousClock()
            let start = clock.now
            let (result, recorded) = demo.run(recordEvery: 2)
            let ms = (clock.now - start) / .milliseconds(1)
            recordings += recorded
            if !result.ok { failures += 1 }
            print("\(result.ok ? "ok  " : "FAIL") \(demo.name.padding(toLength: 20, withPad: " ", startingAt: 0)) \(result.summary) [\(String(format: "%.0f", ms)) ms]")
        }
        try write(ReplayPage.html(recordings, title: "DynamicsKit showcase"), to: html, what: "replay page")
        print("replay page: \(html) (\(recordings.count) recordings; open it in a browser)")
        if failures > 0 { throw ExitCode(1) }
    }
}

/// Runs one demo, optionally recording it.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Run one built-in demo (see `dynamics list`).")

    @Argument(help: "The demo's name, e.g. falling-square.")
    var name: String
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard Demo.named(name) != nil else {
            throw ValidationError("unknown demo '\(name)'; the demos are: \(Demo.all.map(\.name).joined(separator: ", "))")
        }
    }

    func run() throws {
        let demo = Demo.named(name)!
        try output.checkWritable()
        let (result, recordings) = demo.run(recordEvery: output.wantsRecording ? output.every : nil)
        print("\(result.ok ? "ok  " : "FAIL") \(demo.name): \(result.summary)")
        try output.write(recordings, title: "DynamicsKit demo: \(demo.name)")
        if !result.ok { throw ExitCode(1) }
    }
}

/// Lists the profiles and demos.
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the workload profiles and the demos, one line each.")

    @OptionGroup var folder: ProfilesFolder
    var profiles: String? { folder.profiles }

    func run() throws {
        let dir = try ProfileLocator.directory(profiles)
        print("Profiles (\(dir)):")
        for file in ProfileLocator.files(in: dir) {
            let name = String(file.dropLast(5))
            do {
                let p = try Profile(contentsOf: URL(fileURLWithPath: dir + "/" + file))
                print("  \(name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(p.items.count) items, \(p.steps) steps. \(p.summary)")
            } catch {
                print("  \(name.padding(toLength: 22, withPad: " ", startingAt: 0)) (does not load: \(error))")
            }
        }
        print("Demos:")
        for demo in Demo.all { print("  \(demo.name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(demo.summary)") }
    }
}

/// Where to find profiles by name.
struct ProfilesFolder: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The profiles folder (default: ./Profiles, else the one beside the build).", valueName: "dir"))
    var profiles: String?
}

/// Finds profiles by name or path.
enum ProfileLocator {
    /// The folder to read: the one given, else ./Profiles, else the repository's (beside the build products).
    static func directory(_ given: String?) throws -> String {
        let fm = FileManager.default
        if let given {
            guard fm.fileExists(atPath: given) else { throw ValidationError("--profiles \(given): no such folder") }
            return given
        }
        if fm.fileExists(atPath: "Profiles") { return "Profiles" }
        // .build/<triple>/<configuration>/dynamics → the package root.
        if let exe = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var url = URL(fileURLWithPath: exe)
            for _ in 0..<4 { url.deleteLastPathComponent() }
            let candidate = url.appendingPathComponent("Profiles").path
            if fm.fileExists(atPath: candidate) { return candidate }
        }
        throw ValidationError("no Profiles folder here or beside the build; give one with --profiles")
    }

    static func files(in dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
            .filter { $0.hasSuffix(".json") && $0 != "baselines.json" }.sorted()
    }

    /// A path to a .json file, or a profile name in the profiles folder.
    static func url(for argument: String, profiles: String?) throws -> URL {
        if argument.hasSuffix(".json") || argument.contains("/") {
            guard FileManager.default.fileExists(atPath: argument) else { throw ValidationError("\(argument): no such file") }
            return URL(fileURLWithPath: argument)
        }
        let dir = try directory(profiles)
        let path = dir + "/" + argument + ".json"
        guard FileManager.default.fileExists(atPath: path) else {
            let names = files(in: dir).map { String($0.dropLast(5)) }
            throw ValidationError("no profile named '\(argument)' in \(dir); the profiles are: \(names.joined(separator: ", "))")
        }
        return URL(fileURLWithPath: path)
    }

    static func load(_ argument: String, profiles: String?, seed: UInt32? = nil, overrides: [ProfileOverride] = []) throws -> Profile {
        let url = try url(for: argument, profiles: profiles)
        do { return try Profile(contentsOf: url, seed: seed, overrides: overrides) } catch let e as ProfileError {
            throw CommandFailure("\(e)")
        }
    }
}
