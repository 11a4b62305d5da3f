import XCTest
@testable import DynamicsKit

/// Hostile input at the object API: every case is refused with a message naming the rule, changes nothing, and
/// never crashes (README, "Units and rules": `SupportedRange`).
final class RobustnessTests: XCTestCase {
    var recorder: ViolationRecorder!
    override func setUp() { recorder = ViolationRecorder() }
    override func tearDown() { recorder.restore() }

    private func expectRefused(_ words: [String], file: StaticString = #filePath, line: UInt = #line, _ body: () -> Void) {
        let before = recorder.messages.count
        body()
        XCTAssertEqual(recorder.messages.count, before + 1, "one violation reported", file: file, line: line)
        let message = recorder.messages.last ?? ""
        for w in words { XCTAssertTrue(message.contains(w), "'\(message)' names '\(w)'", file: file, line: line) }
    }

    private func fallingBox() -> (UIDynamicAnimator, HeadlessItem) {
        let animator = UIDynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 400, height: 400))
        let item = HeadlessItem(frame: CGRect(x: 180, y: 100, width: 40, height: 40), name: "box")
        animator.addBehavior(UIGravityBehavior(items: [item]))
        let c = UICollisionBehavior(items: [item])
        c.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(c)
        return (animator, item)
    }

    func test_timeStepOutsideTenMicrosecondsToOneSecond_isRefused_andTheStepStillRuns() {
        let (animator, item) = fallingBox()
        for bad in [1e-50, 3.4e38, 0, -1, .nan, .infinity, 2] {
            expectRefused(["timeStep", "between"]) { animator.timeStep = bad }
            XCTAssertEqual(animator.timeStep, 1.0 / 60)
        }
        expectRefused(["substepCount", "between 1 and 64"]) { animator.substepCount = 100_000 }
        animator.run(seconds: 1)
        XCTAssertTrue(item.center.y.isFinite)
    }

    func test_itemsInANonFiniteRect_isRefused() {
        let (animator, _) = fallingBox()
        expectRefused(["items(in:)", "finite"]) { XCTAssertTrue(animator.items(in: CGRect(x: CGFloat.nan, y: 0, width: 10, height: 10)).isEmpty) }
        XCTAssertEqual(animator.items(in: CGRect(x: 0, y: 0, width: 400, height: 400)).count, 1)
    }

    func test_noiseAndTurbulence_farAwayOrFast_stayFinite() {
        for (far, speed): (CGFloat, CGFloat) in [(1e6, 0), (0, 1e6)] {
            let animator = UIDynamicAnimator()
            let item = HeadlessItem(frame: CGRect(x: far, y: far, width: 10, height: 10))
            let noise = UIFieldBehavior.noiseField(smoothness: 0.5, animationSpeed: speed)
            let turbulence = UIFieldBehavior.turbulenceField(smoothness: 0.5, animationSpeed: speed)
            noise.addItem(item); turbulence.addItem(item)
            animator.addBehavior(noise); animator.addBehavior(turbulence)
            let push = UIDynamicItemBehavior(items: [item])
            push.addLinearVelocity(CGPoint(x: 100, y: 0), for: item)
            animator.addBehavior(push)
            animator.run(seconds: 5)
            XCTAssertTrue(item.center.x.isFinite && item.center.y.isFinite)
        }
        expectRefused(["animationSpeed"]) { UIFieldBehavior.noiseField(smoothness: 0.5, animationSpeed: 0).animationSpeed = 1e10 }
    }

    func test_regionDeeperThanTheLimit_isRefused_andADeepOneWorks() {
        var region = Region(radius: 10)
        for _ in 0..<(Region.maximumDepth - 1) { region = region.union(with: Region(radius: 5)) }
        XCTAssertTrue(recorder.messages.isEmpty)
        expectRefused(["deeper than 1000"]) { region = region.union(with: Region(radius: 5)) }
        let animator = UIDynamicAnimator()
        let item = HeadlessItem(frame: CGRect(x: 0, y: 0, width: 10, height: 10))
        let field = UIFieldBehavior.linearGravityField(direction: CGVector(dx: 1, dy: 0))
        field.region = region
        field.addItem(item)
        animator.addBehavior(field)
        animator.run(seconds: 0.1)
        XCTAssertGreaterThan(item.center.x, 0, "the deep region holds the item and the field moves it")
    }

    func test_hugePathItem_isRefused_withoutCrashing() {
        let animator = UIDynamicAnimator()
        let path = UIBezierPath(ovalIn: CGRect(x: -5e38, y: -5e38, width: 1e39, height: 1e39))
        let item = HeadlessItem(center: .zero, size: CGSize(width: 1e39, height: 1e39), collisionBoundsType: .path, collisionBoundingPath: path)
        expectRefused(["bounds", "100,000"]) { animator.addBehavior(UIGravityBehavior(items: [item])) }
        XCTAssertFalse(path.polylines().isEmpty, "flattening a huge curve does not trap")
        XCTAssertEqual(animator.itemCount, 0)
    }

    func test_stepFromInsideAnAction_isRefused_andChangesNothing() {
        let (animator, item) = fallingBox()
        var inner: Bool?
        var observedCenter: CGPoint?
        let watcher = UIDynamicBehavior()
        watcher.action = {
            observedCenter = item.center
            inner = animator.step()
            XCTAssertEqual(item.center, observedCenter)
            animator.runUntilPaused(timeout: 1)
            animator.advance(by: 1)
        }
        animator.addBehavior(watcher)
        let elapsed = animator.elapsedTime
        animator.step()
        XCTAssertEqual(inner, false)
        XCTAssertEqual(animator.elapsedTime, elapsed + animator.timeStep, "one step, not more")
        XCTAssertTrue(recorder.messages.allSatisfy { $0.contains("step() cannot be called from inside") })
        XCTAssertGreaterThanOrEqual(recorder.messages.count, 1)
    }

    func test_valuesBeyondTheSupportedRange_areRefusedWhereTheyAreSet() {
        let item = HeadlessItem(frame: CGRect(x: 0, y: 0, width: 10, height: 10), name: "far")
        let animator = UIDynamicAnimator()
        item.center = CGPoint(x: 1e30, y: 0)
        expectRefused(["'far'", "center", "1,000,000"]) { animator.addBehavior(UIGravityBehavior(items: [item])) }
        item.center = .zero
        for size: CGFloat in [1e15, 1e30, 1e-30] {
            let odd = HeadlessItem(center: .zero, size: CGSize(width: size, height: 10))
            expectRefused(["bounds", "0.01 and 100,000"]) { animator.addBehavior(UIGravityBehavior(items: [odd])) }
        }
        let gravity = UIGravityBehavior(items: [item])
        expectRefused(["magnitude", "1,000,000"]) { gravity.magnitude = -1e30 }
        let props = UIDynamicItemBehavior(items: [item])
        expectRefused(["friction"]) { props.friction = 1e30 }
        expectRefused(["density"]) { props.density = 1e300 }
        expectRefused(["velocity", "100,000"]) { props.addLinearVelocity(CGPoint(x: 1e30, y: 0), for: item) }
        let snap = UISnapBehavior(item: item, snapTo: .zero)
        expectRefused(["snapPoint"]) { snap.snapPoint = CGPoint(x: 1e300, y: 0) }
        let attachment = UIAttachmentBehavior(item: item, attachedToAnchor: .zero)
        expectRefused(["anchorPoint"]) { attachment.anchorPoint = CGPoint(x: -1e30, y: 0) }
        let field = UIFieldBehavior.springField()
        expectRefused(["strength"]) { field.strength = 1e300 }
        expectRefused(["falloff", "±4"]) { field.falloff = 40 }
        let collision = UICollisionBehavior(items: [item])
        expectRefused(["boundary", "1,000,000"]) { collision.addBoundary(withIdentifier: "far", from: CGPoint(x: 1e300, y: 0), to: .zero) }
        expectRefused(["insets"]) { collision.setTranslatesReferenceBoundsIntoBoundary(with: UIEdgeInsets(top: 1e300, left: 0, bottom: 0, right: 0)) }
        XCTAssertEqual(gravity.magnitude, 1)
        XCTAssertEqual(props.friction, 0.2)
        XCTAssertEqual(snap.snapPoint, .zero)
        XCTAssertEqual(field.strength, 1)
        XCTAssertNil(collision.boundaryIdentifiers)
    }

    func test_advanceAndRunUntilPaused_refuseToRunForEver() {
        let (animator, _) = fallingBox()
        expectRefused(["advance(by:", "1,000,000 steps"]) { animator.advance(by: 1e30) }
        expectRefused(["runUntilPaused", "1,000,000 steps"]) { animator.runUntilPaused(timeout: 1e300) }
        animator.timeStep = 1e-5
        expectRefused(["advance(by:", "1,000,000 steps"]) { animator.advance(by: 100) }
        XCTAssertEqual(animator.elapsedTime, 0, "nothing ran")
        animator.timeStep = 1.0 / 60
        XCTAssertTrue(animator.runUntilPaused(timeout: 10))
    }
}
