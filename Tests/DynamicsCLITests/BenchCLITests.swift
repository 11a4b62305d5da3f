import XCTest

/// `dynamics bench` through the built binary: every step is timed, also after the scene comes to rest, as the
/// benchmark suite times them; repetitions and JSON for scripts.
final class BenchCLITests: XCTestCase {
    func test_bench_timesEveryStep_withRepetitions_asJSON() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-cli-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // A box dropped a few points onto the floor: at rest within a second.
        try """
        { "name": "settles", "bounds": [100, 100], "steps": 30,
          "items": [{ "id": "box", "center": [50, 85], "size": [10, 10] }],
          "behaviors": [ { "kind": "gravity", "items": "all" }, { "kind": "collision", "items": "all", "referenceBounds": true } ] }
        """.write(to: folder.appendingPathComponent("settles.json"), atomically: true, encoding: .utf8)
        let run = try runProgram([dynamicsBinary, "run", "settles.json", "--steps", "300", "--json"], in: folder)
        XCTAssertTrue(run.out.contains("\"pausedAtSeconds\":"), run.out)
        XCTAssertFalse(run.out.contains("\"steps\":300"), "the run should stop at rest: \(run.out)")

        let bench = try runProgram([dynamicsBinary, "bench", "settles.json", "--steps", "300", "--repetitions", "3", "--json"], in: folder)
        XCTAssertEqual(bench.status, 0, bench.err)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bench.out.utf8)) as? [String: Any])
        XCTAssertEqual(object["steps"] as? Int, 300, "bench times every step asked for")
        XCTAssertEqual(object["repetitions"] as? Int, 3)
        XCTAssertEqual(object["awakeItems"] as? Int, 0)
        let median = try XCTUnwrap(object["medianMsPerStep"] as? Double), least = try XCTUnwrap(object["minMsPerStep"] as? Double)
        XCTAssertTrue(least > 0 && least <= median, "\(object)")
    }

    /// `dynamics scene --ensemble` runs moved copies, one line each, then the spread of the sleep step and the figure.
    func test_sceneEnsemble_printsEachCopyAndTheSpread() throws {
        let folder = FileManager.default.temporaryDirectory
        let run = try runProgram([dynamicsBinary, "scene", "pyramid", "4", "--ensemble", "3", "--steps", "120", "--workers", "1"], in: folder)
        XCTAssertEqual(run.status, 0, run.err)
        let lines = run.out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2 + 3 + 2, run.out)
        XCTAssertTrue(lines[0].hasPrefix("scene pyramid/4: 10 items, 3 copies with centers moved by up to 0.001 pt, 120 steps"), lines[0])
        XCTAssertEqual(lines[1], "seed  asleep_at  top_dy  outside  ms_per_step")
        for (k, line) in lines[2..<5].enumerated() {
            let fields = line.split(separator: " ")
            XCTAssertEqual(fields.first, Substring(String(k + 1)), line)
            XCTAssertNotNil(Int(fields[1]), "a four-row pyramid rests within two seconds: \(line)")
        }
        XCTAssertTrue(lines[5].hasPrefix("asleep_at min ") && lines[5].hasSuffix("never 0 of 3"), lines[5])
        XCTAssertTrue(lines[6].hasPrefix("top_dy min "), lines[6])
        let bad = try runProgram([dynamicsBinary, "scene", "rain", "10", "--ensemble", "0"], in: folder)
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.err.contains("ensemble must be at least 1, got 0"), bad.err)
        let both = try runProgram([dynamicsBinary, "scene", "rain", "10", "--ensemble", "2", "--settling"], in: folder)
        XCTAssertNotEqual(both.status, 0)
        XCTAssertTrue(both.err.contains("--ensemble prints one line per copy"), both.err)
        // One moved copy can be traced step by step: its settling lines come before its own line.
        let traced = try runProgram([dynamicsBinary, "scene", "pyramid", "4", "--ensemble", "1", "--jitter", "0.5", "--steps", "120",
                                     "--workers", "1", "--settling"], in: folder)
        XCTAssertEqual(traced.status, 0, traced.err)
        let tracedLines = traced.out.split(separator: "\n").map(String.init)
        XCTAssertTrue(tracedLines.contains("step  awake  ready  peak_pt_s  peak_deg_s  fastest     at_x     at_y"), traced.out)
        XCTAssertTrue(tracedLines.contains { $0.hasPrefix("   1     10 ") }, traced.out)
        // Each step's line names the fastest item (an index among the scene's bodies) and its center.
        let first = try XCTUnwrap(tracedLines.first { $0.hasPrefix("   1     10 ") }).split(separator: " ")
        XCTAssertEqual(first.count, 8, traced.out)
        XCTAssertTrue((0..<20).contains(Int(first[5]) ?? -1), traced.out)
        XCTAssertTrue(Float(first[6])?.isFinite == true && Float(first[7])?.isFinite == true, traced.out)
        XCTAssertTrue(tracedLines.last?.hasPrefix("top_dy min ") ?? false, traced.out)
    }

    /// `--verbose --every N` prints the stage timings every N steps; N must be at least 1.
    func test_scene_verbose_printsEveryNSteps() throws {
        let folder = FileManager.default.temporaryDirectory
        let run = try runProgram([dynamicsBinary, "scene", "pyramid", "4", "--steps", "10", "--verbose", "--every", "3"], in: folder)
        XCTAssertEqual(run.status, 0, run.err)
        let steps = run.out.split(separator: "\n").filter { $0.hasPrefix("step ") }.map { $0.split(separator: ":")[0] }
        XCTAssertEqual(steps, ["step 3", "step 6", "step 9"], run.out)
        let bad = try runProgram([dynamicsBinary, "scene", "pyramid", "4", "--verbose", "--every", "0"], in: folder)
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.err.contains("--every must be at least 1, got 0"), bad.err)
    }

    /// With two workers, `dynamics scene` says how much of the step ran on the caller's thread alone (a share between 0
    /// and 1); with one it has nothing to say.
    func test_scene_reportsTheCallerOnlyShare_withWorkers() throws {
        let folder = FileManager.default.temporaryDirectory
        let two = try runProgram([dynamicsBinary, "scene", "rain", "1000", "--steps", "200", "--workers", "2"], in: folder)
        XCTAssertEqual(two.status, 0, two.err)
        let line = try XCTUnwrap(two.out.split(separator: "\n").first { $0.hasPrefix("caller_only_share ") }, two.out)
        let share = try XCTUnwrap(Double(line.dropFirst("caller_only_share ".count)), String(line))
        XCTAssertTrue(share >= 0 && share <= 1, String(line))
        let one = try runProgram([dynamicsBinary, "scene", "rain", "1000", "--steps", "20", "--workers", "1"], in: folder)
        XCTAssertFalse(one.out.contains("caller_only_share"), one.out)
    }
}
