import XCTest
import DynamicsKit
@testable import DynamicsReplay

/// Recordings of a `World` driven through the bulk API, without an animator.
final class WorldRecorderTests: XCTestCase {
    /// Three boxes falling onto a static floor line at y = 200.
    func makeWorld() throws -> (World, [BodyID]) {
        let world = World()
        world.setCollisionMatrix(classCount: 2) { a, b in a == 1 && b == 1 }
        var floor = BodyDefinition(); floor.type = .static; floor.collisionClass = 1; floor.restitution = 0
        floor.shapes = [ShapeDefinition(.segment(Vec2(0, 200), Vec2(400, 200)), mass: 0)]
        try world.createBody(floor)
        var ids: [BodyID] = []
        for k in 0..<3 {
            var box = BodyDefinition.box(center: Vec2(100 + 60 * Float(k), 100), width: 20, height: 20)
            box.gravity = Vec2(0, 1000); box.collisionClass = 1; box.restitution = 0
            ids.append(try world.createBody(box))
        }
        return (world, ids)
    }

    func test_aWorldRecording_holdsEveryBodysPathTheContactsAndTheAwakeCount() throws {
        let (world, ids) = try makeWorld()
        let items = ids.indices.map { RecordedItem(name: "box \($0)", width: 20, height: 20, color: "#4e79a7") }
        let recorder = try WorldRecorder(world: world, bodies: ids, items: items, title: "boxes", viewBox: CGRect(x: 0, y: 0, width: 400, height: 300),
                                         stepTime: 1.0 / 60, every: 2, boundaries: [[CGPoint(x: 0, y: 200), CGPoint(x: 400, y: 200)]])
        for _ in 0..<61 { try world.step(dt: 1.0 / 60, substeps: 4); recorder.stepped() }
        recorder.finish()
        let r = recorder.recording
        XCTAssertEqual(r.frameCount, 1 + 30 + 1, "the start, every second step, and the last")
        XCTAssertEqual(r.times.last!, 61.0 / 60, accuracy: 1e-9)
        XCTAssertEqual(r.states.count, 3 * 3 * r.frameCount)
        XCTAssertEqual(r.states[1], 100)
        // At the end every box rests on the floor: its center 10 above it.
        for k in 0..<3 { XCTAssertEqual(Double(r.states[r.states.count - 9 + 3 * k + 1]), 190, accuracy: 1) }
        XCTAssertEqual(r.contacts.flatMap { $0 }.count, 2 * 3, "each box's landing, once")
        XCTAssertEqual(r.contactEvents.joined().filter(\.began).map(\.second), [-1, -1, -1], "each against the floor, which is not recorded")
        XCTAssertEqual(Double(r.velocities[3 * 3 * 10 + 1]), 1000.0 * 20 / 60, accuracy: 20, "falling at g·t after 20 steps")
        XCTAssertEqual(Array(r.itemAwake.suffix(3)), [0, 0, 0], "at rest on the floor at the end")
        XCTAssertEqual(r.awake.first, 3)
        XCTAssertEqual(r.boundaries(atFrame: 10).first?.count, 2)
        let csv = r.csv()
        XCTAssertTrue(csv.contains("box 2"), String(csv.prefix(400)))
        XCTAssertTrue(ReplayPage.html([r], title: "boxes").contains("boxes"))

        // A body destroyed while recording stays where it was last seen.
        try world.destroyBody(ids[0])
        try world.step(dt: 1.0 / 60, substeps: 4); recorder.stepped(); recorder.stepped()
        XCTAssertEqual(r.states[r.states.count - 9], r.states[r.states.count - 18])
    }

    func test_badRecorderInput_isRefusedWithTheRule() throws {
        let (world, ids) = try makeWorld()
        let one = [RecordedItem(name: "a", width: 1, height: 1, color: "#000")]
        let view = CGRect(x: 0, y: 0, width: 10, height: 10)
        let cases: [(() throws -> WorldRecorder, String)] = [
            ({ try WorldRecorder(world: world, bodies: ids, items: one, title: "", viewBox: view, stepTime: 1) }, "3 bodies but 1 recorded items"),
            ({ try WorldRecorder(world: world, bodies: [ids[0]], items: one, title: "", viewBox: view, stepTime: 1, every: 0) }, "every must be at least 1"),
            ({ try WorldRecorder(world: world, bodies: [ids[0]], items: one, title: "", viewBox: .zero, stepTime: 1) }, "finite, positive size"),
            ({ try WorldRecorder(world: world, bodies: [ids[0]], items: one, title: "", viewBox: view, stepTime: .nan) }, "stepTime must be positive"),
        ]
        for (make, expected) in cases {
            XCTAssertThrowsError(try make()) { XCTAssertTrue("\($0)".contains(expected), "\($0)") }
        }
        try world.destroyBody(ids[1])
        XCTAssertThrowsError(try WorldRecorder(world: world, bodies: [ids[1]], items: one, title: "", viewBox: view, stepTime: 1)) {
            XCTAssertTrue("\($0)".contains("is stale or was never created"), "\($0)")
        }
    }
}
