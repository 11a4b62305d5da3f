import ArgumentParser
import DynamicsDemos
import DynamicsKit
import DynamicsSandbox
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// `dynamics-play`: the live sandbox. Serves one page on a local address; the simulation runs here at a fixed step
/// and streams to every page connected, and pages drag, flick and throw its items.
@main
struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dynamics-play",
        abstract: "A live sandbox in the browser: drag, flick and throw the items of a running simulation.",
        discussion: """
            Starts a web server on 127.0.0.1 and prints the page's address. Pointer down on an item attaches it to the \
            pointer (a zero-length attachment, as UIKit code drags), moving drags it, letting go throws it with its \
            velocity (holding Alt, or with 'snap back' ticked, snaps it back). The toolbar pauses, steps, resets, \
            changes the speed, tilts gravity and spawns items. Several pages may connect; they see one world, and \
            input from any is applied in arrival order between steps. Ctrl-C stops the server (and writes the \
            recording).
            """)

    @Argument(help: "A profile: a name from `dynamics list` (Profiles/NAME.json), a demo that has a profile, or a .json path.")
    var scene: String = "sandbox"

    @Option(help: "The address to listen on. Anything but 127.0.0.1 or localhost lets other machines in.")
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one.")
    var port = 8080

    @Option(help: "The folder of the profiles the name is looked up in.")
    var profiles: String?

    @Option(help: "Write the input log to PREFIX.jsonl and the frames, as a replay page, to PREFIX.html when the server stops.")
    var record: String?

    @Option(help: "Record a frame every N steps.")
    var every = 1

    @Option(help: "The most pages connected at once.")
    var maxPages = 8

    @Option(help: "The most messages a page may send per second (pointer moves included); more are refused.")
    var rate = 240

    @Option(help: "Threads each step runs on (default: the machine's cores).")
    var workers: Int?

    @Option(help: "Re-simulate a recorded input log headless and compare its final state with the recorded one.")
    var resimulate: String?

    @Option(help: "Stop after this many seconds (for scripted runs).")
    var duration: Double?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535, got \(port)") }
        guard every >= 1 else { throw ValidationError("--every must be at least 1, got \(every)") }
        guard (1...64).contains(maxPages) else { throw ValidationError("--max-pages must be from 1 to 64, got \(maxPages)") }
        guard (10...10_000).contains(rate) else { throw ValidationError("--rate must be from 10 to 10,000 messages/s, got \(rate)") }
        if let w = workers, !(1...64).contains(w) { throw ValidationError("--workers must be from 1 to 64, got \(w)") }
        if let d = duration, !(d.isFinite && d > 0) { throw ValidationError("--duration must be a positive number of seconds, got \(d)") }
    }

    func run() async throws {
        if let log = resimulate { return try replay(log) }
        let (json, file) = try loadProfile()
        let session: PlaySession
        do { session = try PlaySession(profileJSON: json, file: file, workerCount: workers) } catch {
            throw CleanExit.message("dynamics-play: \(error)")
        }
        let recorder = record.map { _ in SessionLog(session: session, every: every) }
        let hub = Hub(session: session, maxPages: maxPages, rate: Double(rate))
        if host != "127.0.0.1" && host != "localhost" && host != "::1" {
            FileHandle.standardError.write(Data("dynamics-play: warning: listening on \(host): other machines can reach the sandbox and drive its simulation\n".utf8))
        }
        var logger = Logger(label: "dynamics-play")
        logger.logLevel = .warning
        let router = Router()
        let page = PlayPage.html(title: "DynamicsKit sandbox: \(session.profile.name)")
        router.get("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
        }
        router.get("/health") { _, _ in "ok" }
        let itemCount = session.items.count, name = session.profile.name
        let loop = SimulationLoop(hub: hub, duration: duration)
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(configuration: .init(maxFrameSize: 1 << 16)) { request, _, _ in
                guard request.path == "/ws" else { return .dontUpgrade }
                return .upgrade([:]) { inbound, outbound, _ in
                    await hub.serve(inbound: inbound, outbound: outbound)
                }
            },
            configuration: .init(address: .hostname(host, port: port), serverName: "dynamics-play"),
            services: [loop],
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                let shown = host.contains(":") ? "[\(host)]" : host
                print("DynamicsKit sandbox: http://\(shown):\(bound)/  (\(name), \(itemCount) items; Ctrl-C stops it)")
                fflush(stdout)
            },
            logger: logger
        )
        try await app.runService()
        if let recorder, let prefix = record {
            try await hub.withSession { s in try recorder.write(prefix: prefix, session: s) }
            print("recorded \(recorder.inputCount) inputs to \(prefix).jsonl and the frames to \(prefix).html")
        }
        let summary = await hub.summary()
        print(summary)
    }

    func loadProfile() throws -> (String, String) {
        var path = scene
        if !scene.hasSuffix(".json") {
            let dir = profiles ?? Self.profilesFolder()
            path = dir + "/" + scene + ".json"
            guard FileManager.default.fileExists(atPath: path) else {
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
                    .filter { $0.hasSuffix(".json") && $0 != "baselines.json" }.map { String($0.dropLast(5)) }.sorted()
                if Demo.named(scene) != nil {
                    let playable = Demo.all.map(\.name).filter { names.contains($0) }
                    throw ValidationError("demo '\(scene)' is scripted: its gestures are part of it (`dynamics demo \(scene)` runs it); the demos that can be played are: \(playable.joined(separator: ", "))")
                }
                throw ValidationError("no profile or demo named '\(scene)' in \(dir); the profiles are: \(names.joined(separator: ", "))")
            }
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw ValidationError("\(path): cannot be read") }
        return (text, (path as NSString).lastPathComponent)
    }

    /// The repository's Profiles folder: beside the working directory's, or the one this source was built from.
    static func profilesFolder() -> String {
        for candidate in ["Profiles", "../Profiles"] where FileManager.default.fileExists(atPath: candidate + "/sandbox.json") {
            return candidate
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Profiles").path
    }

    func replay(_ path: String) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw ValidationError("\(path): cannot be read") }
        let r: SessionLog.Replay
        do { r = try SessionLog.resimulate(text: text, file: path, workerCount: workers) } catch {
            throw CleanExit.message("dynamics-play: \(error)")
        }
        print("re-simulated \(r.inputs) inputs over \(r.steps) steps: state hash \(r.hash), recorded \(r.recordedHash): \(r.identical ? "identical" : "DIFFERENT")")
        if !r.identical { throw ExitCode(1) }
    }
}

/// Runs the simulation at its fixed step (scaled by the speed), applying the pages' input between steps and sending
/// each page a frame per step taken (at most one per display frame) and the figures four times a second.
struct SimulationLoop: Service {
    let hub: Hub
    let duration: Double?

    func run() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let period = await hub.timeStep
        var next = start
        var owed = 0.0
        var tick = 0
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if let d = duration, (clock.now - start) / .seconds(1) >= d { break }
            owed += await hub.speed
            let steps = Int(owed)
            owed -= Double(steps)
            await hub.tick(steps: steps, sendStats: tick % 15 == 0)
            tick += 1
            next = next.advanced(by: .seconds(period))
            // Behind by more than a few frames (a slow machine, a huge scene): start afresh rather than race.
            if clock.now - next > .seconds(4 * period) { next = clock.now }
            try? await Task.sleep(until: next, clock: clock)
        }
        if !Task.isShuttingDownGracefully {
            // A scripted run (--duration) ends the whole server as Ctrl-C would, and waits for it to wind down.
            kill(getpid(), SIGTERM)
            try? await gracefulShutdown()
        }
    }
}
