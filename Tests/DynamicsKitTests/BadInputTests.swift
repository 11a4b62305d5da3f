import XCTest
@testable import DynamicsKit

/// "Misuse that UIKit reports with an exception ... is a clear, documented error": each case must report a
/// message naming the item or behavior and the rule, change nothing, and let no NaN into the world.
final class BadInputTests: XCTestCase {
    var recorder: ViolationRecorder!
    override func setUp() { recorder = ViolationRecorder() }
    override func tearDown() { recorder.restore() }

    func expectViolation(_ fragments: [String], file: StaticString = #filePath, line: UInt = #line, _ body: () -> Void) {
        let before = recorder.messages.count
        body()
        XCTAssertEqual(recorder.messages.count, before + 1, "expected one violation", file: file, line: line)
        guard let message = recorder.last, recorder.messages.count > before else { return }
        for f in fragments {
            XCTAssertTrue(message.localizedCaseInsensitiveContains(f), "'\(message)' should mention '\(f)'", file: file, line: line)
        }
    }

    /// Every numeric property that takes a user value, with the values it must refuse.
    func test_edgeCaseTable_everyNumericEntryPointRefusesNaNAndInfinity() {
        let item = box(0, 0, 20, name: "crate")
        let bad: [CGFloat] = [.nan, .infinity, -.infinity]
        let gravity = GravityBehavior(items: [item]); gravity.name = "g"
        let push = PushBehavior(items: [item], mode: .continuous); push.name = "p"
        let snap = SnapBehavior(item: item, snapTo: .zero)
        let attach = AttachmentBehavior(item: item, attachedToAnchor: CGPoint(x: 0, y: 50))
        let props = DynamicItemBehavior(items: [item])
        let setters: [(String, (CGFloat) -> Void, () -> CGFloat)] = [
            ("magnitude", { gravity.magnitude = $0 }, { gravity.magnitude }),
            ("angle", { gravity.angle = $0 }, { gravity.angle }),
            ("gravityDirection", { gravity.gravityDirection = CGVector(dx: $0, dy: 1) }, { gravity.gravityDirection.dx }),
            ("magnitude", { push.magnitude = $0 }, { push.magnitude }),
            ("pushDirection", { push.pushDirection = CGVector(dx: 1, dy: $0) }, { push.pushDirection.dy }),
            ("snapPoint", { snap.snapPoint = CGPoint(x: $0, y: 0) }, { snap.snapPoint.x }),
            ("damping", { snap.damping = $0 }, { snap.damping }),
            ("anchorPoint", { attach.anchorPoint = CGPoint(x: 0, y: $0) }, { attach.anchorPoint.y }),
            ("length", { attach.length = $0 }, { attach.length }),
            ("frequency", { attach.frequency = $0 }, { attach.frequency }),
            ("damping", { attach.damping = $0 }, { attach.damping }),
            ("frictionTorque", { attach.frictionTorque = $0 }, { attach.frictionTorque }),
            ("elasticity", { props.elasticity = $0 }, { props.elasticity }),
            ("friction", { props.friction = $0 }, { props.friction }),
            ("density", { props.density = $0 }, { props.density }),
            ("resistance", { props.resistance = $0 }, { props.resistance }),
            ("angularResistance", { props.angularResistance = $0 }, { props.angularResistance }),
            ("charge", { props.charge = $0 }, { props.charge }),
        ]
        for (name, set, get) in setters {
            let before = get()
            for v in bad {
                expectViolation([name]) { set(v) }
                XCTAssertEqual(get().bitPattern, before.bitPattern, "\(name) changed after refusing \(v)")
            }
        }
        expectViolation(["velocity", "crate"]) { props.addLinearVelocity(CGPoint(x: CGFloat.nan, y: 0), for: item) }
        expectViolation(["angular velocity", "crate"]) { props.addAngularVelocity(.infinity, for: item) }
        expectViolation(["offset"]) { push.setTargetOffsetFromCenter(UIOffset(horizontal: .nan, vertical: 0), for: item) }
        expectViolation(["insets"]) { CollisionBehavior().setTranslatesReferenceBoundsIntoBoundary(with: UIEdgeInsets(top: .nan, left: 0, bottom: 0, right: 0)) }
        expectViolation(["boundary", "finite"]) { CollisionBehavior().addBoundary(withIdentifier: "x", from: CGPoint(x: CGFloat.infinity, y: 0), to: .zero) }
    }

