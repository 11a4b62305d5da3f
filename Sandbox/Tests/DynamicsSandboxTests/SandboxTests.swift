import DynamicsKit
import DynamicsSandbox
import Foundation
import XCTest

final class SandboxTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    static func profile(_ name: String) throws -> (String, String) {
        let url = name == "space" ? root.appendingPathComponent("Profiles/space.json")
            : root.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Profiles/\(name).json")
        return (try String(contentsOf: url, encoding: .utf8), url.lastPathComponent)
    }
    static func session(_ name: String = "space", workers: Int? = 1) throws -> PlaySession {
        let (json, file) = try profile(name)
        return try PlaySession(profileJSON: json, file: file, workerCount: workers)
    }

    // MARK: Messages

    func test_messagesReadBackFromTheirOwnJSON() throws {
        let inputs: [PlayInput] = [.down(pointer: 3, x: 10.5, y: -2), .move(pointer: 0, x: 1e5, y: 0.25), .up(pointer: 15, snapBack: true),
                                   .up(pointer: 1, snapBack: false, velocity: CGVector(dx: 300.5, dy: -20)),
                                   .pause, .play, .step, .reset, .speed(0.25), .tilt(angle: -1.5), .spawn(x: 1, y: 2, ball: true)]
        for input in inputs { XCTAssertEqual(try PlayInput(json: input.json), input, input.json) }
    }

    func test_badMessagesAreRefusedWithTheRuleBroken() {
        func refusal(_ text: String) -> String {
            do { _ = try PlayInput(json: text); XCTFail("accepted \(text)"); return "" } catch { return "\(error)" }
        }
        XCTAssertTrue(refusal("{not json").contains("malformed message"))
        XCTAssertTrue(refusal("[1,2]").contains("malformed message"))
        XCTAssertTrue(refusal("{\"x\":1}").contains("malformed message"))
        XCTAssertTrue(refusal("{\"kind\":\"explode\"}").contains("unknown message kind 'explode'"))
        XCTAssertTrue(refusal("{\"kind\":\"down\",\"pointer\":0,\"x\":1}").contains("down: missing 'y'"))
        XCTAssertTrue(refusal("{\"kind\":\"down\",\"pointer\":0,\"x\":\"1\",\"y\":2}").contains("down: 'x' must be a number"))
        XCTAssertTrue(refusal("{\"kind\":\"move\",\"pointer\":0,\"x\":2e6,\"y\":2}").contains("within ±1,000,000 points"))
        XCTAssertTrue(refusal("{\"kind\":\"move\",\"pointer\":99,\"x\":2,\"y\":2}").contains("'pointer' must be a whole number from 0 to 15"))
        XCTAssertTrue(refusal("{\"kind\":\"move\",\"pointer\":1.5,\"x\":2,\"y\":2}").contains("'pointer' must be a whole number"))
        XCTAssertTrue(refusal("{\"kind\":\"up\",\"pointer\":0,\"snapBack\":1}").contains("'snapBack' must be true or false"))
        XCTAssertTrue(refusal("{\"kind\":\"up\",\"pointer\":0,\"vx\":2e5}").contains("up: 'vx' must be within ±100,000 points/s"))
        XCTAssertTrue(refusal("{\"kind\":\"up\",\"pointer\":0,\"vx\":20}").contains("up: missing 'vy'"))
        XCTAssertTrue(refusal("{\"kind\":\"speed\",\"value\":100}").contains("speed: 'value' must be from 0.25 to 4"))
        XCTAssertTrue(refusal("{\"kind\":\"pause\",\"extra\":1}").contains("pause: unknown field 'extra'"))
        XCTAssertTrue(refusal("{\"kind\":\"tilt\",\"angle\":1e999}").contains("tilt: 'angle' must be a number"))
        XCTAssertTrue(refusal(String(repeating: " ", count: 2000) + "{}").contains("the limit is 1024"))
    }

    // MARK: Gestures

    func test_dragMovesTheItemWithThePointerAndAFlickThrowsItThatWay() throws {
        let s = try Self.session()
        let target = s.items[0]
        XCTAssertEqual(target.center, CGPoint(x: 400, y: 300))
        try s.apply(.down(pointer: 0, x: 410, y: 305), from: 1)
        XCTAssertEqual(s.animator.behaviors.compactMap { $0 as? AttachmentBehavior }.count, 1)
        // Drag 100 points right over 10 steps: the item follows (the grabbed point stays under the pointer).
        for k in 1...10 {
            try s.apply(.move(pointer: 0, x: 410 + 10 * Double(k), y: 305), from: 1)
            s.advance()
        }
        for _ in 0..<5 { s.advance() }
        let grabbed = try XCTUnwrap(s.animator.behaviors.compactMap { $0 as? AttachmentBehavior }.first).attachmentPoints.0
        XCTAssertEqual(grabbed.x, 510, accuracy: 2)
        XCTAssertEqual(grabbed.y, 305, accuracy: 2)
        XCTAssertEqual(target.center.x, 500, accuracy: 12, "the center trails the grabbed point")
        // A flick up and to the right at 45°, then let go: it flies on that way.
        for k in 1...4 {
            try s.apply(.move(pointer: 0, x: 510 + 15 * Double(k), y: 305 - 15 * Double(k)), from: 1)
            s.advance()
        }
        try s.apply(.up(pointer: 0, snapBack: false), from: 1)
        XCTAssertTrue(s.animator.behaviors.compactMap { $0 as? AttachmentBehavior }.isEmpty)
        let from = target.center
        for _ in 0..<6 { s.advance() }
        let d = CGPoint(x: target.center.x - from.x, y: target.center.y - from.y)
        let degrees = atan2(-d.y, d.x) * 180 / .pi
        XCTAssertEqual(degrees, 45, accuracy: 5, "flew toward \(degrees)°")
        XCTAssertGreaterThan(hypot(d.x, d.y), 60, "it keeps the flick's speed (900 pt/s)")
    }

    func test_theReleaseVelocityIsTheItemsVelocityAsUIKitDragCodeGivesIt() throws {
        let s = try Self.session()
        let target = s.items[0]
        try s.apply(.down(pointer: 0, x: 400, y: 300), from: 1)
        for k in 1...5 { try s.apply(.move(pointer: 0, x: 400 + 5 * Double(k), y: 300), from: 1); s.advance() }
        // Let go moving down-left at 600 pt/s, whatever the drag was doing.
        try s.apply(.up(pointer: 0, snapBack: false, velocity: CGVector(dx: -300, dy: 519.6)), from: 1)
        s.advance()
        let v = try XCTUnwrap(s.animator.itemStates().first { $0.item === target }).velocity
        XCTAssertEqual(v.x, -300, accuracy: 1)
        XCTAssertEqual(v.y, 519.6, accuracy: 1)
        // Without a velocity, the item keeps the one the drag gave it.
        try s.apply(.down(pointer: 0, x: target.center.x, y: target.center.y), from: 1)
        for k in 1...5 { try s.apply(.move(pointer: 0, x: target.center.x, y: target.center.y - 10 * Double(k)), from: 1); s.advance() }
        try s.apply(.up(pointer: 0, snapBack: false), from: 1)
        s.advance()
        XCTAssertLessThan(try XCTUnwrap(s.animator.itemStates().first { $0.item === target }).velocity.y, -100)
    }

    func test_snapBackReturnsTheItemToWhereItWasPickedUp() throws {
        let s = try Self.session()
        let box = s.items[1]
        let start = box.center
        try s.apply(.down(pointer: 2, x: start.x, y: start.y), from: 7)
        for k in 1...20 { try s.apply(.move(pointer: 2, x: start.x + 8 * Double(k), y: start.y + 6 * Double(k)), from: 7); s.advance() }
        XCTAssertGreaterThan(box.center.x - start.x, 100)
        try s.apply(.up(pointer: 2, snapBack: true), from: 7)
        XCTAssertEqual(s.animator.behaviors.compactMap { $0 as? SnapBehavior }.count, 1)
        for _ in 0..<180 { s.advance() }
        XCTAssertEqual(box.center.x, start.x, accuracy: 1)
        XCTAssertEqual(box.center.y, start.y, accuracy: 1)
        // A new drag of the same item takes the snap away, as UIKit code does on touch down.
        try s.apply(.down(pointer: 0, x: start.x, y: start.y), from: 7)
        XCTAssertTrue(s.animator.behaviors.compactMap { $0 as? SnapBehavior }.isEmpty)
    }

    func test_aPointerOnTheBackgroundDragsNothingAndAPageThatLeavesLetsGo() throws {
        let s = try Self.session()
        try s.apply(.down(pointer: 0, x: 700, y: 500), from: 1)
        XCTAssertTrue(s.heldPointers.isEmpty)
        try s.apply(.down(pointer: 0, x: 400, y: 300), from: 1)
        try s.apply(.down(pointer: 1, x: 100, y: 80), from: 2)
        XCTAssertThrowsError(try s.apply(.down(pointer: 0, x: 400, y: 300), from: 1))
        XCTAssertEqual(s.heldPointers.map(\.client), [1, 2])
        s.release(client: 1)
        XCTAssertEqual(s.heldPointers.map(\.client), [2])
        XCTAssertEqual(s.animator.behaviors.compactMap { $0 as? AttachmentBehavior }.count, 1)
    }

    func test_toolbarPauseStepResetTiltSpawn() throws {
        let s = try Self.session("sandbox")
        try s.apply(.pause, from: 1)
        s.advance()
        XCTAssertEqual(s.steps, 0, "paused: no step")
        try s.apply(.step, from: 1)
        XCTAssertEqual(s.steps, 1)
        try s.apply(.play, from: 1)
        XCTAssertThrowsError(try s.apply(.step, from: 1)) { XCTAssertTrue("\($0)".contains("pause first")) }
        try s.apply(.tilt(angle: 0), from: 1)
        let gravity = try XCTUnwrap(s.animator.behaviors.compactMap { $0 as? GravityBehavior }.first)
        XCTAssertEqual(gravity.angle, 0, accuracy: 1e-9)
        let n = s.items.count, version = s.sceneVersion
        try s.apply(.spawn(x: 450, y: 40, ball: true), from: 1)
        XCTAssertEqual(s.items.count, n + 1)
        XCTAssertGreaterThan(s.sceneVersion, version)
        for _ in 0..<30 { s.advance() }
        XCTAssertGreaterThan(s.items[n].center.x, 450, "the spawned ball falls toward +x, where gravity now points")
        try s.apply(.reset, from: 1)
        XCTAssertEqual(s.items.count, n)
        XCTAssertEqual(s.items[0].center, try Self.session("sandbox").items[0].center)
        XCTAssertEqual(try XCTUnwrap(s.animator.behaviors.compactMap { $0 as? GravityBehavior }.first).angle, .pi / 2, accuracy: 1e-9)
    }

    func test_tiltWithoutGravityIsRefused() throws {
        XCTAssertThrowsError(try Self.session().apply(.tilt(angle: 1), from: 1)) {
            XCTAssertTrue("\($0)".contains("tilt: this scene has no gravity behavior"))
        }
    }

    // MARK: Frames

    func test_keyAndDeltaFramesCarryTheStateAndOnlyWhatChanged() throws {
        let s = try Self.session()
        let first = s.captureFrame()
        let key = try XCTUnwrap(PlayFrame.decode(first.key))
        XCTAssertEqual(key.kind, .key)
        XCTAssertEqual(key.itemCount, s.items.count)
        XCTAssertEqual(key.entries.count, s.items.count)
        XCTAssertEqual(key.entries[3].x, Float(s.items[3].center.x))
        // At rest nothing changes: the delta is empty.
        try s.apply(.pause, from: 1)
        let still = try XCTUnwrap(PlayFrame.decode(s.captureFrame().delta))
        XCTAssertEqual(still.kind, .delta)
        XCTAssertEqual(still.entries.count, 0)
        // A dragged item: the delta lists it, and the attachment line.
        try s.apply(.play, from: 1)
        let plank = 0
        try s.apply(.down(pointer: 0, x: s.items[plank].center.x, y: s.items[plank].center.y), from: 1)
        try s.apply(.move(pointer: 0, x: s.items[plank].center.x + 30, y: s.items[plank].center.y), from: 1)
        s.advance()
        let moved = try XCTUnwrap(PlayFrame.decode(s.captureFrame().delta))
        XCTAssertTrue(moved.entries.contains { $0.index == plank && $0.x == Float(s.items[plank].center.x) })
        XCTAssertLessThan(moved.entries.count, s.items.count)
        XCTAssertEqual(moved.joints.count, 4)
        XCTAssertEqual(moved.step, 1)
    }

    // MARK: The input log

    func test_aLoggedSessionReSimulatesBitForBitOnAnyNumberOfWorkers() throws {
        let s = try Self.session("sandbox", workers: 2)
        let log = SessionLog(session: s, every: 4)
        // Two pages: one drags and throws, the other tilts, spawns and resets midway; inputs interleave.
        for k in 0..<40 { s.advance(); if k == 5 { try s.apply(.down(pointer: 0, x: 450, y: 120), from: 1) } }
        for k in 1...15 { try s.apply(.move(pointer: 0, x: 450 + 12 * Double(k), y: 120 - 5 * Double(k)), from: 1); s.advance() }
        try s.apply(.tilt(angle: 1.2), from: 2)
        try s.apply(.up(pointer: 0, snapBack: false), from: 1)
        for _ in 0..<30 { s.advance() }
        try s.apply(.spawn(x: 300, y: 50, ball: false), from: 2)
        try s.apply(.pause, from: 2)
        s.advance()
        try s.apply(.step, from: 1)
        try s.apply(.play, from: 1)
        for _ in 0..<20 { s.advance() }
        try s.apply(.down(pointer: 3, x: 140, y: 560), from: 2)
        for _ in 0..<10 { s.advance() }
        s.release(client: 2)
        for _ in 0..<25 { s.advance() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let prefix = dir.appendingPathComponent("session").path
        try log.write(prefix: prefix, session: s)
        XCTAssertEqual(log.recordings.count, 2, "a segment for the start and one from the spawn")
        let text = try String(contentsOfFile: prefix + ".jsonl", encoding: .utf8)
        for workers in [1, 2, 3] {
            let r = try SessionLog.resimulate(text: text, file: "session.jsonl", workerCount: workers)
            XCTAssertTrue(r.identical, "\(workers) workers: \(r.hash) vs \(r.recordedHash)")
            XCTAssertEqual(r.steps, s.steps)
            XCTAssertEqual(r.inputs, log.inputCount)
        }
        let page = try String(contentsOfFile: prefix + ".html", encoding: .utf8)
        XCTAssertTrue(page.contains("drawScene("))
        // A log cut short, or with an input moved, is caught.
        let cut = text.split(separator: "\n").dropLast().joined(separator: "\n")
        XCTAssertThrowsError(try SessionLog.resimulate(text: cut, file: "cut.jsonl")) { XCTAssertTrue("\($0)".contains("no end line")) }
        let moved = text.replacingOccurrences(of: "\"kind\":\"tilt\",\"angle\":1.2", with: "\"kind\":\"tilt\",\"angle\":1.3")
        XCTAssertFalse(try SessionLog.resimulate(text: moved, file: "moved.jsonl").identical)
    }
}
