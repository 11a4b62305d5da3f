import XCTest
@testable import DynamicsKit

final class AnimatorTests: XCTestCase {
    /// "when every item is at rest ... the animator stops, isRunning turns false and dynamicAnimatorDidPause is
    /// called once. Any change ... resumes it with dynamicAnimatorWillResume."
    func test_pauseAndResume_callTheDelegateExactlyOnceEach() {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 200, height: 200))
        let log = EventLog()
        animator.delegate = log
        XCTAssertFalse(animator.isRunning)
        let item = box(100, 100, 20)
        animator.addBehavior(GravityBehavior(items: [item]))
        let c = CollisionBehavior(items: [item]); c.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(c)
        XCTAssertTrue(animator.isRunning)
        XCTAssertEqual(log.resumes, 1)
        XCTAssertTrue(animator.runUntilPaused(timeout: 10))
        XCTAssertFalse(animator.isRunning)
        XCTAssertEqual(log.pauses, 1)
        // Paused: stepping does nothing.
        XCTAssertFalse(animator.step())
        XCTAssertEqual(log.pauses, 1)
        // A push resumes it, once.
        let push = PushBehavior(items: [item], mode: .instantaneous)
        push.pushDirection = CGVector(dx: 0, dy: -0.05)
        animator.addBehavior(push)
        XCTAssertTrue(animator.isRunning)
        XCTAssertEqual(log.resumes, 2)
        XCTAssertTrue(animator.runUntilPaused(timeout: 10))
        XCTAssertEqual(log.pauses, 2)
    }

    func test_removingAllBehaviors_pauses() {
        let animator = DynamicAnimator()
        let log = EventLog(); animator.delegate = log
        animator.addBehavior(GravityBehavior(items: [box(0, 0)]))
        animator.step()
        animator.removeAllBehaviors()
        animator.step()
        XCTAssertFalse(animator.isRunning)
        XCTAssertEqual(log.pauses, 1)
        XCTAssertTrue(animator.behaviors.isEmpty)
    }

    /// "elapsedTime (simulated seconds while running; paused time not counted)".
    func test_elapsedTime_countsOnlyRunningTime() {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 200, height: 200))
        let item = box(100, 100, 20)
        animator.addBehavior(GravityBehavior(items: [item]))
        XCTAssertEqual(animator.elapsedTime, 0)
        for _ in 0..<30 { animator.step() }
        XCTAssertEqual(animator.elapsedTime, 0.5, accuracy: 1e-9)
        let c = CollisionBehavior(items: [item]); c.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(c)
        animator.runUntilPaused(timeout: 20)
        let atPause = animator.elapsedTime
        animator.advance(by: 5)
        XCTAssertEqual(animator.elapsedTime, atPause)
    }

    /// "advance(by:) (as many fixed steps as fit; the remainder carries over)" and the speed factor.
    func test_advance_runsWholeStepsAndCarriesTheRemainder() {
        let animator = DynamicAnimator()
        animator.addBehavior(GravityBehavior(items: [box(0, 0)]))
        animator.advance(by: 0.025)      // 1 step, 0.00833 left
        XCTAssertEqual(animator.elapsedTime, 1.0 / 60, accuracy: 1e-9)
        animator.advance(by: 0.01)       // 0.01833 → 1 more step
        XCTAssertEqual(animator.elapsedTime, 2.0 / 60, accuracy: 1e-9)
        animator.speed = 2
        animator.advance(by: 0.5)        // 1 s simulated
        XCTAssertEqual(animator.elapsedTime, 2.0 / 60 + 1, accuracy: 1.0 / 60)
    }

    /// "action (called once per step, after the physics, in pre-order depth-first tree order)".
    func test_actions_runOncePerStepInPreOrder() {
        let animator = DynamicAnimator()
        var calls: [String] = []
        let a = DynamicBehavior(); a.action = { calls.append("a") }
        let a1 = DynamicBehavior(); a1.action = { calls.append("a1") }
        let a1x = DynamicBehavior(); a1x.action = { calls.append("a1x") }
        let a2 = GravityBehavior(items: [box(0, 0)]); a2.action = { calls.append("a2") }
        let b = DynamicBehavior(); b.action = { calls.append("b") }
        a1.addChildBehavior(a1x)
        a.addChildBehavior(a1)
        a.addChildBehavior(a2)
        animator.addBehavior(a)
        animator.addBehavior(b)
        animator.step()
        XCTAssertEqual(calls, ["a", "a1", "a1x", "a2", "b"])
        animator.step()
        XCTAssertEqual(calls.count, 10)
    }

    /// "Adding or removing behaviors or items inside an action ... takes effect at the end of the current step."
    func test_mutationInsideAction_takesEffectAfterTheStep() {
        let animator = DynamicAnimator()
        let item = box(0, 0)
        let gravity = GravityBehavior(items: [item])
        var calls: [String] = []
        let late = DynamicBehavior(); late.action = { calls.append("late") }
        let driver = DynamicBehavior()
        var done = false
        driver.action = {
            calls.append("driver")
            if !done { done = true; animator.removeBehavior(gravity); animator.addBehavior(late) }
        }
        animator.addBehavior(driver)
        animator.addBehavior(gravity)
        animator.addBehavior(DynamicItemBehavior(items: [item])) // keeps the item in the animator
        animator.step()
        let yAfterFirst = item.center.y
        XCTAssertEqual(calls, ["driver"])   // `late` joins after this step's actions
        animator.step()
        XCTAssertEqual(calls, ["driver", "driver", "late"])
        XCTAssertGreaterThan(yAfterFirst, 0)
        let v = animator.velocity(of: item)!.linear.y
        animator.step()
        XCTAssertClose(animator.velocity(of: item)!.linear.y, v * exp(-0.1 / 60), within: 1e-3) // no more gravity
    }

    /// "updateItem(usingCurrentState:)": outside changes are ignored until the animator is asked to re-read.
    func test_updateItem_readsTheNewPositionRotationAndSize() {
        let animator = DynamicAnimator()
        let item = box(0, 0, 20)
        animator.addBehavior(GravityBehavior(items: [item]))
        animator.step()
        item.center = CGPoint(x: 500, y: 500)
        animator.step()
        XCTAssertLessThan(item.center.y, 10) // ignored: overwritten by the animator
        item.center = CGPoint(x: 500, y: 500)
        item.transform = CGAffineTransform(rotationAngle: 0.5)
        item.bounds = CGRect(x: 0, y: 0, width: 40, height: 40)
        animator.updateItem(usingCurrentState: item)
        animator.step()
        XCTAssertClose(item.center.x, 500, within: 1e-3)
        XCTAssertClose(item.center.y, 500, within: 1)
        XCTAssertClose(item.angle, 0.5, within: 1e-3)
        let body = animator.records[animator.tagOf.tag(ObjectIdentifier(item), animator.records)!]!.body
        XCTAssertEqual(animator.world.mass(of: body), 0.16, accuracy: 1e-6)
    }

    func test_itemsInRect_andLayoutLookup() {
        let animator = DynamicAnimator(layoutBounds: CGRect(x: 0, y: 0, width: 320, height: 1000))
        let cells = (0..<5).map { LayoutAttributes(forCellWith: IndexPath(item: $0, section: 0), frame: CGRect(x: 10, y: CGFloat($0) * 60, width: 300, height: 50)) }
        let c = CollisionBehavior(items: cells)
        animator.addBehavior(c)
        let found = animator.items(in: CGRect(x: 0, y: 100, width: 320, height: 60))
        XCTAssertEqual(found.count, 2) // cells 1 (60–110) and 2 (120–170)
        XCTAssertTrue(animator.layoutAttributesForCell(at: IndexPath(item: 3, section: 0)) === cells[3])
        XCTAssertNil(animator.layoutAttributesForCell(at: IndexPath(item: 9, section: 0)))
    }

    /// "The same inputs give bit-identical results."
    func test_rerun_isBitIdentical() {
        func simulate() -> [Double] {
            let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 300, height: 300))
            var items: [HeadlessItem] = []
            for k in 0..<40 {
                let item = HeadlessItem(center: CGPoint(x: 20 + CGFloat(k % 10) * 27, y: 20 + CGFloat(k / 10) * 27),
                                        size: CGSize(width: 14 + CGFloat(k % 3) * 4, height: 14), collisionBoundsType: k % 4 == 0 ? .ellipse : .rectangle)
                item.transform = CGAffineTransform(rotationAngle: CGFloat(k) * 0.1)
                items.append(item)
            }
            animator.addBehavior(GravityBehavior(items: items))
            let c = CollisionBehavior(items: items); c.translatesReferenceBoundsIntoBoundary = true
            animator.addBehavior(c)
            animator.run(seconds: 3)
            return items.flatMap { [Double($0.center.x), Double($0.center.y), Double($0.angle)] }
        }
        let a = simulate(), b = simulate()
        XCTAssertEqual(a.map(\.bitPattern), b.map(\.bitPattern))
    }

    /// A behavior's items are unique whether given at once or added one by one, before and after the membership
    /// set is first needed; a removed item can be added again.
    func test_behaviorItems_stayUnique_throughAddAndRemove() {
        let a = HeadlessItem(center: .zero, size: CGSize(width: 10, height: 10))
        let b = HeadlessItem(center: .zero, size: CGSize(width: 10, height: 10))
        let g = GravityBehavior(items: [a, b, a])
        XCTAssertEqual(g.items.count, 2)
        g.addItem(a)
        XCTAssertEqual(g.items.count, 2, "already held")
        g.removeItem(a)
        XCTAssertEqual(g.items.count, 1)
        g.addItem(a); g.addItem(a)
        XCTAssertEqual(g.items.count, 2)
        XCTAssertTrue(g.items.last === a)
    }
}

