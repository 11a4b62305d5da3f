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
}
