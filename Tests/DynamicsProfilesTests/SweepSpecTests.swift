import XCTest
import DynamicsKit
import DynamicsProfiles

/// Profile overrides (`--set`, a sweep's parameters) and sweep files: how runs are numbered, drawn and recorded.
final class SweepSpecTests: XCTestCase {
    /// A small profile: a jittered grid of boxes falling onto the bottom of the bounds.
    static let profile = """
    {
      "name": "little-pile",
      "bounds": [200, 200],
      "steps": 40,
      "seed": 3,
      "items": [{ "generator": "grid", "id": "box", "rows": 2, "columns": 5, "origin": [40, 100], "pitch": [25, -20],
                  "size": [10, 10], "jitter": [4, 4] }],
      "behaviors": [
        { "kind": "gravity", "items": "all", "magnitude": 1 },
        { "kind": "collision", "items": "all", "referenceBounds": true },
        { "kind": "itemBehavior", "items": "all", "elasticity": 0.1 }
      ]
    }
    """

    func sweep(_ text: String) throws -> SweepSpec {
        try SweepSpec(json: text, file: "test-sweep.json") { name in
            XCTAssertEqual(name, "little-pile")
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("little-pile-\(getpid()).json")
            try SweepSpecTests.profile.write(to: url, atomically: true, encoding: .utf8)
            return url
        }
    }

