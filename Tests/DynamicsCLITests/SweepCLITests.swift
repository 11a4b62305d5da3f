import XCTest
@testable import DynamicsCLI

/// `dynamics sweep` through the built binary: the pool of processes, shards and their merge, resuming, failed runs,
/// and the Slurm and Kubernetes per-task commands of deploy/ run with the environment those schedulers set.
final class SweepCLITests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    var folder: URL!

    /// A folder with a small profile and a sweep of it: 16 seeds × 2 elasticities = 32 runs, one of them failing
    /// (elasticity −1 with seed 16 is out of range: only that combination is listed).
    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-cli-\(getpid())-\(name.hashValue)")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
        { "name": "little-pile", "bounds": [200, 200], "steps": 30,
          "items": [{ "generator": "grid", "id": "box", "rows": 2, "columns": 4, "origin": [40, 120], "pitch": [30, -20],
                      "size": [10, 10], "jitter": [5, 5] }],
          "behaviors": [
            { "kind": "gravity", "items": "all" },
            { "kind": "collision", "items": "all", "referenceBounds": true },
            { "kind": "itemBehavior", "items": "all", "elasticity": 0.2 } ] }
        """.write(to: folder.appendingPathComponent("little-pile.json"), atomically: true, encoding: .utf8)
        try """
        { "name": "little", "profile": "little-pile.json",
          "parameters": { "seed": { "from": 1, "to": 16, "step": 1 }, "behaviors[2].elasticity": [0.1, 0.6] },
          "metrics": ["steps", "escapes", "meanY", "stdX", "kineticEnergy", "awake"] }
        """.write(to: folder.appendingPathComponent("little.json"), atomically: true, encoding: .utf8)
        try """
        { "name": "breaking", "profile": "little-pile.json",
          "parameters": { "behaviors[2].elasticity": [0.1, -1, 0.3] } }
        """.write(to: folder.appendingPathComponent("breaking.json"), atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    @discardableResult
    func run(_ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil) throws -> (status: Int32, out: String, err: String) {
        try runProgram(arguments, environment: environment, in: directory ?? folder)
    }

    func sweep(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        try run([dynamicsBinary, "sweep"] + arguments, environment: environment)
    }

    func contents(_ name: String) throws -> String { try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8) }

    func test_aPoolSweep_andFourShardsMerged_areTheSameByteForByte() throws {
        let pool = try sweep(["little.json", "--jobs", "2", "--out", "pool.jsonl", "--csv", "pool.csv"])
        XCTAssertEqual(pool.status, 0, pool.err)
        XCTAssertTrue(pool.out.contains("runs: 32 (32 ok, 0 failed)"), pool.out)
        let lines = try contents("pool.jsonl").split(separator: "\n")
        XCTAssertEqual(lines.count, 32)
        XCTAssertEqual(lines.map { $0.hasPrefix("{\"run\":") }, Array(repeating: true, count: 32))
        XCTAssertEqual(Set(lines).count, 32, "two runs gave the same line")
        XCTAssertEqual(try contents("pool.csv").split(separator: "\n").first, "run,status,seed,behaviors[2].elasticity,steps,escapes,meanY,stdX,kineticEnergy,awake,error")

        let alone = try sweep(["little.json", "--jobs", "1", "--out", "alone.jsonl"])
        XCTAssertEqual(alone.status, 0, alone.err)
        XCTAssertEqual(try contents("alone.jsonl"), try contents("pool.jsonl"), "one process at a time differs from two")

        for k in 0..<4 {
            let shard = try sweep(["little.json", "--shard", "\(k)/4", "--jobs", "2"])
            XCTAssertEqual(shard.status, 0, shard.err)
            XCTAssertEqual(try contents("little-shard-\(k)-of-4.jsonl").split(separator: "\n").count, 8)
        }
        let merged = try sweep(["merge"] + (0..<4).map { "little-shard-\($0)-of-4.jsonl" } + ["--out", "merged.jsonl"])
        XCTAssertEqual(merged.status, 0, merged.err)
        XCTAssertEqual(try contents("merged.jsonl"), try contents("pool.jsonl"))

        // One run on its own, as the pool's processes run it.
        let only = try sweep(["little.json", "--only", "5"])
        XCTAssertEqual(only.out, String(lines[5]) + "\n")
    }

    func test_merge_refusesARunTwice_andReportsMissingRuns() throws {
        for k in 0..<2 { XCTAssertEqual(try sweep(["little.json", "--shard", "\(k)/4", "--jobs", "2"]).status, 0) }
        let twice = try sweep(["merge", "little-shard-0-of-4.jsonl", "little-shard-0-of-4.jsonl", "--out", "m.jsonl"])
        XCTAssertEqual(twice.status, 1)
        XCTAssertTrue(twice.err.contains("run 0 appears twice: little-shard-0-of-4.jsonl:1 and little-shard-0-of-4.jsonl:1"), twice.err)
        let partial = try sweep(["merge", "little-shard-0-of-4.jsonl", "little-shard-1-of-4.jsonl", "--out", "m.jsonl"])
        XCTAssertEqual(partial.status, 3)
        XCTAssertTrue(partial.err.contains("missing 16 of 32 runs: 2, 3, 6, 7, 10, 11"), partial.err)
        XCTAssertEqual(try contents("m.jsonl").split(separator: "\n").count, 16)
    }

    func test_resume_keepsTheRunsDone_andRunsTheRest() throws {
        XCTAssertEqual(try sweep(["little.json", "--out", "full.jsonl"]).status, 0)
        let full = try contents("full.jsonl")
        let lines = full.split(separator: "\n")
        // Stopped after 10 runs, in the middle of writing the 11th.
        try (lines[0..<10].joined(separator: "\n") + "\n" + lines[10].prefix(25)).write(to: folder.appendingPathComponent("cut.jsonl"), atomically: true, encoding: .utf8)
        let refused = try sweep(["little.json", "--out", "cut.jsonl"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.err.contains("--out cut.jsonl exists: give --resume"), refused.err)
        let resumed = try sweep(["little.json", "--out", "cut.jsonl", "--resume"])
        XCTAssertEqual(resumed.status, 0, resumed.err)
        XCTAssertTrue(resumed.out.contains("ran 22 runs"), resumed.out)
        XCTAssertEqual(try contents("cut.jsonl"), full)
        // A results file of another sweep is not continued.
        let other = try sweep(["breaking.json", "--out", "cut.jsonl", "--resume"])
        XCTAssertEqual(other.status, 1)
        XCTAssertTrue(other.err.contains("is from a sweep of 32 runs; this one has 3"), other.err)
    }

    func test_aFailingRun_isRecordedWithItsMessage_andTheSweepGoesOn() throws {
        let result = try sweep(["breaking.json", "--jobs", "2"])
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertTrue(result.out.contains("runs: 3 (2 ok, 1 failed)"), result.out)
        let lines = try contents("breaking-results.jsonl").split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines[1].contains(#""status":"failed""#) && lines[1].contains("behaviors[2].elasticity: expected a number ≥ 0, found -1"), String(lines[1]))
        XCTAssertTrue(lines[0].contains(#""status":"ok""#) && lines[2].contains(#""status":"ok""#))
    }

    func test_theShard_comesFromTheSchedulersEnvironment() throws {
        XCTAssertNil(try SweepRun.shardFromEnvironment([:]))
        XCTAssertEqual(try SweepRun.shardFromEnvironment(["JOB_COMPLETION_INDEX": "2", "JOB_COMPLETIONS": "4"]).map { [$0.index, $0.count] }, [2, 4])
        XCTAssertEqual(try SweepRun.shardFromEnvironment(["SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_STEP": "2"]).map { [$0.index, $0.count] }, [1, 4])
        XCTAssertEqual(try SweepRun.shardFromEnvironment(["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4"]).map { [$0.index, $0.count] }, [3, 4])
        let refusals: [([String: String], String)] = [
            (["JOB_COMPLETION_INDEX": "1"], "JOB_COMPLETIONS is not"),
            (["JOB_COMPLETION_INDEX": "4", "JOB_COMPLETIONS": "4"], "not a shard"),
            (["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "4"], "is not a whole number"),
            (["SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "4"], "is not on the array's steps"),
        ]
        for (env, expected) in refusals {
            XCTAssertThrowsError(try SweepRun.shardFromEnvironment(env)) { XCTAssertTrue("\($0)".contains(expected), "\(env): \($0)") }
        }
    }

    /// The sbatch script and the Job's per-pod command, run here with the variables Slurm and Kubernetes set, make
    /// shards that merge into the whole sweep.
    func test_theSlurmScript_andTheKubernetesPodCommand_runTheirShards() throws {
        XCTAssertEqual(try sweep(["little.json", "--out", "whole.jsonl"]).status, 0)
        let sweepFile = folder.appendingPathComponent("little.json").path
        let results = folder.appendingPathComponent("results").path
        let common = ["SWEEP": sweepFile, "RESULTS": results, "DYNAMICS": dynamicsBinary, "JOBS": "2"]
        let sbatch = Self.repository.appendingPathComponent("deploy/slurm-sweep.sbatch").path
        for task in 10...11 {
            let slurm = try run(["/bin/bash", sbatch], environment: common.merging(["SLURM_ARRAY_TASK_ID": "\(task)", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_MAX": "13"]) { $1 }, in: Self.repository)
            XCTAssertEqual(slurm.status, 0, slurm.err)
        }
        // The Job's container command, as written in the manifest.
        let manifest = try String(contentsOf: Self.repository.appendingPathComponent("deploy/kubernetes-sweep-job.yaml"), encoding: .utf8)
        let lines = manifest.split(separator: "\n").map(String.init)
        let container = try XCTUnwrap(lines.firstIndex { $0.contains("- name: sweep") })
        let argsLine = try XCTUnwrap(lines[container...].firstIndex { $0.trimmingCharacters(in: .whitespaces) == "args:" })
        let podCommand = lines[argsLine + 1].trimmingCharacters(in: .whitespaces).dropFirst(2)
        XCTAssertTrue(podCommand.hasPrefix("deploy/sweep-task"), String(podCommand))
        XCTAssertTrue(manifest.contains(#"- { name: JOB_COMPLETIONS, value: "4" }"#) && manifest.contains("completions: 4"))
        for index in 2...3 {
            let pod = try run(["/bin/sh", "-c", String(podCommand)], environment: common.merging(["JOB_COMPLETION_INDEX": "\(index)", "JOB_COMPLETIONS": "4"]) { $1 }, in: Self.repository)
            XCTAssertEqual(pod.status, 0, pod.err)
        }
        let shards = (0..<4).map { "results/little-shard-\($0)-of-4.jsonl" }
        let merged = try sweep(["merge"] + shards + ["--out", "merged.jsonl"])
        XCTAssertEqual(merged.status, 0, merged.err)
        XCTAssertEqual(try contents("merged.jsonl"), try contents("whole.jsonl"))
    }
}
