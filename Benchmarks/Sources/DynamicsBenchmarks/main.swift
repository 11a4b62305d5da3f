// One Google Benchmark binary: every Benchmarks/SCENES.md scene profile, run by DynamicsKit through the core (bulk API), by
// DynamicsKit through the object API (a DynamicItem per item, write-back every step), by Box2D 2.4.1 and by
// Chipmunk 7, in the same process; and, where the processor runs the C kernels at 8 or 16 lanes, through the core
// again as DynamicsKit4Lanes, held to the portable build's 4 lanes; and, on a machine with two cores or more, as
// DynamicsKit2Workers, on two threads (every other row runs on one, as the peers do). Names are Engine/scene/size; every benchmark
// reports ms_per_step, ms_last120, awake, the lanes and the scene's own numbers as counters, so
// `--benchmark_format=json` holds the whole comparison. One iteration is one run of the scene, timed manually: its
// time (Google Benchmark's time column, which compare.py and --benchmark_repetitions' aggregates read) is the mean
// milliseconds per measured step. A profile that reproduces no scene (one of the user's, from --profiles) runs through
// the object API alone, as DynamicsKitObjects/profile/NAME; a folder without profiles is refused.
//
// Usage: swift run -c release DynamicsBenchmarks [--benchmark_filter=rain] [--benchmark_format=json] [--profiles DIR]
import CGoogleBenchmark
import DynamicsKit
import DynamicsProfiles
import DynamicsScenes
import Foundation
import PeerEngines
#if canImport(Glibc)
import Glibc
#endif

// MARK: - command line

var arguments = CommandLine.arguments
var profilesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Profiles")
if let k = arguments.firstIndex(of: "--profiles"), k + 1 < arguments.count {
    profilesDirectory = URL(fileURLWithPath: arguments[k + 1])
    arguments.removeSubrange(k...(k + 1))
}

// MARK: - measurements

/// What one run of a scene produced.
struct Run {
    var stepMs: [Double]
    var statistics: SceneStatistics?
    var awake: Int
    /// Heap per item after the first step: for the core, the world alone; for the object API, the world, the
    /// animator and the caller's items and behaviors.
    var bytesPerItem: Double?
    /// Object API: of those, the bytes the first step added: the engine's world and the animator's records,
    /// without the caller's items and behaviors.
    var engineBytesPerItem: Double? = nil
    /// Object API: the measured steps' time inside `World.step` (the animator's own clock), in ms per step. The
    /// rest of the animator's step is the object layer's cost (compiling, write-back, callbacks), on the same
    /// simulation. (The object API's world is not the core's to the bit: its reference-bounds walls have UIKit's
    /// boundary elasticity, 0.2, so a pile may fall asleep some steps earlier or later than the core's, which moves
    /// the two runs' means apart by more than the write-back costs.)
    var engineMs: [Double]? = nil
}

func report(_ state: UnsafeMutableRawPointer, _ profile: Profile, _ run: Run) {
    let measured = Array(run.stepMs[profile.warmupSteps...])
    let mean = measured.reduce(0, +) / Double(measured.count)
    let tail = measured.suffix(120)
    dk_benchmark_set_counter(state, "ms_per_step", mean)
    // The standard time column: the mean step, so Google Benchmark's own tools read the step time.
    dk_benchmark_set_iteration_time(state, mean / 1000)
    dk_benchmark_set_counter(state, "ms_last120", tail.reduce(0, +) / Double(tail.count))
    dk_benchmark_set_counter(state, "max_step_ms", measured.max() ?? 0)
    dk_benchmark_set_counter(state, "awake", Double(run.awake))
    dk_benchmark_set_counter(state, "items", Double(profile.items.count))
    dk_benchmark_set_counter(state, "ns_per_item_step", mean * 1e6 / Double(max(1, profile.items.count)))
    if let b = run.bytesPerItem { dk_benchmark_set_counter(state, "bytes_per_item", b) }
    if let b = run.engineBytesPerItem { dk_benchmark_set_counter(state, "engine_bytes_per_item", b) }
    if let engine = run.engineMs {
        // The object layer's time over the engine's, both over the measured steps of this run.
        let inEngine = engine[profile.warmupSteps...].reduce(0, +)
        let total = measured.reduce(0, +)
        dk_benchmark_set_counter(state, "engine_ms_per_step", inEngine / Double(measured.count))
        if inEngine > 0 { dk_benchmark_set_counter(state, "object_layer_overhead", (total - inEngine) / inEngine) }
    }
    dk_benchmark_set_counter(state, "lanes", Double(World.vectorLanes))
    guard let scene = profile.scene, let stats = run.statistics else { return }
    for (name, value) in stats.values(for: scene.kind) { dk_benchmark_set_counter(state, name, value) }
}

