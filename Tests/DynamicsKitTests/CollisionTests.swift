import XCTest
@testable import DynamicsKit
import DynamicsTestSupport

final class CollisionTests: XCTestCase {
    func fall(_ item: HeadlessItem, into animator: DynamicAnimator, configure: (CollisionBehavior) -> Void) -> CollisionBehavior {
        animator.addBehavior(GravityBehavior(items: [item]))
        let c = CollisionBehavior(items: [item])
        configure(c)
        animator.addBehavior(c)
        animator.runUntilPaused(timeout: 20)
        return c
    }

    /// "translatesReferenceBoundsIntoBoundary": an item comes to rest on the bottom edge of the reference bounds.
    func test_referenceBoundsBoundary_holdsTheItemOnTheBottomEdge() {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 400, height: 800))
        let item = box(200, 100, 50)
        _ = fall(item, into: animator) { $0.translatesReferenceBoundsIntoBoundary = true }
        XCTAssertFalse(animator.isRunning)
        XCTAssertClose(item.center.y, 775, within: 2.5)
        XCTAssertClose(item.center.x, 200, within: 2.5)
        XCTAssertClose(item.angle, 0, within: 0.02)
    }

    /// "setTranslatesReferenceBoundsIntoBoundary(with: insets)": the floor moves up by the bottom inset.
    func test_insetReferenceBounds_holdTheItemAboveTheInset() {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 400, height: 800))
        let item = box(200, 100, 50)
        let c = fall(item, into: animator) { $0.setTranslatesReferenceBoundsIntoBoundary(with: UIEdgeInsets(top: 0, left: 0, bottom: 400, right: 0)) }
        XCTAssertTrue(c.translatesReferenceBoundsIntoBoundary)
        XCTAssertClose(item.center.y, 375, within: 2.5)
    }

    /// "addBoundary(withIdentifier:from:to:)": an explicit line holds the item.
    func test_explicitBoundary_holdsTheItem() {
        let animator = DynamicAnimator()
        let item = box(0, 0, 40)
        let c = fall(item, into: animator) { $0.addBoundary(withIdentifier: "shelf", from: CGPoint(x: -100, y: 300), to: CGPoint(x: 100, y: 300)) }
        XCTAssertClose(item.center.y, 280, within: 2.5)
        XCTAssertEqual(c.hashableBoundaryIdentifiers, ["shelf"])
        XCTAssertNotNil(c.boundary(withIdentifier: "shelf"))
    }

    func test_pathBoundary_holdsTheItemOnItsCurve() {
        let animator = DynamicAnimator()
        let item = HeadlessItem(center: CGPoint(x: 0, y: 0), size: CGSize(width: 20, height: 20), collisionBoundsType: .ellipse)
        let bowl = BezierPath()
        bowl.move(to: CGPoint(x: -200, y: 100))
        bowl.addQuadCurve(to: CGPoint(x: 200, y: 100), controlPoint: CGPoint(x: 0, y: 500))
        _ = fall(item, into: animator) { $0.addBoundary(withIdentifier: "bowl", for: bowl) }
        // The curve's lowest point is y = 300 at x = 0: the ball of radius 10 settles there.
        XCTAssertClose(item.center.y, 290, within: 2.5)
        XCTAssertClose(item.center.x, 0, within: 3)
    }

    func test_boundaryIdentifiers_listAddedBoundariesOnly_andRemoveAllKeepsReferenceBounds() {
        let c = CollisionBehavior()
        XCTAssertNil(c.boundaryIdentifiers)
        c.translatesReferenceBoundsIntoBoundary = true
        XCTAssertNil(c.boundaryIdentifiers)
        c.addBoundary(withIdentifier: "a", from: .zero, to: CGPoint(x: 1, y: 0))
        c.addBoundary(withIdentifier: 7, from: .zero, to: CGPoint(x: 0, y: 1))
        XCTAssertEqual(c.hashableBoundaryIdentifiers, ["a", 7])
        c.removeBoundary(withIdentifier: "a")
        XCTAssertEqual(c.hashableBoundaryIdentifiers, [7])
        c.removeAllBoundaries()
        XCTAssertNil(c.boundaryIdentifiers)
        XCTAssertTrue(c.translatesReferenceBoundsIntoBoundary)
    }

    /// "the three collision modes": items only, boundaries only, everything.
    func test_collisionModes_decideWhatCollides() {
        // A falling item above an anchored one, and a free item beside them, in 200x400 reference bounds.
        func run(_ mode: CollisionBehavior.Mode) -> (top: CGFloat, free: CGFloat) {
            let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 200, height: 400))
            let base = box(50, 200, 40), top = box(50, 100, 40), free = box(150, 100, 40)
            let anchored = DynamicItemBehavior(items: [base]); anchored.isAnchored = true
            animator.addBehavior(anchored)
            animator.addBehavior(GravityBehavior(items: [top, free]))
            let c = CollisionBehavior(items: [base, top, free])
            c.collisionMode = mode
            c.translatesReferenceBoundsIntoBoundary = true
            animator.addBehavior(c)
            animator.run(seconds: 3)
            return (top.center.y, free.center.y)
        }
        let everything = run(.everything)
        XCTAssertClose(everything.top, 160, within: 2.5)   // rests on the anchored item
        XCTAssertClose(everything.free, 380, within: 2.5)  // rests on the floor
        let boundariesOnly = run(.boundaries)
        XCTAssertClose(boundariesOnly.top, 380, within: 2.5) // passes through the item, stops on the floor
        XCTAssertClose(boundariesOnly.free, 380, within: 2.5)
        let itemsOnly = run(.items)
        XCTAssertClose(itemsOnly.top, 160, within: 2.5)    // still rests on the item
        XCTAssertGreaterThan(itemsOnly.free, 1000)         // falls through the floor
    }

    /// "Items collide only with items of the same collision behavior."
    func test_separateCollisionBehaviors_passThroughEachOther() {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 200, height: 400))
        let a = box(100, 300, 40), b = box(100, 200, 40)
        animator.addBehavior(GravityBehavior(items: [a, b]))
        for item in [a, b] {
            let c = CollisionBehavior(items: [item])
            c.translatesReferenceBoundsIntoBoundary = true
            animator.addBehavior(c)
        }
        animator.run(seconds: 3)
        XCTAssertClose(a.center.y, 380, within: 2.5)
        XCTAssertClose(b.center.y, 380, within: 2.5)
    }

    func test_delegate_reportsItemContactsWithPoint_andBoundaryContactsWithIdentifiers() {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 200, height: 400))
        let a = box(100, 370, 60, name: "a"), b = box(100, 200, 40, name: "b")
        let log = EventLog()
        let c = CollisionBehavior(items: [a, b])
        c.translatesReferenceBoundsIntoBoundary = true
        c.addBoundary(withIdentifier: "ledge", from: CGPoint(x: 0, y: 100), to: CGPoint(x: 40, y: 100))
        c.collisionDelegate = log
        animator.addBehavior(c)
        animator.addBehavior(GravityBehavior(items: [a, b]))
        animator.run(seconds: 2)
        // b landed on a (and may have bounced a little: boundaries and items mix elasticity by max): began and
        // ended alternate, and at rest one contact is open, at a point on a's top face (y = 340).
        XCTAssertGreaterThanOrEqual(log.began.count, 1)
        XCTAssertEqual(log.began.count, log.ended.count + 1)
        for (i1, i2, p) in log.began {
            XCTAssertTrue((i1 === a && i2 === b) || (i1 === b && i2 === a))
            XCTAssertClose(p.y, 340, within: 2)
            XCTAssertClose(p.x, 100, within: 20)
        }
        // a touches the reference bounds: identifier nil.
        XCTAssertTrue(log.boundaryBegan.contains { $0.0 === a && $0.1 == nil })
        // Lifting b away ends its contact.
        let lift = PushBehavior(items: [b], mode: .instantaneous)
        lift.pushDirection = CGVector(dx: 0, dy: -1)
        animator.addBehavior(lift)
        animator.run(seconds: 0.2)
        XCTAssertEqual(log.ended.count, log.began.count)
        // Removing the item in contact with the floor reports the end of that contact.
        let endedBefore = log.boundaryEnded.count
        c.removeItem(a)
        animator.step()
        XCTAssertEqual(log.boundaryEnded.count, endedBefore + 1)
        XCTAssertTrue(log.boundaryEnded.last!.0 === a)
        XCTAssertNil(log.boundaryEnded.last!.1)
    }

    func test_delegate_reportsExplicitBoundaryIdentifier_andRemovingTheBoundaryEndsTheContact() {
        let animator = DynamicAnimator()
        let item = box(0, 0, 20)
        let log = EventLog()
        let c = CollisionBehavior(items: [item])
        c.addBoundary(withIdentifier: "floor", from: CGPoint(x: -50, y: 100), to: CGPoint(x: 50, y: 100))
        c.collisionDelegate = log
        animator.addBehavior(c)
        animator.addBehavior(GravityBehavior(items: [item]))
        animator.run(seconds: 1.5)
        XCTAssertGreaterThanOrEqual(log.boundaryBegan.count, 1)
        XCTAssertEqual(log.boundaryBegan.count, log.boundaryEnded.count + 1)
        XCTAssertTrue(log.boundaryBegan.allSatisfy { $0.0 === item && $0.1 == AnyHashable("floor") })
        XCTAssertClose(log.boundaryBegan.last?.2.y ?? 0, 100, within: 1)
        c.removeBoundary(withIdentifier: "floor")
        animator.step()
        XCTAssertEqual(log.boundaryEnded.count, log.boundaryBegan.count)
        XCTAssertEqual(log.boundaryEnded.last?.1, "floor")
    }

    /// "elasticity 1" rebounds to at least 90% of the drop height.
    func test_elasticityOne_reboundsAtLeastNinetyPercent() {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 200, height: 600))
        let item = box(100, 100, 20)
        animator.addBehavior(GravityBehavior(items: [item]))
        let c = CollisionBehavior(items: [item]); c.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(c)
        let props = noDamping([item]); props.elasticity = 1
        animator.addBehavior(props)
        var bottomed = false, apex: CGFloat = .infinity
        for _ in 0..<180 {
            animator.step()
            if item.center.y > 580 { bottomed = true }
            if bottomed { apex = min(apex, item.center.y) }
        }
        let dropped: CGFloat = 590 - 100, rebound = 590 - apex
        XCTAssertTrue(bottomed)
        XCTAssertGreaterThanOrEqual(rebound / dropped, 0.9)
        XCTAssertLessThanOrEqual(rebound / dropped, 1.02)
    }

    /// Boundary materials: at the default (UIKit's 0.2) a dead item still bounces off the floor; at elasticity 0
    /// it stops dead; at friction 0 an item slides on, at 1 it stops. Bad values are refused and kept out.
    func test_boundaryMaterials_setHowItemsBounceAndSlideOnBoundaries() {
        /// The highest rebound of an item of elasticity 0 dropped onto the floor, and how far one pushed along it
        /// at 300 points/s slides in a second.
        func measure(_ configure: (CollisionBehavior) -> Void) -> (rebound: CGFloat, slide: CGFloat) {
            let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 2000, height: 600))
            let faller = box(100, 400, 20), slider = box(1000, 589, 20)
            animator.addBehavior(GravityBehavior(items: [faller, slider]))
            let c = CollisionBehavior(items: [faller, slider]); c.translatesReferenceBoundsIntoBoundary = true
            configure(c)
            animator.addBehavior(c)
            let props = noDamping([faller, slider]); props.elasticity = 0; props.friction = 0.5
            animator.addBehavior(props)
            props.addLinearVelocity(CGPoint(x: 300, y: 0), for: slider)
            var bottomed = false, apex: CGFloat = .infinity
            for _ in 0..<60 {
                animator.step()
                if faller.center.y > 589 { bottomed = true }
                if bottomed { apex = min(apex, faller.center.y) }
            }
            return (590 - apex, slider.center.x - 1000)
        }
        let uikit = measure { _ in }
        XCTAssertGreaterThan(uikit.rebound, 3, "UIKit's boundaries are 0.2 elastic: a dead item bounces")
        let dead = measure { $0.boundaryElasticity = 0 }
        XCTAssertLessThan(dead.rebound, 0.5)
        let ice = measure { $0.boundaryFriction = 0 }
        XCTAssertEqual(ice.slide, 300, accuracy: 3, "without friction the item keeps its speed")
        let rough = measure { $0.boundaryFriction = 1 }
        XCTAssertLessThan(rough.slide, uikit.slide)
        XCTAssertLessThan(uikit.slide, ice.slide - 50)

        let recorder = ViolationRecorder(); defer { recorder.restore() }
        let c = CollisionBehavior()
        c.boundaryFriction = -1
        c.boundaryElasticity = .nan
        XCTAssertEqual(c.boundaryFriction, 0.2)
        XCTAssertEqual(c.boundaryElasticity, 0.2)
        XCTAssertEqual(recorder.messages.count, 2)
        XCTAssertTrue(recorder.messages[0].contains("boundaryFriction must be"), recorder.messages[0])
    }

    /// Momentum is conserved in an elastic collision of equal masses: they swap velocities.
    func test_elasticCollision_conservesMomentum() {
        let animator = DynamicAnimator()
        let a = box(0, 0, 20), b = box(100, 0, 20, 40) // b has twice the mass
        let c = CollisionBehavior(items: [a, b]); c.collisionMode = .items
        animator.addBehavior(c)
        let props = noDamping([a, b]); props.elasticity = 1; props.friction = 0
        animator.addBehavior(props)
        props.addLinearVelocity(CGPoint(x: 300, y: 0), for: a)
        let mA: CGFloat = 0.04, mB: CGFloat = 0.08
        let before = mA * 300
        animator.run(seconds: 1)
        let va = props.linearVelocity(for: a).x, vb = props.linearVelocity(for: b).x
        XCTAssertClose(mA * va + mB * vb, before, within: before * 0.01)
        // 1D elastic: va' = (mA − mB)/(mA + mB)·v = −100, vb' = 2mA/(mA + mB)·v = 200
        XCTAssertClose(va, -100, within: 10)
        XCTAssertClose(vb, 200, within: 10)
    }

    /// "isAnchored false (fixed in place, still collides)": an anchored item holds and supports another.
    func test_anchoredItem_holdsStillAndSupportsAnother() {
        let animator = DynamicAnimator()
        let table = box(0, 200, 200, 20), cup = box(0, 100, 20)
        let anchored = DynamicItemBehavior(items: [table]); anchored.isAnchored = true
        animator.addBehavior(anchored)
        animator.addBehavior(GravityBehavior(items: [table, cup]))
        animator.addBehavior(CollisionBehavior(items: [table, cup]))
        animator.runUntilPaused(timeout: 10)
        XCTAssertEqual(table.center, CGPoint(x: 0, y: 200))
        XCTAssertClose(cup.center.y, 180, within: 1)
        // Un-anchoring lets it fall.
        anchored.isAnchored = false
        animator.run(seconds: 0.5)
        XCTAssertGreaterThan(table.center.y, 250)
    }
}

