import DynamicsSandbox
import Foundation
import HummingbirdWebSocket
import NIOCore

/// Owns the session and the connected pages. Input is queued as it arrives and applied, in that order, at the next
/// step boundary; frames go out to every page through a short queue of its own, so one slow page never holds up
/// the simulation or the others (a page that falls behind skips frames, is told how many, and gets a key frame
/// next so that its picture is whole again).
actor Hub {
    private let session: PlaySession
    private let maxPages: Int
    private let rate: Double
    private var pages: [Int: Page] = [:]
    private var nextPage = 1
    private var queue: [(page: Int, input: PlayInput)] = []
    private var stepsTaken = 0
    private var stepWindow: [(ContinuousClock.Instant, Int)] = []
    private let clock = ContinuousClock()
    private var lastFrameBytes = 0
    private(set) var framesSent = 0
    private(set) var bytesSent = 0
    private var refusedTotal = 0
    private var peakPages = 0

    /// What a page is sent.
    enum Outgoing: Sendable {
        case text(String)
        case binary([UInt8])
        case close(String)
    }

    final class Page {
        let id: Int
        let continuation: AsyncStream<Outgoing>.Continuation
        var sceneVersion = -1
        var needsKey = true
        var skipped = 0
        var tokens: Double
        var lastRefill: ContinuousClock.Instant
        var refused = 0
        var lastRefusalNote: ContinuousClock.Instant?
        init(id: Int, continuation: AsyncStream<Outgoing>.Continuation, tokens: Double, now: ContinuousClock.Instant) {
            self.id = id; self.continuation = continuation; self.tokens = tokens; lastRefill = now
        }
    }

    /// Frames a page may have waiting before it skips one.
    static let queueDepth = 8
    /// A page refused this many messages in a row for flooding is disconnected.
    static let floodLimit = 2000

    init(session: PlaySession, maxPages: Int, rate: Double) {
        self.session = session
        self.maxPages = maxPages
        self.rate = rate
    }

    var timeStep: Double { session.animator.timeStep }
    var speed: Double { session.speed }

    func withSession<T>(_ body: (PlaySession) throws -> T) rethrows -> T { try body(session) }

    // MARK: Pages

    /// Serves one WebSocket connection until it closes.
    nonisolated func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let (stream, continuation) = AsyncStream<Outgoing>.makeStream(bufferingPolicy: .bufferingOldest(Self.queueDepth))
        guard let id = await connect(continuation) else {
            try? await outbound.writeTextMessage(Self.errorJSON("the sandbox already serves \(maxPages) pages; close one and reload"))
            try? await outbound.close(.policyViolation, reason: "too many pages")
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in stream {
                    do {
                        switch message {
                        case let .text(s): try await outbound.writeTextMessage(s)
                        case let .binary(b): try await outbound.writeBinaryMessage(ByteBuffer(bytes: b))
                        case let .close(reason):
                            try await outbound.close(.policyViolation, reason: reason)
                            return
                        }
                    } catch { return }
                }
            }
            group.addTask {
                do {
                    for try await message in inbound.messages(maxSize: 1 << 16) {
                        switch message {
                        case let .text(text): await self.receive(text, from: id)
                        case .binary: await self.refuse(id, "binary messages are not read: send JSON text")
                        }
                    }
                } catch {
                    // Larger than 64 KB, or not WebSocket: the connection is closed.
                }
                await self.disconnect(id)
            }
            await group.next()
            group.cancelAll()
        }
        await disconnect(id)
    }

    private func connect(_ continuation: AsyncStream<Outgoing>.Continuation) -> Int? {
        guard pages.count < maxPages else { return nil }
        let id = nextPage
        nextPage += 1
        pages[id] = Page(id: id, continuation: continuation, tokens: rate / 2, now: clock.now)
        peakPages = max(peakPages, pages.count)
        sendScene(to: pages[id]!)
        return id
    }

    private func disconnect(_ id: Int) {
        guard let page = pages.removeValue(forKey: id) else { return }
        page.continuation.finish()
        // Pointers the page held are let go between steps, like any input.
        queue.append((id, .up(pointer: -1, snapBack: false, velocity: .zero)))
    }

    private func receive(_ text: String, from id: Int) {
        guard let page = pages[id] else { return }
        let now = clock.now
        page.tokens = min(rate / 2, page.tokens + rate * ((now - page.lastRefill) / .seconds(1)))
        page.lastRefill = now
        guard page.tokens >= 1 else {
            page.refused += 1
            refusedTotal += 1
            if page.refused >= Self.floodLimit {
                _ = page.continuation.yield(.close("flooding: more than \(Int(rate)) messages a second"))
                return
            }
            // One note a second at most, so that answering a flood does not become one.
            if page.lastRefusalNote.map({ now - $0 >= .seconds(1) }) ?? true {
                page.lastRefusalNote = now
                send(.text(Self.errorJSON("too many messages: at most \(Int(rate)) a second; \(page.refused) refused so far")), to: page)
            }
            return
        }
        page.tokens -= 1
        do {
            let input = try PlayInput(json: text)
            page.refused = 0
            queue.append((id, input))
        } catch {
            refuse(id, "\(error)")
        }
    }

    private func refuse(_ id: Int, _ message: String) {
        guard let page = pages[id] else { return }
        refusedTotal += 1
        send(.text(Self.errorJSON(message)), to: page)
    }

    static func errorJSON(_ message: String) -> String {
        "{\"kind\":\"error\",\"message\":\(jsonText(message))}"
    }

    static func jsonText(_ s: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: [s], options: [.fragmentsAllowed])
        let array = data.flatMap { String(data: $0, encoding: .utf8) } ?? "[\"\"]"
        return String(array.dropFirst().dropLast())
    }

    /// Queues a message for a page; a frame that does not fit is skipped (counted, and the next frame is a key frame).
    private func send(_ message: Outgoing, to page: Page) {
        switch page.continuation.yield(message) {
        case .enqueued:
            if case let .binary(b) = message { framesSent += 1; bytesSent += b.count }
        case .dropped:
            if case .binary = message { page.skipped += 1; page.needsKey = true } else { page.sceneVersion = -1 }
        case .terminated: break
        @unknown default: break
        }
    }

    private func sendScene(to page: Page) {
        page.sceneVersion = session.sceneVersion
        page.needsKey = true
        send(.text(session.sceneJSON()), to: page)
    }

    // MARK: Stepping

    /// Applies the queued input, takes `steps` steps and sends the frame (and, with `sendStats`, the figures).
    func tick(steps: Int, sendStats: Bool) {
        let pending = queue
        queue.removeAll(keepingCapacity: true)
        for (id, input) in pending {
            if case .up(pointer: -1, _, _) = input { session.release(client: id); continue }
            do { try session.apply(input, from: id) } catch {
                if let page = pages[id] { send(.text(Self.errorJSON("\(error)")), to: page) }
            }
        }
        for _ in 0..<steps { session.advance() }
        if !session.paused { stepsTaken += steps }
        let now = clock.now
        stepWindow.append((now, session.steps))
        while let first = stepWindow.first, now - first.0 > .seconds(2) { stepWindow.removeFirst() }
        guard !pages.isEmpty else { return }
        let frame = session.captureFrame()
        lastFrameBytes = frame.delta.count
        for page in pages.values.sorted(by: { $0.id < $1.id }) {
            if page.sceneVersion != session.sceneVersion { sendScene(to: page) }
            if page.needsKey {
                page.needsKey = false
                send(.binary(frame.key), to: page)
            } else {
                send(.binary(frame.delta), to: page)
            }
        }
        if sendStats {
            var stepsPerSecond = 0.0
            if let first = stepWindow.first, let last = stepWindow.last, last.0 > first.0 {
                stepsPerSecond = Double(last.1 - first.1) / ((last.0 - first.0) / .seconds(1))
            }
            for page in pages.values.sorted(by: { $0.id < $1.id }) {
                let extra = ",\"bytesPerFrame\":\(lastFrameBytes),\"dropped\":\(page.skipped),\"page\":\(page.id)"
                send(.text(session.statsJSON(stepsPerSecond: stepsPerSecond, clients: pages.count, extra: extra)), to: page)
            }
        }
    }

    func summary() -> String {
        "served \(peakPages) page(s) at most at once; \(session.steps) steps, \(framesSent) frames (\(bytesSent) bytes) sent, \(refusedTotal) messages refused"
    }
}