    func test_override_setsAnyField_andNamesWhatIsWrong() throws {
        let base = try Profile(json: Self.profile, file: "p.json")
        let changed = try Profile(json: Self.profile, file: "p.json", overrides: [
            try ProfileOverride(assignment: "behaviors[0].magnitude=2.5"),
            try ProfileOverride(assignment: "items[0].rows=3"),
            try ProfileOverride(assignment: "name=renamed"),
            try ProfileOverride(assignment: "contactHertz=45"),
        ])
        XCTAssertEqual(changed.items.count, 15)
        XCTAssertEqual(changed.name, "renamed")
        XCTAssertEqual(changed.contactHertz, 45)
        guard case let .gravity(_, magnitude, _) = changed.behaviors[0] else { return XCTFail("not gravity") }
        XCTAssertEqual(magnitude, 2.5)
        XCTAssertEqual(base.items.count, 10)

        let cases: [(String, String)] = [
            ("behaviors[7].magnitude=1", "behaviors: --set behaviors[7].magnitude: there is no element [7]: the array has 3"),
            ("behaviors[0].magnitud=1", "behaviors[0]: unknown field 'magnitud'"),
            ("behaviors[0].magnitude=-1e9", "behaviors[0].magnitude: expected a number within ±1,000,000"),
            ("items[0].rows=many", "items[0].rows: expected a number, found a string"),
            ("bounds.width=3", "--set bounds.width: expected an object to hold 'width', found an array"),
            ("nothing.below=1", "nothing: --set nothing.below: there is no field 'nothing' here"),
        ]
        for (assignment, expected) in cases {
            XCTAssertThrowsError(try Profile(json: Self.profile, file: "p.json", overrides: [try ProfileOverride(assignment: assignment)])) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(assignment): \(error)")
            }
        }
        for path in ["", "a..b", "a[x]", "a[1]b", "a[", ".a", "a."] {
            XCTAssertThrowsError(try ProfileOverride(path: path, json: "1"), "path '\(path)' was accepted")
        }
        XCTAssertThrowsError(try ProfileOverride(assignment: "no-equals-sign"))
    }

    func test_gridJitter_followsTheSeed() throws {
        func centers(_ seed: UInt32?) throws -> [CGPoint] { try Profile(json: Self.profile, file: "p.json", seed: seed).items.map(\.center) }
        XCTAssertEqual(try centers(nil), try centers(3))
        XCTAssertNotEqual(try centers(3), try centers(4))
        for (k, c) in try centers(4).enumerated() {
            let x0 = 40 + 25 * Double(k % 5), y0 = 100 - 20 * Double(k / 5)
            XCTAssertTrue(c.x >= x0 && c.x < x0 + 4 && c.y >= y0 && c.y < y0 + 4, "item \(k) at \(c)")
        }
    }

    func test_startFields_setAnglesAndVelocities_drawnFromTheSeedForEveryGenerator() throws {
        let text = """
        { "name": "starts", "bounds": [2000, 2000], "steps": 10,
          "items": [ { "generator": "pyramid", "id": "p", "rows": 3, "angle": 0.25, "angleJitter": 0.1, "velocity": [5, -5], "velocityJitter": [2, 0] },
                     { "generator": "swarm", "id": "s", "count": 4, "jitter": [1, 2] },
                     { "id": "one", "center": [10, 10], "size": [4, 4], "angle": 1.5, "velocity": [0, 30] } ],
          "behaviors": [] }
        """
        let a = try Profile(json: text, file: "s.json", seed: 1), b = try Profile(json: text, file: "s.json", seed: 2)
        let plain = try Profile(json: text.replacingOccurrences(of: "\"jitter\": [1, 2]", with: "\"jitter\": [0, 0]"), file: "s.json", seed: 1)
        for k in 0..<6 {
            XCTAssertEqual(a.items[k].angle, 0.25, accuracy: 0.1 + 1e-12)
            XCTAssertEqual(Double(a.items[k].velocity.dx), 5, accuracy: 2 + 1e-12)
            XCTAssertEqual(a.items[k].velocity.dy, -5)
            XCTAssertNotEqual(a.items[k].angle, b.items[k].angle, "another seed, another draw")
        }
        for k in 6..<10 {
            let dx = a.items[k].center.x - plain.items[k].center.x, dy = a.items[k].center.y - plain.items[k].center.y
            XCTAssertTrue(dx >= 0 && dx < 1 && dy >= 0 && dy < 2 && (dx, dy) != (0, 0), "swarm item \(k) moved by \(dx), \(dy)")
            XCTAssertEqual(a.items[k].angle, 0)
        }
        XCTAssertEqual(a.items[10].angle, 1.5)
        XCTAssertEqual(a.items[10].velocity, CGVector(dx: 0, dy: 30))

        // Built into an animator, the items start turned and moving.
        let scene = try a.makeCheckedScene()
        XCTAssertEqual(Double(scene.items[10].transform.rotationAngle), 1.5, accuracy: 1e-9)
        scene.animator.step()
        let state = try XCTUnwrap(scene.animator.itemStates().first { $0.item === scene.items[10] })
        XCTAssertEqual(Double(state.velocity.y), 30, accuracy: 0.5)

        for (field, expected) in [("\"angleJitter\": -1", "expected a number ≥ 0"), ("\"velocity\": [1e5, 0], \"velocityJitter\": [1, 0]", "to stay within 100000 points/s")] {
            let bad = text.replacingOccurrences(of: "\"jitter\": [1, 2]", with: field)
            XCTAssertThrowsError(try Profile(json: bad, file: "s.json")) { XCTAssertTrue("\($0)".contains(expected), "\($0)") }
        }
    }

    func test_runs_areNumberedListsFirstDrawsLast_andDrawnFromTheRunAlone() throws {
        let text = """
        { "profile": "little-pile", "draws": 3, "seed": 9,
          "parameters": {
            "behaviors[2].elasticity": [0, 0.5],
            "behaviors[0].magnitude": { "from": 1, "to": 2, "count": 3 },
            "seed": { "random": { "from": 10, "to": 12, "integer": true } },
            "behaviors[2].friction": { "random": { "from": 0.25, "to": 0.75 } },
            "items[0].rows": { "random": { "choices": [1, 2] } }
          } }
        """
        // Two readings of one file: a run's draws depend on nothing but the file and the run.
        let s = try sweep(text), again = try sweep(text)
        XCTAssertEqual(s.runCount, 2 * 3 * 3)
        XCTAssertEqual(s.name, "test-sweep")
        XCTAssertEqual(s.metrics, SweepMetric.standard)
        func values(_ r: Int) -> [String] { s.overrides(run: r).map(\.valueText) }
        // Run r: elasticity r / 9, magnitude (r / 3) % 3, draw r % 3.
        XCTAssertEqual(values(0)[0...1], ["0", "1"])
        XCTAssertEqual(values(3)[0...1], ["0", "1.5"])
        XCTAssertEqual(values(8)[0...1], ["0", "2"])
        XCTAssertEqual(values(9)[0...1], ["0.5", "1"])
        var seeds = Set<String>(), frictions = Set<String>()
        for r in 0..<s.runCount {
            let v = values(r)
            XCTAssertEqual(v, again.overrides(run: r).map(\.valueText), "run \(r) drew differently in another reading")
            XCTAssertTrue(["10", "11", "12"].contains(v[2]), v[2])
            let f = try XCTUnwrap(Double(v[3]))
            XCTAssertTrue(f >= 0.25 && f < 0.75, v[3])
            XCTAssertTrue(["1", "2"].contains(v[4]))
            seeds.insert(v[2]); frictions.insert(v[3])
        }
        XCTAssertEqual(seeds.count, 3, "18 integer draws from 10...12 missed a value")
        XCTAssertEqual(frictions.count, s.runCount, "uniform draws repeated")

        let steps = try sweep(#"{ "profile": "little-pile", "parameters": { "seed": { "from": 1, "to": 2, "step": 0.25 } } }"#)
        XCTAssertEqual((0..<steps.runCount).map { steps.overrides(run: $0)[0].valueText }, ["1", "1.25", "1.5", "1.75", "2"])
    }

    func test_shards_takeEveryRunOnce() throws {
        let s = try sweep(#"{ "profile": "little-pile", "parameters": { "seed": { "from": 1, "to": 37, "step": 1 } } }"#)
        for n in [1, 2, 4, 5, 37, 40] {
            let all = (0..<n).flatMap { Array(s.runs(shard: $0, of: n)) }.sorted()
            XCTAssertEqual(all, Array(0..<37), "\(n) shards")
        }
    }

    func test_badSweepFiles_areRefusedWithTheirPlace() throws {
        let cases: [(String, String)] = [
            (#"{ "profile": "little-pile", "parameters": { "seed": [] } }"#, "parameters.seed: expected at least one value"),
            (#"{ "profile": "little-pile", "parameters": { "seed": { "from": 2, "to": 1, "step": 1 } } }"#, "expected 'from' at most 'to'"),
            (#"{ "profile": "little-pile", "parameters": { "seed": { "from": 1, "to": 2 } } }"#, "expected a list of values"),
            (#"{ "profile": "little-pile", "parameters": { "a[": [1] } }"#, "parameters.a[: the field path 'a[' has a '[' without its ']'"),
            (#"{ "profile": "little-pile", "parameters": {}, "metrics": ["speed"] }"#, "metrics[0]: unknown metric 'speed'"),
            (#"{ "profile": "little-pile", "parameters": { "seed": [1, 2] }, "draws": 4 }"#, "no parameter is drawn at random"),
            (#"{ "profile": "little-pile", "parameters": {}, "runs": 3 }"#, "unknown field 'runs'"),
            (#"{ "parameters": {} }"#, "missing field 'profile'"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try sweep(text)) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(text): \(error)")
                XCTAssertTrue("\(error)".hasPrefix("test-sweep.json"), "\(error)")
            }
        }
    }

    func test_aRun_isRecordedTheSameEveryTime_andAFailureIsRecordedWithItsMessage() throws {
        let s = try sweep("""
        { "profile": "little-pile", "steps": 30,
          "parameters": { "behaviors[2].elasticity": [0.2, -3], "seed": [5, 6] } }
        """)
        let first = s.run(0), again = s.run(0)
        XCTAssertFalse(first.failed)
        XCTAssertEqual(first.line, again.line)
        XCTAssertNotEqual(s.run(1).line, first.line, "another seed gave the same run")
        XCTAssertTrue(first.line.hasPrefix(#"{"run":0,"runs":4,"status":"ok","parameters":{"behaviors[2].elasticity":0.2,"seed":5},"metrics":{"steps":30,"#), first.line)
        let parsed = try SweepRecord(line: first.line, file: "r.jsonl", lineNumber: 1)
        XCTAssertEqual(parsed.line, first.line)

        let failed = s.run(2)
        XCTAssertTrue(failed.failed)
        XCTAssertTrue(failed.line.contains(#""status":"failed""#) && failed.line.contains("behaviors[2].elasticity: expected a number ≥ 0"), failed.line)
        XCTAssertEqual(try SweepRecord(line: failed.line, file: "r.jsonl", lineNumber: 1).line, failed.line)
    }
}