    func test_negativeValues_areRefusedWhereTheRuleSaysSo() {
        let props = DynamicItemBehavior()
        expectViolation(["density", "positive"]) { props.density = -1 }
        expectViolation(["density", "positive"]) { props.density = 0 }
        expectViolation(["resistance", "negative"]) { props.resistance = -0.5 }
        expectViolation(["friction", "negative"]) { props.friction = -0.1 }
        let snap = SnapBehavior(item: box(0, 0), snapTo: .zero)
        expectViolation(["damping", "0...1"]) { snap.damping = 1.5 }
        XCTAssertEqual(props.density, 1)
    }

    /// "Bounds must have non-zero, finite width and height ... refused with a clear error at the call that adds it."
    func test_zeroOrNonFiniteSizes_andPositions_areRefusedWhenTheItemJoins() {
        let animator = DynamicAnimator()
        for (size, center) in [(CGSize(width: 0, height: 10), CGPoint.zero), (CGSize(width: -5, height: 10), .zero),
                               (CGSize(width: CGFloat.nan, height: 10), .zero), (CGSize(width: 10, height: CGFloat.infinity), .zero),
                               (CGSize(width: 10, height: 10), CGPoint(x: CGFloat.nan, y: 0))] {
            let item = HeadlessItem(center: center, size: size, name: "bad")
            let g = GravityBehavior(items: [item])
            expectViolation(["'bad'"]) { animator.addBehavior(g) }
            XCTAssertTrue(animator.behaviors.isEmpty)
            XCTAssertNil(g.dynamicAnimator)
        }
        // addItem on a behavior already in an animator validates at that call.
        let g = GravityBehavior()
        animator.addBehavior(g)
        expectViolation(["bounds", "'flat'"]) { g.addItem(HeadlessItem(center: .zero, size: CGSize(width: 10, height: 0), name: "flat")) }
        XCTAssertTrue(g.items.isEmpty)
        animator.step()
        XCTAssertEqual(animator.world.bodyCount, 0)
    }

    /// "a .path must be convex and not self-crossing" (either winding is accepted).
    func test_concaveOrSelfCrossingPaths_areRefused_andClockwisePathsReversed() {
        let animator = DynamicAnimator()
        let concave = BezierPath()
        concave.move(to: CGPoint(x: -20, y: -20)); concave.addLine(to: CGPoint(x: 0, y: 0)); concave.addLine(to: CGPoint(x: 20, y: -20))
        concave.addLine(to: CGPoint(x: 20, y: 20)); concave.addLine(to: CGPoint(x: -20, y: 20)); concave.close()
        let bowtie = BezierPath()
        bowtie.move(to: CGPoint(x: -20, y: -20)); bowtie.addLine(to: CGPoint(x: 20, y: 20))
        bowtie.addLine(to: CGPoint(x: 20, y: -20)); bowtie.addLine(to: CGPoint(x: -20, y: 20)); bowtie.close()
        for (path, rule) in [(concave, "convex"), (bowtie, "not convex")] {
            let item = HeadlessItem(center: .zero, size: CGSize(width: 40, height: 40), name: "shape", collisionBoundsType: .path, collisionBoundingPath: path)
            expectViolation(["'shape'", "collisionBoundingPath", rule]) { animator.addBehavior(GravityBehavior(items: [item])) }
        }
        let clockwise = BezierPath()
        clockwise.move(to: CGPoint(x: -20, y: -20)); clockwise.addLine(to: CGPoint(x: 20, y: -20))
        clockwise.addLine(to: CGPoint(x: 20, y: 20)); clockwise.addLine(to: CGPoint(x: -20, y: 20)); clockwise.close()
        let ok = HeadlessItem(center: .zero, size: CGSize(width: 40, height: 40), collisionBoundsType: .path, collisionBoundingPath: clockwise)
        animator.addBehavior(GravityBehavior(items: [ok]))
        animator.step()
        XCTAssertEqual(recorder.messages.count, 2)
        XCTAssertEqual(animator.world.bodyCount, 1)
    }

    /// "Adding a behavior that is already in this animator's tree, or in another animator, is refused."
    func test_behaviorInTwoAnimatorsOrTwiceInOneTree_isRefused() {
        let a = DynamicAnimator(), b = DynamicAnimator()
        let g = GravityBehavior(items: [box(0, 0)])
        a.addBehavior(g)
        expectViolation(["GravityBehavior", "this animator"]) { a.addBehavior(g) }
        expectViolation(["GravityBehavior", "another animator"]) { b.addBehavior(g) }
        let parent = DynamicBehavior()
        a.addBehavior(parent)
        expectViolation(["already in an animator"]) { parent.addChildBehavior(g) }
        let child = DynamicBehavior()
        parent.addChildBehavior(child)
        expectViolation(["already has a parent"]) { DynamicBehavior().addChildBehavior(child) }
        let outerParent = DynamicBehavior(), outerChild = DynamicBehavior()
        outerParent.addChildBehavior(outerChild)
        expectViolation(["cycle"]) { outerChild.addChildBehavior(outerParent) }
        XCTAssertEqual(a.behaviors.count, 2)
        XCTAssertTrue(b.behaviors.isEmpty)
    }

