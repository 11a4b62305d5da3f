import ArgumentParser
import XCTest
@testable import DynamicsCLI

/// The command line: its help text against golden files, and its refusals as one clear line.
final class CLITests: XCTestCase {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    /// Compares with Golden/NAME.txt; `DYNAMICS_UPDATE_GOLDEN=1 swift test --filter CLITests` rewrites the files.
    func assertGolden(_ text: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let url = Self.golden.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["DYNAMICS_UPDATE_GOLDEN"] == "1" {
            try text.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        XCTAssertEqual(text, expected, "help of \(name) changed; review and update the golden file", file: file, line: line)
    }

    func test_helpText_matchesTheGoldenFiles() throws {
        try assertGolden(Dynamics.helpMessage(columns: 100), "dynamics")
        try assertGolden(Dynamics.helpMessage(for: Showcase.self, columns: 100), "showcase")
        try assertGolden(Dynamics.helpMessage(for: Run.self, columns: 100), "run")
        try assertGolden(Dynamics.helpMessage(for: DemoCommand.self, columns: 100), "demo")
        try assertGolden(Dynamics.helpMessage(for: List.self, columns: 100), "list")
        try assertGolden(Dynamics.helpMessage(for: Bench.self, columns: 100), "bench")
        try assertGolden(Dynamics.helpMessage(for: Scene.self, columns: 100), "scene")
        try assertGolden(Dynamics.helpMessage(for: Soak.self, columns: 100), "soak")
        try assertGolden(Dynamics.helpMessage(for: SweepRun.self, columns: 100), "sweep-run")
        try assertGolden(Dynamics.helpMessage(for: SweepMerge.self, columns: 100), "sweep-merge")
        try assertGolden(Dynamics.helpMessage(for: Gate.self, columns: 100), "gate")
        try assertGolden(Dynamics.helpMessage(for: Play.self, columns: 100), "play")
    }

    /// `dynamics play` hands its arguments, options included, to the sandbox package beside the sources.
    func test_playPassesItsArgumentsToTheSandbox() throws {
        let command = try Dynamics.parseAsRoot(["play", "rain-1000", "--port", "0", "--record", "/tmp/s"])
        let play = try XCTUnwrap(command as? Play)
        XCTAssertEqual(play.arguments, ["rain-1000", "--port", "0", "--record", "/tmp/s"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: Play.sandboxFolder.appendingPathComponent("Package.swift").path))
    }

    /// The message the command prints for a failure of `arguments`.
    func failure(_ arguments: [String]) -> String? {
        do {
            var command = try Dynamics.parseAsRoot(arguments)
            try command.run()
            return nil
        } catch {
            return Dynamics.message(for: error)
        }
    }

    func test_badArguments_failWithOneLineNamingTheProblem() throws {
        let cases: [([String], String)] = [
            (["run", "no-such-profile", "--profiles", Self.profiles], "no profile named 'no-such-profile'"),
            (["run", "/nonexistent/x.json"], "/nonexistent/x.json: no such file"),
            (["run", "falling-square", "--steps", "10", "--duration", "1"], "give --steps or --duration, not both"),
            (["run", "falling-square", "--steps", "0"], "--steps must be at least 1, got 0"),
            (["run", "falling-square", "--dt", "0"], "--dt must be between 0.00001 and 1 second, got 0.0"),
            (["run", "falling-square", "--dt", "1e-50"], "--dt must be between 0.00001 and 1 second, got 1e-50"),
            (["run", "falling-square", "--record", "out.txt"], "--record out.txt: the file must end in .csv or .jsonl"),
            (["run", "falling-square", "--at", "1"], "--at needs --svg"),
            (["demo", "no-such-demo"], "unknown demo 'no-such-demo'"),
            (["scene", "boxes", "10"], "The value 'boxes' is invalid for '<kind>'. Please provide one of 'rain', 'pyramid', 'joint_grid' or 'field_swarm'."),
            (["scene", "rain", "10", "--lanes", "5"], "The value '5' is invalid for '--lanes <lanes>'. Please provide one of '4', '8' or '16'."),
            (["run", "falling-square", "--steps", "-5"], "--steps must be at least 1, got -5"),
            (["run", "falling-square", "--duration", "-1"], "--duration must be a positive number of seconds, got -1.0"),
            (["soak", "--items", "-3"], "-3"),
            (["foo"], "unknown command 'foo'; the commands are: showcase, run, demo, list, bench, scene, soak, sweep, gate"),
            (["run", "falling-square", "--set", "behaviors"], "expected path=value, found 'behaviors'"),
            (["run", "falling-square", "--set", "behaviors[0]x=1"], "the field path 'behaviors[0]x' needs a '.' before 'x'"),
            (["run", "falling-square", "--set", "behaviors[5].magnitude=1"], "there is no element [5]"),
            (["sweep", "/nonexistent/s.json"], "/nonexistent/s.json: no such file"),
            (["sweep", "x.json", "--shard", "4/4"], "--shard 4/4: expected K/N with N at least 1 and K from 0 to N − 1"),
            (["sweep", "x.json", "--only", "2", "--resume"], "--only prints one run's line"),
            (["sweep", "x.json", "--jobs", "0"], "--jobs must be between 1 and 1024, got 0"),
            (["gate", "falling-square", "--baseline", "b.json", "--tolerance", "-1"], "--tolerance must be a percentage from 0 to 1000, got -1.0"),
            (["gate", "falling-square", "--baseline", "b.json", "--repetitions", "1"], "--repetitions must be between 3 and 100, got 1"),
            (["gate", "no-such-profile", "--baseline", "b.json", "--profiles", Self.profiles], "no profile named 'no-such-profile'"),
            (["run", "falling-square", "--html", "/nonexistent/dir/x.html"], "--html /nonexistent/dir/x.html: the folder /nonexistent/dir does not exist"),
            (["demo", "flick", "--record", "/nonexistent/dir/x.csv"], "--record /nonexistent/dir/x.csv: the folder /nonexistent/dir does not exist"),
            (["showcase", "--html", "/nonexistent/dir/x.html"], "the folder /nonexistent/dir does not exist"),
            (["run", "falling-square", "--steps", "60", "--svg", "/tmp/dynamics-cli-at.svg", "--at", "99"],
             "--at 99.0 s is after the end of the run (at most 1.000 s)"),
        ]
        for (arguments, expected) in cases {
            let message = try XCTUnwrap(failure(arguments), "\(arguments) did not fail")
            XCTAssertTrue(message.contains(expected), "\(arguments): \(message)")
            XCTAssertFalse(message.contains("\n"), "\(arguments): more than one line: \(message)")
        }
    }

    func test_finalState_listsEveryItemInProfileOrder() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("final-\(getpid()).csv")
        defer { try? FileManager.default.removeItem(at: out) }
        var command = try Dynamics.parseAsRoot(["run", "falling-square", "--profiles", Self.profiles, "--steps", "30", "--final", out.path])
        try command.run()
        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.first, "item,name,x,y,angle,vx,vy,angularVelocity,awake")
        XCTAssertEqual(lines.count, 2)
        let fields = lines[1].split(separator: ",")
        XCTAssertEqual(fields.count, 9)
        XCTAssertEqual(fields[0], "0")
        XCTAssertGreaterThan(Double(fields[6]) ?? 0, 100, "falling: vy after half a second")
        XCTAssertEqual(fields[8], "1")
        XCTAssertTrue(failure(["run", "falling-square", "--final", "x.txt"])?.contains("--final x.txt: the file must end in .csv or .jsonl") ?? false)
    }

    func test_aBadProfile_namesTheFileAndTheField() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cli-tests-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("broken.json")
        try #"{"name": "broken", "bounds": [100, 100], "timeStep": -1, "items": [], "behaviors": []}"#.write(to: file, atomically: true, encoding: .utf8)
        let message = try XCTUnwrap(failure(["run", file.path]))
        XCTAssertTrue(message.contains("broken.json") && message.contains("timeStep"), message)
    }

    static var profiles: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Profiles").path
    }

    func test_run_writesTheRecordingAndTheSummaryAsJSON() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cli-run-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let csv = dir.appendingPathComponent("r.csv").path, svg = dir.appendingPathComponent("r.svg").path
        var command = try Dynamics.parseAsRoot(["run", "falling-square", "--profiles", Self.profiles, "--steps", "30",
                                                "--record", csv, "--svg", svg, "--at", "0.2", "--every", "5", "--json"])
        try command.run()
        let text = try String(contentsOfFile: csv, encoding: .utf8)
        XCTAssertEqual(text.split(separator: "\n").filter { $0.hasPrefix("item,") }.count, 7)   // frames 0, 5, …, 30
        XCTAssertTrue(try String(contentsOfFile: svg, encoding: .utf8).contains("at t = 0.17 s"))
    }

    /// `--steps` is a maximum: a run that comes to rest sooner says so, and `--at` past the recording's end is
    /// refused rather than drawn at another time.
    func test_runThatComesToRest_saysStepsAreAMaximum() throws {
        var s = RunSummary(profile: "p", items: 1, steps: 119, maximumSteps: 240, pausedAt: 1.98)
        XCTAssertTrue(s.table().contains("119 (of at most 240: everything came to rest)"), s.table())
        s.pausedAt = nil; s.steps = 240
        XCTAssertFalse(s.table().contains("at most"), s.table())
        XCTAssertEqual(count(1, "item"), "1 item")
        XCTAssertEqual(count(2, "item"), "2 items")
        let message = try XCTUnwrap(failure(["run", "falling-square", "--profiles", Self.profiles, "--steps", "1000",
                                             "--svg", FileManager.default.temporaryDirectory.appendingPathComponent("at-\(getpid()).svg").path,
                                             "--at", "15"]))
        XCTAssertTrue(message.contains("--at 15.0 s is after the end of the recording at") && message.contains("at rest"), message)
    }

    func test_summaryJSON_parses() throws {
        var s = RunSummary(profile: "p \"q\"", items: 3, steps: 10, simulated: 0.5, wall: 0.01, awake: 2, contacts: 1,
                           pausedAt: nil, stages: [("solve", 0.25)])
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(s.json().utf8)) as? [String: Any])
        XCTAssertEqual(object["profile"] as? String, "p \"q\"")
        XCTAssertEqual(object["stepsPerSecond"] as? Double, 1000)
        XCTAssertTrue(object["pausedAtSeconds"] is NSNull)
        s.pausedAt = 0.5
        object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(s.json().utf8)) as? [String: Any])
        XCTAssertEqual(object["pausedAtSeconds"] as? Double, 0.5)
        XCTAssertEqual((object["stageMsPerStep"] as? [String: Double])?["solve"], 0.25)
        XCTAssertTrue(s.table().contains("paused at") && s.table().contains("solve ms/step"))
    }

    /// A short soak runs to the end with nothing non-finite and nothing out of the box (it throws otherwise).
    func test_shortSoak_keepsEveryItemFiniteAndInside() throws {
        var command = try Dynamics.parseAsRoot(["soak", "--items", "60", "--steps", "600", "--every", "600"])
        try command.run()
    }

    /// Mutations of a profile through `dynamics run` itself (parsing, checking, building, stepping, the summary):
    /// each ends in a summary or in one line naming the file, never a stop.
    func test_runOfMutatedProfiles_endsInASummaryOrOneLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dk-cli-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try String(contentsOfFile: Self.profiles + "/bouncy-fall.json", encoding: .utf8)
        var refused = 0, ran = 0
        // Every number of the file in turn, replaced by a hostile value.
        let numbers = try NSRegularExpression(pattern: "-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?")
        let matches = numbers.matches(in: source, range: NSRange(source.startIndex..., in: source))
        for (k, match) in matches.enumerated() {
            for hostile in ["1e30", "-1e30", "0", "-1", "1e-30", "1e300"] {
                let range = Range(match.range, in: source)!
                let text = source.replacingCharacters(in: range, with: hostile)
                let url = dir.appendingPathComponent("m\(k)-\(hostile).json")
                try text.write(to: url, atomically: true, encoding: .utf8)
                if let message = failure(["run", url.path, "--steps", "5"]) {
                    refused += 1
                    XCTAssertFalse(message.contains("\n"), "one line: \(message)")
                    XCTAssertTrue(message.contains(url.lastPathComponent) || message.contains("--"), "names the file: \(message)")
                } else {
                    ran += 1
                }
            }
        }
        XCTAssertGreaterThan(refused, 0)
        XCTAssertGreaterThan(ran, 0)
    }
}