func elapsedMs(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let t = clock.now
    try body()
    return (clock.now - t) / .milliseconds(1)
}

/// Bytes of heap in use (glibc's allocator statistics).
func heapInUse() -> Int {
    Int(dk_heap_in_use())
}

// Each run times only its steps: the clock is paused for set-up and read-back.
func runCore(_ profile: Profile, _ state: UnsafeMutableRawPointer, workers: Int = 1) throws -> Run {
    dk_benchmark_pause(state)
    defer { dk_benchmark_resume(state) }
    let before = heapInUse()
    guard let (world, ids, links) = try profile.makeCoreWorld() else { throw ProfileError(file: profile.file, path: "scene", message: "not a Benchmarks/SCENES.md scene") }
    try world.setWorkerCount(workers)
    var steps: [Double] = []
    steps.reserveCapacity(profile.steps)
    let dt = Float(profile.timeStep)
    dk_benchmark_resume(state)
    steps.append(try elapsedMs { try world.step(dt: dt, substeps: profile.substeps) })
    dk_benchmark_pause(state)
    // The world after its first step, per item: the heap it holds, without the caller's lists of ids and links
    // and the list of step times.
    let callers = ids.capacity * MemoryLayout<BodyID>.stride + links.capacity * MemoryLayout<JointID>.stride
        + steps.capacity * MemoryLayout<Double>.stride
    let bytes = Double(heapInUse() - before - callers) / Double(max(1, ids.count))
    dk_benchmark_resume(state)
    for _ in 1..<profile.steps { steps.append(try elapsedMs { try world.step(dt: dt, substeps: profile.substeps) }) }
    dk_benchmark_pause(state)
    return Run(stepMs: steps, statistics: world.statistics(of: profile.scene!, items: ids, links: links),
               awake: world.awakeBodyCount, bytesPerItem: bytes)
}

func runObjects(_ profile: Profile, _ state: UnsafeMutableRawPointer) -> Run {
    dk_benchmark_pause(state)
    defer { dk_benchmark_resume(state) }
    let before = heapInUse()
    let scene = profile.makeScene()
    scene.animator.workerCount = 1
    var steps: [Double] = []
    steps.reserveCapacity(profile.steps)
    var engine: [Double] = []
    engine.reserveCapacity(profile.steps)
    let sceneMade = heapInUse()
    // A paused animator does not step (and keeps its last step's timings): no time in the engine then.
    var stepped = false
    dk_benchmark_resume(state)
    steps.append(elapsedMs { stepped = scene.animator.step() })
    dk_benchmark_pause(state)
    engine.append(stepped ? scene.animator.lastStepTimings.engine.total * 1000 : 0)
    // After the first step the world, its tables and the items exist: the object API's footprint per item, and
    // the part the first step added (the engine and the animator's records, not the caller's items).
    let count = Double(max(1, scene.items.count))
    let after = heapInUse()
    let bytes = Double(after - before) / count
    let engineBytes = Double(after - sceneMade) / count
    dk_benchmark_resume(state)
    for _ in 1..<profile.steps {
        steps.append(elapsedMs { stepped = scene.animator.step() })
        engine.append(stepped ? scene.animator.lastStepTimings.engine.total * 1000 : 0)
    }
    dk_benchmark_pause(state)
    let centers = scene.items.map { SIMD2(Double($0.center.x), Double($0.center.y)) }
    let lengths = scene.links.map { (_, link) -> Double in
        let a = centers[link.a]
        let b = link.b.map { centers[$0] } ?? SIMD2(Double(link.anchor.x), Double(link.anchor.y))
        let d = b - a
        return (d.x * d.x + d.y * d.y).squareRoot()
    }
    return Run(stepMs: steps, statistics: profile.scene.map { SceneStatistics(scene: $0, centers: centers, linkLengths: lengths) },
               awake: scene.animator.world.awakeBodyCount, bytesPerItem: bytes, engineBytesPerItem: engineBytes,
               engineMs: engine)
}