/// The item → tag table against a dictionary, through growth, removals (backward shifts) and reuse of tags.
final class TagMapTests: XCTestCase {
    /// An item record is 40 bytes, its packed fields reading back what was stored.
    func test_itemRecord_is40Bytes_andKeepsItsPackedFields() {
        XCTAssertEqual(MemoryLayout<ItemRecord>.stride, 40)
        let item = HeadlessItem(center: .zero, size: CGSize(width: 3, height: 4))
        for type in [DynamicItemCollisionBoundsType.rectangle, .ellipse, .path] {
            for group in [false, true] {
                var r = ItemRecord(item: item, body: BodyID(index: 7, generation: 2), size: CGSize(width: 3, height: 4),
                                   boundsType: type, density: 2, isGroup: group)
                XCTAssertEqual(r.collisionList, -1)
                for list: Int32 in [0, 5, 0x0FFF_FFFE, -1] {
                    r.collisionList = list
                    XCTAssertEqual(r.collisionList, list)
                    XCTAssertEqual(r.boundsType, type)
                    XCTAssertEqual(r.isGroup, group)
                }
                r.boundsType = .ellipse
                XCTAssertEqual(r.boundsType, .ellipse)
                XCTAssertEqual(r.isGroup, group)
                XCTAssertEqual(r.density, 2)
                XCTAssertEqual(r.width, 3)
                XCTAssertEqual(r.height, 4)
            }
        }
    }