    /// "an attachment range without 0" is refused.
    func test_attachmentRangeWithoutZero_isRefused() {
        let pin = AttachmentBehavior.pinAttachment(with: box(0, 0), attachedTo: box(10, 0), attachmentAnchor: .zero)
        expectViolation(["attachmentRange", "contain 0"]) { pin.attachmentRange = UIFloatRange(minimum: 0.1, maximum: 1) }
        expectViolation(["attachmentRange"]) { pin.attachmentRange = UIFloatRange(minimum: .nan, maximum: 1) }
        XCTAssertTrue(pin.attachmentRange.isInfinite)
        expectViolation(["axis"]) { _ = AttachmentBehavior.slidingAttachment(with: box(0, 0), attachmentAnchor: .zero, axisOfTranslation: .zero) }
    }

    /// "removing what is not there" is refused.
    func test_removingWhatIsNotThere_isRefused() {
        let animator = DynamicAnimator()
        let g = GravityBehavior()
        expectViolation(["GravityBehavior", "not a top-level behavior"]) { animator.removeBehavior(g) }
        expectViolation(["does not hold"]) { g.removeItem(box(0, 0, name: "ghost")) }
        expectViolation(["not a child"]) { DynamicBehavior().removeChildBehavior(g) }
        expectViolation(["no boundary", "'nope'"]) { CollisionBehavior().removeBoundary(withIdentifier: "nope") }
        expectViolation(["not in this animator"]) { animator.updateItem(usingCurrentState: box(0, 0)) }
    }

    func test_animatorSettings_refuseBadValues() {
        let animator = DynamicAnimator()
        expectViolation(["timeStep"]) { animator.timeStep = 0 }
        expectViolation(["timeStep"]) { animator.timeStep = .nan }
        expectViolation(["substepCount"]) { animator.substepCount = 0 }
        expectViolation(["speed"]) { animator.speed = -1 }
        expectViolation(["advance"]) { animator.advance(by: .nan) }
        XCTAssertEqual(animator.timeStep, 1.0 / 60)
        XCTAssertEqual(animator.substepCount, 4)
    }

    /// No NaN reaches the world: after every refused input, the simulation stays finite.
    func test_afterRefusedInput_theWorldStaysFinite() {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 200, height: 200))
        let item = box(100, 100, 20)
        let g = GravityBehavior(items: [item])
        let props = DynamicItemBehavior(items: [item])
        let c = CollisionBehavior(items: [item]); c.translatesReferenceBoundsIntoBoundary = true
        for b in [g, props, c] as [DynamicBehavior] { animator.addBehavior(b) }
        g.magnitude = .nan
        props.density = .infinity
        props.addLinearVelocity(CGPoint(x: CGFloat.nan, y: 1), for: item)
        animator.run(seconds: 2)
        XCTAssertTrue(item.center.x.isFinite && item.center.y.isFinite)
        XCTAssertClose(item.center.y, 190, within: 2.5)
        XCTAssertEqual(recorder.messages.count, 3)
    }

    /// A bounds change the animator refused is not picked up later: when the item's density changes, its shapes are
    /// rebuilt from the size last accepted, not from the refused bounds still on the item. (It fails if the rebuild
    /// reads the item's bounds: a 1e30-point-tall box has an infinite moment of inertia and the item goes NaN.)
    func test_refusedBoundsChange_isNotUsedWhenTheDensityChanges() {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 200, height: 200))
        let item = box(100, 100, 20)
        let g = GravityBehavior(items: [item])
        let c = CollisionBehavior(items: [item]); c.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(g); animator.addBehavior(c)
        animator.run(seconds: 0.1)
        item.bounds.size = CGSize(width: 20, height: 1e30)
        animator.updateItem(usingCurrentState: item)
        XCTAssertEqual(recorder.messages.count, 1, "\(recorder.messages)")
        let props = DynamicItemBehavior(items: [item])
        props.density = 3
        animator.addBehavior(props)
        animator.run(seconds: 2)
        XCTAssertEqual(recorder.messages.count, 1, "\(recorder.messages)")
        XCTAssertTrue(item.center.x.isFinite && item.center.y.isFinite, "\(item)")
        XCTAssertClose(item.center.y, 190, within: 2.5)
    }
}
