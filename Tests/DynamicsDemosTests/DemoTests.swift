import XCTest
import DynamicsReplay
@testable import DynamicsDemos

/// Every demo's outcome holds (each demo checks its own), and recording one changes nothing it computes.
final class DemoTests: XCTestCase {
    func test_everyDemo_reachesItsOutcome() {
        for demo in Demo.all {
            let (result, recordings) = demo.run()
            XCTAssertTrue(result.ok, "\(demo.name): \(result.summary)")
            XCTAssertTrue(recordings.isEmpty)
        }
    }

    func test_names_areUniqueAndFindable() {
        let names = Demo.all.map(\.name)
        XCTAssertEqual(Set(names).count, names.count)
        for name in names { XCTAssertEqual(Demo.named(name)?.name, name) }
        XCTAssertNil(Demo.named("no-such-demo"))
        XCTAssertTrue(Demo.all.allSatisfy { !$0.summary.isEmpty })
    }

    func test_recordingADemo_changesNothing_andCapturesItsFrames() throws {
        let demo = try XCTUnwrap(Demo.named("bouncy-fall"))
        let plain = demo.run().result
        let (recorded, recordings) = demo.run(recordEvery: 2)
        XCTAssertEqual(plain.summary, recorded.summary)
        let r = try XCTUnwrap(recordings.first)
        XCTAssertEqual(r.items.count, 5)
        XCTAssertGreaterThan(r.frameCount, 50)
        XCTAssertTrue(r.contacts.contains { !$0.isEmpty }, "the bounces are recorded as contact events")
    }
}