    func test_tagMap_agreesWithADictionaryThroughInsertsAndRemovals() {
        var records: [ItemRecord?] = []
        var map = TagMap()
        var model: [ObjectIdentifier: Int] = [:]
        var live: [HeadlessItem] = []
        var freeTags: [Int] = []
        var state: UInt64 = 12345
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        for round in 0..<6000 {
            if live.isEmpty || next() % 3 != 0 {
                let item = HeadlessItem(center: .zero, size: CGSize(width: 1, height: 1))
                let tag = freeTags.popLast() ?? records.count
                if tag == records.count { records.append(nil) }
                records[tag] = ItemRecord(item: item, body: BodyID(index: Int32(tag), generation: 1),
                                          size: item.bounds.size, boundsType: .rectangle, density: 1, isGroup: false)
                map.insert(ObjectIdentifier(item), tag: tag, records)
                model[ObjectIdentifier(item)] = tag
                live.append(item)
            } else {
                let item = live.remove(at: next() % live.count)
                let id = ObjectIdentifier(item)
                let tag = model[id]!
                map.remove(id, tag: tag, records)
                records[tag] = nil
                model[id] = nil
                freeTags.append(tag)
                XCTAssertNil(map.tag(id, records))
            }
            if round % 500 == 0 || round == 5999 {
                XCTAssertEqual(map.count, model.count)
                for item in live { XCTAssertEqual(map.tag(ObjectIdentifier(item), records), model[ObjectIdentifier(item)]) }
                let stranger = HeadlessItem(center: .zero, size: CGSize(width: 1, height: 1))
                XCTAssertNil(map.tag(ObjectIdentifier(stranger), records))
            }
        }
        XCTAssertGreaterThan(model.count, 1000)
        XCTAssertLessThanOrEqual(map.count, map.capacity)
    }
}

