import XCTest
import DynamicsKit
@testable import DynamicsReplay

final class RecordingTests: XCTestCase {
    /// A box with a floor at the reference bounds, a pendulum on an anchor and a snap: something of every kind.
    func makeScene() -> (DynamicAnimator, [HeadlessItem]) {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 400, height: 300))
        let box = HeadlessItem(center: CGPoint(x: 100, y: 50), size: CGSize(width: 40, height: 20), name: "box", color: "#123456")
        let bob = HeadlessItem(center: CGPoint(x: 300, y: 150), size: CGSize(width: 20, height: 20), name: "bob",
                               collisionBoundsType: .ellipse)
        let card = HeadlessItem(center: CGPoint(x: 200, y: 100), size: CGSize(width: 30, height: 30))
        animator.addBehavior(GravityBehavior(items: [box, bob]))
        let collision = CollisionBehavior(items: [box])
        collision.translatesReferenceBoundsIntoBoundary = true
        collision.addBoundary(withIdentifier: "shelf", from: CGPoint(x: 0, y: 200), to: CGPoint(x: 150, y: 200))
        animator.addBehavior(collision)
        animator.addBehavior(AttachmentBehavior(item: bob, attachedToAnchor: CGPoint(x: 300, y: 50)))
        animator.addBehavior(SnapBehavior(item: card, snapTo: CGPoint(x: 250, y: 250)))
        return (animator, [box, bob, card])
    }

    func test_recordsAFrameEveryKSteps_withEveryKindOfRecord() throws {
        let (animator, items) = makeScene()
        let recorder = Recorder(animator: animator, items: items, title: "test", every: 3)
        for _ in 0..<10 { animator.step() }
        recorder.finish()
        let r = recorder.recording
        // Frame 0 at the start, steps 3, 6, 9, and the last step (10) on finish.
        XCTAssertEqual(r.frameCount, 5)
        XCTAssertEqual(r.times.map { ($0 * 60).rounded() }, [0, 3, 6, 9, 10])
        XCTAssertEqual(r.states.count, 5 * 3 * 3)
        XCTAssertEqual(r.items.map(\.name), ["box", "bob", "item 2"])
        XCTAssertEqual(r.items[0].color, "#123456")
        XCTAssertTrue(r.items[1].ellipse)
        XCTAssertEqual(r.viewBox, CGRect(x: 0, y: 0, width: 400, height: 300))
        // The last frame is where the items are now.
        XCTAssertEqual(Double(r.states[4 * 9]), Double(items[0].center.x), accuracy: 1e-3)
        XCTAssertEqual(Double(r.states[4 * 9 + 1]), Double(items[0].center.y), accuracy: 1e-3)
        XCTAssertEqual(r.joints[4].count, 4)
        XCTAssertEqual(Double(r.joints[4][2]), 300, accuracy: 1e-6)
        XCTAssertEqual(r.snaps[4], [Float(items[2].center.x), Float(items[2].center.y), 250, 250])
        // The frame and the shelf: one change, at frame 0.
        XCTAssertEqual(r.boundaryChanges.count, 1)
        XCTAssertEqual(r.boundaries(atFrame: 4).count, 2)
        XCTAssertEqual(r.frame(at: 0.1), 2)
        XCTAssertEqual(r.frame(at: 100), 4)
    }

    func test_contactEvents_areRecordedInTheFrameAfterThem() throws {
        let (animator, items) = makeScene()
        let recorder = Recorder(animator: animator, items: items, title: "test", every: 1)
        for _ in 0..<120 { animator.step() }
        let r = recorder.recording
        // The box lands on the shelf: contact began at its bottom, y = 200.
        let landing = try XCTUnwrap(r.contacts.firstIndex { !$0.isEmpty })
        XCTAssertGreaterThan(landing, 1)
        XCTAssertEqual(Double(r.contacts[landing][1]), 200, accuracy: 2)
    }

    func test_csv_hasAHeaderDescribingTheColumns_andOneRowPerRecord() throws {
        let (animator, items) = makeScene()
        let recorder = Recorder(animator: animator, items: items, title: "test, with a comma", every: 2)
        for _ in 0..<4 { animator.step() }
        let lines = recorder.recording.csv().split(separator: "\n").map(String.init)
        let header = lines.filter { $0.hasPrefix("#") }
        XCTAssertTrue(header.contains { $0.hasPrefix("# columns: record") })
        XCTAssertTrue(header.contains { $0 == "# item 1: bob 20x20 ellipse #4e79a7" || $0.hasPrefix("# item 1: bob 20x20 ellipse") })
        let rows = lines.filter { !$0.hasPrefix("#") }
        XCTAssertEqual(rows.first, "record,frame,time,index,name,x,y,angle,vx,vy,spin,awake,x2,y2,first,second,boundary")
        XCTAssertTrue(rows.dropFirst().allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 17 })
        // 3 frames × (1 frame row + 3 items + 1 joint + 1 snap), and the 5 boundary segments once.
        let kinds = Dictionary(grouping: rows.dropFirst(), by: { $0.split(separator: ",")[0] }).mapValues(\.count)
        XCTAssertEqual(kinds["frame"], 3)
        XCTAssertEqual(kinds["item"], 9)
        XCTAssertEqual(kinds["joint"], 3)
        XCTAssertEqual(kinds["snap"], 3)
        XCTAssertEqual(kinds["boundary"], 5)
    }

    /// What an analysis needs from a recording: each item's velocities and whether it is awake, the awake count
    /// from the first frame on, and every contact begun and ended with what touched what.
    func test_aRecording_holdsVelocitiesAwakeFlagsAndContactPartners() throws {
        let (animator, items) = makeScene()
        let recorder = Recorder(animator: animator, items: items, title: "analysis", every: 1)
        for _ in 0..<90 { animator.step() }
        let r = recorder.recording
        XCTAssertEqual(r.awake[0], 3, "the first frame counts the items the first step moves")
        XCTAssertEqual(r.velocities.count, r.states.count)
        XCTAssertEqual(r.itemAwake.count, 3 * r.frameCount)
        // The box falls: after 10 steps it moves down at about g·t.
        XCTAssertEqual(Double(r.velocities[(10 * 3 + 0) * 3 + 1]), 1000.0 * 10 / 60, accuracy: 20)
        XCTAssertEqual(r.itemAwake[10 * 3 + 0], 1)
        // It lands on the shelf: a contact of item 0 with the boundary "shelf", where it began.
        let landing = try XCTUnwrap(r.contactEvents.joined().first { $0.began && $0.boundary == "shelf" })
        XCTAssertEqual(landing.first, 0)
        XCTAssertEqual(landing.second, -1)
        XCTAssertEqual(Double(landing.y), 200, accuracy: 2)
        let csv = r.csv().split(separator: "\n")
        XCTAssertTrue(csv.contains { $0.hasPrefix("contact,") && $0.hasSuffix(",0,,shelf") }, "the CSV names the boundary")
        XCTAssertTrue(csv.contains { $0.hasPrefix("item,10,") && $0.contains(",box,") })
        let frame = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.jsonLines().split(separator: "\n")[1].utf8)) as? [String: Any])
        XCTAssertEqual(frame["awake"] as? Int, 3)
        XCTAssertEqual((frame["velocities"] as? [Double])?.count, 9)
        XCTAssertEqual(frame["itemAwake"] as? [Int], [1, 1, 1])
    }

    func test_jsonLines_parse_withAHeaderLine() throws {
        let (animator, items) = makeScene()
        let recorder = Recorder(animator: animator, items: items, title: "quote \" and </script>", every: 1)
        for _ in 0..<3 { animator.step() }
        let lines = recorder.recording.jsonLines().split(separator: "\n")
        XCTAssertEqual(lines.count, 1 + 4)
        let header = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(header["format"] as? String, "dynamics-recording")
        XCTAssertEqual(header["title"] as? String, "quote \" and </script>")
        XCTAssertEqual((header["items"] as? [[String: Any]])?.count, 3)
        XCTAssertNotNil(header["fields"])
        for (k, line) in lines.dropFirst().enumerated() {
            let frame = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertEqual(frame["frame"] as? Int, k)
            XCTAssertEqual((frame["items"] as? [Double])?.count, 9)
            XCTAssertEqual(frame["boundaries"] != nil, k == 0)
        }
    }

    func test_svg_drawsEveryItemAndTheBoundaries() {
        let (animator, items) = makeScene()
        let recorder = Recorder(animator: animator, items: items, title: "t", every: 1)
        for _ in 0..<30 { animator.step() }
        let svg = recorder.recording.svg(at: 0.25)
        XCTAssertTrue(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 400 300\""))
        XCTAssertTrue(svg.contains("at t = 0.25 s"))
        XCTAssertTrue(svg.contains(">t = 0.25 s</text>"), "the snapshot shows its time")
        XCTAssertEqual(svg.components(separatedBy: "<rect ").count - 1, 1 + 2)   // background, box, card
        XCTAssertEqual(svg.components(separatedBy: "<ellipse ").count - 1, 1)
        XCTAssertEqual(svg.components(separatedBy: "<polyline ").count - 1, 2)
        XCTAssertTrue(svg.hasSuffix("</svg>\n"))
    }

    /// An item whose bounds an action changes (a button that grows) is recorded with its size from each frame on,
    /// in every format, and drawn at that size.
    func test_anItemWhoseBoundsChange_isRecordedAndDrawnAtItsSize() throws {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 400, height: 300))
        let button = HeadlessItem(center: CGPoint(x: 200, y: 150), size: CGSize(width: 100, height: 40), name: "button")
        let grow = DynamicBehavior()
        grow.action = { button.bounds.size.width += 10 }
        animator.addBehavior(grow)
        animator.addBehavior(GravityBehavior(items: [HeadlessItem(center: CGPoint(x: 50, y: 50), size: CGSize(width: 10, height: 10))]))
        let recorder = Recorder(animator: animator, items: [button], title: "grow", every: 2)
        for _ in 0..<6 { animator.step() }
        let r = recorder.recording
        XCTAssertEqual(r.sizeChanges.map(\.frame), [1, 2, 3])
        XCTAssertEqual(r.sizeChanges.map(\.width), [120, 140, 160])
        XCTAssertEqual(r.sizes(atFrame: 0)[0].width, 100)
        XCTAssertEqual(r.sizes(atFrame: 2)[0].width, 140)
        XCTAssertEqual(r.csv().split(separator: "\n").filter { $0.hasPrefix("size,") },
                       ["size,1,0.03333333333333333,0,button,120,40,,,,,,,,,,", "size,2,0.06666666666666667,0,button,140,40,,,,,,,,,,",
                        "size,3,0.09999999999999999,0,button,160,40,,,,,,,,,,"])
        let frame2 = try XCTUnwrap(r.jsonLines().split(separator: "\n").dropFirst(3).first)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(frame2.utf8)) as? [String: Any])
        XCTAssertEqual(object["sizes"] as? [Double], [0, 140, 40])
        XCTAssertTrue(r.svg(at: 0.07).contains("width=\"140\" height=\"40\""))
        XCTAssertTrue(ReplayPage.html([r], title: "grow").contains("\"sizes\":[[1,0,120,40],[2,0,140,40],[3,0,160,40]]"))
    }

    func test_replayPage_isSelfContained_andCarriesTheStatesAsFloat32() throws {
        let (animator, items) = makeScene()
        let recorder = Recorder(animator: animator, items: items, title: "page </script> test", every: 1)
        for _ in 0..<5 { animator.step() }
        recorder.recording.summary = "a box, a pendulum and a snap"
        recorder.recording.outcome = "ran 5 steps"
        let html = ReplayPage.html([recorder.recording, recorder.recording], title: "two")
        for legend in ["items, in their colors", "boundaries", "reference bounds", "attachments", "snap targets", "contacts"] {
            XCTAssertTrue(html.contains(legend), "the legend names \(legend)")
        }
        XCTAssertFalse(html.contains("http://") || html.contains("https://"), "the page must not fetch anything")
        XCTAssertEqual(html.components(separatedBy: "</script>").count - 1, 2, "an embedded title closed a script")
        let start = try XCTUnwrap(html.range(of: "<script id=\"data\" type=\"application/json\">"))
        let end = try XCTUnwrap(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let data = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(html[start.upperBound..<end.lowerBound].utf8)) as? [String: Any])
        let recordings = try XCTUnwrap(data["recordings"] as? [[String: Any]])
        XCTAssertEqual(recordings.count, 2)
        XCTAssertEqual(recordings[0]["summary"] as? String, "a box, a pendulum and a snap")
        XCTAssertEqual(recordings[0]["outcome"] as? String, "ran 5 steps")
        let bytes = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(recordings[0]["states"] as? String)))
        let floats = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        XCTAssertEqual(floats, recorder.recording.states)
    }
}
