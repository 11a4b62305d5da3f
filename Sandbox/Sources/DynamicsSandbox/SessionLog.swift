import DynamicsKit
import DynamicsReplay
import Foundation

/// A sandbox session on disk: the input log (JSON lines) and the frames (a replay page).
///
/// The log's first line holds the profile's source and file name; each following line one applied input with the
/// step it came before and the page that sent it; the last line the step count and the state hash at the end.
/// `SessionLog.resimulate` rebuilds the scene, applies the inputs at their steps and compares the hash:
///
/// ```
/// {"kind":"session","format":1,"file":"rain_1000.json","profile":"{…}"}
/// {"step":120,"client":1,"input":{"kind":"down","pointer":0,"x":310,"y":540}}
/// {"kind":"end","steps":900,"hash":"9c0e51d2a4b7f013"}
/// ```
public final class SessionLog {
    private var lines: [String] = []
    private var recorders: [Recorder] = []
    private let every: Int
    private var segment = 0

    /// Logs `session` from now on; with `every`, also records a frame every so many steps for the replay page.
    public init(session: PlaySession, every: Int = 1) {
        self.every = every
        lines.append("{\"kind\":\"session\",\"format\":1,\"file\":\(jsonString(session.profile.file)),\"profile\":\(jsonString(session.profileJSON))}")
        session.onApplied = { [weak self] step, client, input in
            self?.lines.append("{\"step\":\(step),\"client\":\(client),\"input\":\(input.json)}")
        }
        session.onSceneChange = { [weak self] s in self?.startSegment(s) }
        startSegment(session)
    }

    private func startSegment(_ session: PlaySession) {
        recorders.last?.finish()
        segment += 1
        let title = segment == 1 ? session.profile.name : "\(session.profile.name), from step \(session.steps)"
        let r = Recorder(animator: session.animator, items: session.items, title: title, every: every)
        r.recording.summary = "A live sandbox session: \(session.profile.summary)"
        recorders.append(r)
    }

    /// Ends the log with the session's step count and state hash and writes `PREFIX.jsonl` and `PREFIX.html`.
    public func write(prefix: String, session: PlaySession) throws {
        recorders.last?.finish()
        for r in recorders { r.recording.outcome = "ended at step \(session.steps); re-simulate with dynamics-play --resimulate \(prefix).jsonl" }
        var text = lines.joined(separator: "\n")
        text += "\n{\"kind\":\"end\",\"steps\":\(session.steps),\"hash\":\"\(String(session.stateHash(), radix: 16))\"}\n"
        try text.write(toFile: prefix + ".jsonl", atomically: true, encoding: .utf8)
        try ReplayPage.html(recordings.map { $0 }, title: "DynamicsKit sandbox: \(session.profile.name)")
            .write(toFile: prefix + ".html", atomically: true, encoding: .utf8)
    }

    public var recordings: [Recording] { recorders.map(\.recording) }
    public var inputCount: Int { lines.count - 1 }

    /// What re-simulating a log found.
    public struct Replay {
        public let steps: Int
        public let inputs: Int
        public let recordedHash: String
        public let hash: String
        public var identical: Bool { recordedHash == hash }
    }

    /// Rebuilds the logged session, applies its inputs at their steps and compares the final state's hash.
    public static func resimulate(text: String, file: String, workerCount: Int? = nil) throws -> Replay {
        let rows = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        func object(_ line: String, _ number: Int) throws -> [String: Any] {
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw PlayInputError("\(file): line \(number): not a JSON object")
            }
            return o
        }
        guard let first = rows.first else { throw PlayInputError("\(file): empty") }
        let header = try object(first, 1)
        guard header["kind"] as? String == "session", let profile = header["profile"] as? String,
              let profileFile = header["file"] as? String else {
            throw PlayInputError("\(file): line 1: expected the session header with 'profile' and 'file'")
        }
        let session = try PlaySession(profileJSON: profile, file: profileFile, workerCount: workerCount)
        var inputs = 0
        for (k, line) in rows.enumerated().dropFirst() {
            let o = try object(line, k + 1)
            if o["kind"] as? String == "end" {
                guard let steps = o["steps"] as? Int, let hash = o["hash"] as? String else {
                    throw PlayInputError("\(file): line \(k + 1): the end needs 'steps' and 'hash'")
                }
                session.advance(to: steps)
                return Replay(steps: steps, inputs: inputs, recordedHash: hash, hash: String(session.stateHash(), radix: 16))
            }
            guard let step = o["step"] as? Int, let client = o["client"] as? Int, let input = o["input"],
                  let data = try? JSONSerialization.data(withJSONObject: input), let inputText = String(data: data, encoding: .utf8) else {
                throw PlayInputError("\(file): line \(k + 1): expected 'step', 'client' and 'input'")
            }
            guard step >= session.steps else {
                throw PlayInputError("\(file): line \(k + 1): step \(step) comes before step \(session.steps), where the log already is")
            }
            do {
                session.advance(to: step)
                try session.apply(try PlayInput(json: inputText), from: client)
            } catch let e as PlayInputError {
                throw PlayInputError("\(file): line \(k + 1): \(e)")
            }
            inputs += 1
        }
        throw PlayInputError("\(file): no end line: the session did not finish writing its log")
    }
}