final class ShapeTests: XCTestCase {
    /// `.ellipse` with equal sides is a circle: it rests on a floor at its radius and rolls down a slope.
    func test_ellipseItems_collideAsCircles() {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 400, height: 400))
        let ball = HeadlessItem(center: CGPoint(x: 100, y: 100), size: CGSize(width: 40, height: 40), collisionBoundsType: .ellipse)
        let corner = box(300, 100, 40)
        corner.transform = CGAffineTransform(rotationAngle: .pi / 4)
        animator.addBehavior(GravityBehavior(items: [ball, corner]))
        let c = CollisionBehavior(items: [ball, corner]); c.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(c)
        animator.run(seconds: 3)
        XCTAssertClose(ball.center.y, 380, within: 1)
        // A ball and a box on a corner touch differently: the ball at its radius.
        let animator2 = DynamicAnimator()
        let pin = box(0, 0, 10)
        let anchored = DynamicItemBehavior(items: [pin]); anchored.isAnchored = true
        let ball2 = HeadlessItem(center: CGPoint(x: 0, y: -60), size: CGSize(width: 40, height: 40), collisionBoundsType: .ellipse)
        animator2.addBehavior(anchored)
        animator2.addBehavior(GravityBehavior(items: [ball2]))
        animator2.addBehavior(CollisionBehavior(items: [pin, ball2]))
        animator2.run(seconds: 0.5)
        XCTAssertClose(ball2.center.y, -25, within: 1)
    }

    func test_nonCircularEllipse_restsOnItsShortAxis() {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 400, height: 400))
        let egg = HeadlessItem(center: CGPoint(x: 200, y: 200), size: CGSize(width: 80, height: 30), collisionBoundsType: .ellipse)
        animator.addBehavior(GravityBehavior(items: [egg]))
        let c = CollisionBehavior(items: [egg]); c.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(c)
        animator.run(seconds: 2)
        XCTAssertClose(egg.center.y, 385, within: 1.5)
    }

    /// `.path`: a triangle rests on its flat side, its point never touching.
    func test_pathItems_collideAsTheirPath() {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 400, height: 400))
        let triangle = BezierPath()
        triangle.move(to: CGPoint(x: 0, y: -20))
        triangle.addLine(to: CGPoint(x: 30, y: 20))
        triangle.addLine(to: CGPoint(x: -30, y: 20))
        triangle.close()
        let item = HeadlessItem(center: CGPoint(x: 200, y: 100), size: CGSize(width: 60, height: 40), collisionBoundsType: .path, collisionBoundingPath: triangle)
        animator.addBehavior(GravityBehavior(items: [item]))
        let c = CollisionBehavior(items: [item]); c.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(c)
        animator.run(seconds: 2)
        // The base is 20 below (0,0); the centroid is higher, but the item center rests at 400 − 20.
        XCTAssertClose(item.center.y, 380, within: 1.5)
        XCTAssertClose(item.angle, 0, within: 0.02)
    }

    /// An item given no path has an empty one, made once when first asked; a path set later is the one kept.
    func test_headlessItem_pathDefaultsToOneEmptyPath() {
        let item = HeadlessItem(center: .zero, size: CGSize(width: 10, height: 10))
        let first = item.collisionBoundingPath
        XCTAssertTrue(first.elements.isEmpty)
        XCTAssertTrue(item.collisionBoundingPath === first, "the same path each time")
        let other = BezierPath(rect: CGRect(x: -5, y: -5, width: 10, height: 10))
        item.collisionBoundingPath = other
        XCTAssertTrue(item.collisionBoundingPath === other)
    }

    /// "DynamicItemGroup(items:) is one rigid body made of its members' shapes": members move as one.
    func test_itemGroup_movesAsOneRigidBody() {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 400, height: 400))
        // An L: a long bar and a block on its right end.
        let bar = box(100, 100, 100, 20), block = box(140, 70, 20, 40)
        let group = DynamicItemGroup(items: [bar, block])
        animator.addBehavior(GravityBehavior(items: [group]))
        let c = CollisionBehavior(items: [group]); c.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(c)
        let spin = DynamicItemBehavior(items: [group])
        animator.addBehavior(spin)
        spin.addAngularVelocity(2, for: group)
        let offset0 = hypot(block.center.x - bar.center.x, block.center.y - bar.center.y)
        for _ in 0..<120 {
            animator.step()
            XCTAssertClose(hypot(block.center.x - bar.center.x, block.center.y - bar.center.y), offset0, within: 0.01)
            XCTAssertClose(block.angle, bar.angle, within: 1e-4)
        }
        XCTAssertGreaterThan(bar.center.y, 300)
        XCTAssertLessThanOrEqual(max(bar.center.y, block.center.y), 400)
    }
}

final class RealTimeDriverTests: XCTestCase {
    /// The driver advances the animator from wall time on its queue; the steps themselves stay fixed.
    func test_realTimeDriver_advancesTheAnimatorOnItsQueue() {
        let animator = DynamicAnimator()
        let item = box(0, 0, 10)
        animator.addBehavior(GravityBehavior(items: [item]))
        let driver = RealTimeDriver(animator: animator)
        let frames = expectation(description: "frames")
        frames.assertForOverFulfill = false
        var count = 0
        driver.onFrame = { _ in count += 1; if count == 5 { frames.fulfill() } }
        driver.start()
        XCTAssertTrue(driver.isActive)
        wait(for: [frames], timeout: 5)
        driver.stop()
        driver.queue.sync {}
        XCTAssertFalse(driver.isActive)
        XCTAssertGreaterThan(animator.elapsedTime, 0)
        // Whole fixed steps only.
        let steps = animator.elapsedTime / animator.timeStep
        XCTAssertEqual(steps, steps.rounded(), accuracy: 1e-6)
    }
}
