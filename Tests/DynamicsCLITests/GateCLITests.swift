import XCTest
@testable import DynamicsCLI

/// `dynamics gate` through the built binary: it passes an unchanged build, fails a profile that does twice the work
/// (with GitHub annotations), and says when it cannot measure. The instruction counts need valgrind (`.ci/run`
/// installs it before the tests, with scripts/install-valgrind).
final class GateCLITests: XCTestCase {
    var folder: URL!

    /// `rows` rows of 5 boxes on the floor of the bounds, all named "little" (a fixture with more rows is the same
    /// case doing more work).
    func profile(rows: Int) -> String {
        """
        { "name": "little", "bounds": [300, 200], "steps": 20,
          "items": [{ "generator": "grid", "id": "box", "rows": \(rows), "columns": 5, "origin": [40, 185], "pitch": [40, -12],
                      "size": [10, 10] }],
          "behaviors": [
            { "kind": "gravity", "items": "all" },
            { "kind": "collision", "items": "all", "referenceBounds": true } ] }
        """
    }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("gate-cli-\(getpid())-\(name.hashValue)")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("slower"), withIntermediateDirectories: true)
        try profile(rows: 4).write(to: folder.appendingPathComponent("little.json"), atomically: true, encoding: .utf8)
        try profile(rows: 8).write(to: folder.appendingPathComponent("slower/little.json"), atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func gate(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try runProgram([dynamicsBinary, "gate"] + arguments, in: folder)
    }

    func test_theGate_passesAnUnchangedBuild_andFailsTwiceTheWork() throws {
        guard Gate.onPath("valgrind") else { throw XCTSkip("valgrind is not installed (scripts/install-valgrind)") }
        let record = try gate(["little.json@20", "--baseline", "base.json", "--update", "--method", "callgrind"])
        XCTAssertEqual(record.status, 0, record.out + record.err)
        let base = try String(contentsOf: folder.appendingPathComponent("base.json"), encoding: .utf8)
        XCTAssertTrue(base.contains("\"little@20\"") && base.contains("instructionsPerStep") && base.contains("steadyAllocations"), base)

        // The instruction counts alone from here (each allocation figure takes four runs under valgrind).
        let same = try gate(["little.json@20", "--baseline", "base.json", "--method", "callgrind", "--measure", "instructions"])
        XCTAssertEqual(same.status, 0, same.out + same.err)
        XCTAssertTrue(same.out.contains("gate: passed"), same.out)

        let slower = try gate(["slower/little.json@20", "--baseline", "base.json", "--method", "callgrind", "--measure", "instructions", "--format", "github"])
        XCTAssertEqual(slower.status, 1, slower.out + slower.err)
        XCTAssertTrue(slower.out.contains("FAIL (more than 3% above the baseline)"), slower.out)
        XCTAssertTrue(slower.out.contains("::error file=slower/little.json,title=Performance gate: little@20::instr/step"), slower.out)
        XCTAssertTrue(slower.out.contains("gate: FAILED"), slower.out)

        // A case the baseline does not have fails until it is recorded.
        let unknown = try gate(["little.json@10", "--baseline", "base.json", "--method", "callgrind", "--measure", "instructions"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.out.contains("FAIL (no baseline: run with --update and commit base.json)"), unknown.out)
    }

    func test_allocationsAreCountedOnlyOverStepsThatRun() throws {
        guard Gate.onPath("valgrind") else { throw XCTSkip("valgrind is not installed (scripts/install-valgrind)") }
        // The boxes rest within fifty steps, and a run ends when everything rests: steps 301…600 never run, and
        // must not pass for steps without allocations. The count moves to the last steps the run has, and says so.
        let resting = try gate(["little.json@300", "--baseline", "rest.json", "--update", "--method", "callgrind", "--measure", "allocations"])
        XCTAssertEqual(resting.status, 0, resting.out + resting.err)
        let pattern = try Regex(#"allocs in (\d+)…(\d+) \(rests at (\d+)\)"#)
        let rest = try XCTUnwrap(resting.out.firstMatch(of: pattern), resting.out)
        let number = { (i: Int) in Int(rest.output[i].substring ?? "") ?? -1 }
        let (from, to, at) = (number(1), number(2), number(3))
        XCTAssertLessThan(at, 600)
        XCTAssertEqual(to, 2 * (at / 2))
        XCTAssertEqual(from, at / 2 + 1)
    }

    func test_theWallClockGate_recordsItsMedianAndSpread() throws {
        let record = try gate(["little.json@20", "--baseline", "time.json", "--update", "--method", "time", "--repetitions", "3"])
        XCTAssertEqual(record.status, 0, record.out + record.err)
        let base = try String(contentsOf: folder.appendingPathComponent("time.json"), encoding: .utf8)
        XCTAssertTrue(base.contains("\"method\" : \"time\"") && base.contains("msPerStep") && base.contains("noise"), base)
        // A baseline measured one way is not compared with figures measured another.
        guard Gate.onPath("valgrind") else { return }
        let other = try gate(["little.json@20", "--baseline", "time.json", "--method", "callgrind", "--measure", "instructions"])
        XCTAssertEqual(other.status, 1)
        XCTAssertTrue(other.out.contains("the baseline was measured with time"), other.out)
    }

    func test_whatCannotBeMeasured_exitsWithTwo() throws {
        if !Gate.perfCounts() {
            let perf = try gate(["little.json", "--baseline", "b.json", "--update", "--method", "perf"])
            XCTAssertEqual(perf.status, 2)
            XCTAssertTrue(perf.err.contains("--method perf: `perf stat -e instructions:u` does not count here"), perf.err)
        }
        let missing = try gate(["little.json", "--baseline", "none.json"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.err.contains("--baseline none.json: no such file (create it with --update)"), missing.err)
    }
}