enum Peer { case box2d, chipmunk }

func runPeer(_ peer: Peer, _ profile: Profile, _ state: UnsafeMutableRawPointer) -> Run {
    let scene = profile.scene!
    let items = scene.items.flatMap { [$0.center.x, $0.center.y, $0.size] }
    let walls = scene.walls.flatMap { [$0.from.x, $0.from.y, $0.to.x, $0.to.y, $0.outward.x, $0.outward.y] }
    let links = scene.links.flatMap { [Double($0.a), Double($0.b ?? -1), $0.anchor.x, $0.anchor.y] }
    var stepMs = [Double](repeating: 0, count: profile.steps)
    var centers = [Double](repeating: 0, count: 2 * scene.items.count)
    var lengths = [Double](repeating: 0, count: scene.links.count)
    var awake: Int32 = 0
    let kind: Int32 = switch scene.kind { case .rain: 0; case .pyramid: 1; case .jointGrid: 2; case .fieldSwarm: 3 }
    items.withUnsafeBufferPointer { ip in walls.withUnsafeBufferPointer { wp in links.withUnsafeBufferPointer { lp in
        stepMs.withUnsafeMutableBufferPointer { sp in centers.withUnsafeMutableBufferPointer { cp in lengths.withUnsafeMutableBufferPointer { lenp in
            var s = dk_scene(kind: kind, gravity: scene.gravity ? 1 : 0, collisions: scene.collisions ? 1 : 0,
                             item_count: Int32(scene.items.count), items: ip.baseAddress, wall_count: Int32(scene.walls.count),
                             walls: wp.baseAddress, link_count: Int32(scene.links.count), links: lp.baseAddress,
                             steps: Int32(profile.steps), dt: profile.timeStep, benchmark_state: state)
            var r = dk_result(step_ms: sp.baseAddress, centers: cp.baseAddress, link_lengths: lenp.baseAddress, awake: 0)
            _ = peer == .box2d ? dk_box2d_run(&s, &r) : dk_chipmunk_run(&s, &r)
            awake = r.awake
        } } }
    } } }
    let c = (0..<scene.items.count).map { SIMD2(centers[2 * $0], centers[2 * $0 + 1]) }
    return Run(stepMs: stepMs, statistics: SceneStatistics(scene: scene, centers: c, linkLengths: lengths),
               awake: Int(awake), bytesPerItem: nil)
}

// MARK: - registration

/// Registered bodies, kept alive for the run; the C side gets the index as its context.
var bodies: [(UnsafeMutableRawPointer) -> Void] = []

func register(_ name: String, _ body: @escaping (UnsafeMutableRawPointer) -> Void) {
    bodies.append(body)
    dk_benchmark_register(name, { state, context in
        bodies[Int(bitPattern: context) - 1](state!)
    }, UnsafeMutableRawPointer(bitPattern: bodies.count))
}