final class TunnellingTests: XCTestCase {
    /// "speculative contacts so a fast item does not tunnel through a boundary": a 10-point item at 6000 pt/s
    /// (100 pt, ten times its size, per step) against a thin boundary line.
    func test_fastItem_doesNotTunnelThroughABoundaryLine() {
        for speed in [3000.0, 6000.0, 12000.0] {
            let animator = DynamicAnimator()
            let bullet = box(0, 0, 10)
            let c = CollisionBehavior(items: [bullet])
            c.addBoundary(withIdentifier: "wall", from: CGPoint(x: 500, y: -100), to: CGPoint(x: 500, y: 100))
            animator.addBehavior(c)
            let props = noDamping([bullet]); props.elasticity = 0
            animator.addBehavior(props)
            props.addLinearVelocity(CGPoint(x: CGFloat(speed), y: 0), for: bullet)
            var furthest = -CGFloat.infinity
            for _ in 0..<60 { animator.step(); furthest = max(furthest, bullet.center.x) }
            XCTAssertLessThanOrEqual(furthest, 495.5, "at \(speed) pt/s")
        }
    }

    /// ... "or a thin pile": a fast item dropped onto one layer of 10-point items.
    func test_fastItem_doesNotTunnelThroughAThinLayerOfItems() {
        let animator = DynamicAnimator()
        let layer = (0..<20).map { box(CGFloat($0) * 10 - 95, 400, 10) }
        let anchored = DynamicItemBehavior(items: layer); anchored.isAnchored = true; anchored.elasticity = 0
        animator.addBehavior(anchored)
        let stone = box(3, -2000, 10)
        animator.addBehavior(GravityBehavior(items: [stone]))
        let props = DynamicItemBehavior(items: [stone]); props.elasticity = 0
        animator.addBehavior(props)
        props.addLinearVelocity(CGPoint(x: 0, y: 3000), for: stone) // about 90 pt per step at impact
        animator.addBehavior(CollisionBehavior(items: layer + [stone]))
        var lowest = -CGFloat.infinity
        for _ in 0..<90 { animator.step(); lowest = max(lowest, stone.center.y) }
        XCTAssertLessThanOrEqual(lowest, 390.5)   // never into the layer (its top is at 395)
        XCTAssertClose(stone.center.y, 390, within: 1)
    }
}