let files: [URL]
do {
    files = try FileManager.default.contentsOfDirectory(at: profilesDirectory, includingPropertiesForKeys: nil)
        .filter { $0.pathExtension == "json" && $0.lastPathComponent != "baselines.json" }
        .sorted { $0.lastPathComponent < $1.lastPathComponent }
} catch {
    FileHandle.standardError.write("DynamicsBenchmarks: cannot list the profiles in \(profilesDirectory.path): \(error)\n".data(using: .utf8)!)
    exit(1)
}
var profiles: [Profile] = []
/// Profiles that reproduce no SCENES.md scene: the peers cannot build them, so they run through the object API only.
var ownProfiles: [Profile] = []
for url in files {
    do {
        let p = try Profile(contentsOf: url)
        if p.scene != nil { profiles.append(p) } else { ownProfiles.append(p) }
    } catch {
        FileHandle.standardError.write("DynamicsBenchmarks: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
}
if profiles.isEmpty && ownProfiles.isEmpty {
    FileHandle.standardError.write("DynamicsBenchmarks: no profiles (.json files) in \(profilesDirectory.path)\n".data(using: .utf8)!)
    exit(1)
}
// Scene order as in Benchmarks/SCENES.md, then size.
let order: [BenchmarkScene.Kind] = [.rain, .pyramid, .jointGrid, .fieldSwarm]
profiles.sort { a, b in
    let ka = order.firstIndex(of: a.scene!.kind)!, kb = order.firstIndex(of: b.scene!.kind)!
    if ka != kb { return ka < kb }
    if a.scene!.size != b.scene!.size { return a.scene!.size < b.scene!.size }
    return a.warmupSteps < b.warmupSteps
}
for profile in profiles {
    let scene = profile.scene!
    let label = profile.warmupSteps > 0 ? "settled_pile" : scene.kind.rawValue
    let suffix = "\(label)/\(scene.size)"
    register("DynamicsKit/\(suffix)") { state in
        while dk_benchmark_keep_running(state) != 0 {
            do { report(state, profile, try runCore(profile, state)) } catch { dk_benchmark_skip_with_error(state, "\(error)") }
        }
    }
    if World.vectorLanes > 4 {
        // The same core run with the C kernels held to the 4 lanes of the portable (SSE2) build.
        register("DynamicsKit4Lanes/\(suffix)") { state in
            try? World.limitVectorLanes(to: 4)
            defer { try? World.limitVectorLanes(to: nil) }
            while dk_benchmark_keep_running(state) != 0 {
                do { report(state, profile, try runCore(profile, state)) } catch { dk_benchmark_skip_with_error(state, "\(error)") }
            }
        }
    }
    if WorkerPool.processorCount >= 2 {
        // The same core run on two threads (the other rows run on one, as the peers do).
        register("DynamicsKit2Workers/\(suffix)") { state in
            while dk_benchmark_keep_running(state) != 0 {
                do { report(state, profile, try runCore(profile, state, workers: 2)) } catch { dk_benchmark_skip_with_error(state, "\(error)") }
            }
        }
    }
    register("DynamicsKitObjects/\(suffix)") { state in
        while dk_benchmark_keep_running(state) != 0 { report(state, profile, runObjects(profile, state)) }
    }
    register("Box2D/\(suffix)") { state in
        while dk_benchmark_keep_running(state) != 0 { report(state, profile, runPeer(.box2d, profile, state)) }
    }
    register("Chipmunk/\(suffix)") { state in
        while dk_benchmark_keep_running(state) != 0 { report(state, profile, runPeer(.chipmunk, profile, state)) }
    }
}

// A profile of one's own (no `scene`): the object API only, as DynamicsKitObjects/profile/NAME.
for profile in ownProfiles {
    register("DynamicsKitObjects/profile/\(profile.name)") { state in
        while dk_benchmark_keep_running(state) != 0 { report(state, profile, runObjects(profile, state)) }
    }
}

// Google Benchmark removes the flags it recognizes by moving the later pointers down in place, so the array it gets
// is scratch: the strings are freed from a separate list of what was allocated.
let ownedArguments = arguments.map { strdup($0) }
var cArguments = ownedArguments
let status = dk_benchmark_main(Int32(cArguments.count), &cArguments)
ownedArguments.forEach { free($0) }
exit(status)
