import DynamicsKit

// Scenarios from the UIKit Dynamics material, ported headless: the finger is a scripted sequence of touch points.

extension Demo {
    static let screen = CGRect(x: 0, y: 0, width: 375, height: 667)

    /// Counts collision delegate calls with boundaries (and the reference bounds).
    final class ContactLog: CollisionBehaviorDelegate {
        var boundaryHits = 0
        func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item: DynamicItem,
                               withBoundaryIdentifier identifier: AnyHashable?, at point: CGPoint) { boundaryHits += 1 }
    }

    /// Flick: an attachment at the touch point follows a scripted pan; on release an instantaneous push with the
    /// release velocity (magnitude × 0.0008) throws the item, which bounces off the screen's edges.
    static let flick = Demo(name: "flick", summary: "drag an item by an attachment, release it with a push at the pan's velocity: it bounces off the edges") { context in
        let animator = DynamicAnimator(referenceBounds: screen)
        let card = HeadlessItem(center: CGPoint(x: 187.5, y: 480), size: CGSize(width: 100, height: 100), name: "card", color: "#ff9500")
        let collision = CollisionBehavior(items: [card])
        collision.translatesReferenceBoundsIntoBoundary = true
        let log = ContactLog()
        collision.collisionDelegate = log
        animator.addBehavior(collision)
        let props = DynamicItemBehavior(items: [card])
        props.elasticity = 0.5
        props.resistance = 1
        props.angularResistance = 2
        animator.addBehavior(props)
        context.watch(animator, items: [card], title: "flick")

        // Touch down 20 pt right of the center; the pan moves up and to the right at 550, −1400 pt/s for 0.2 s.
        let touch = CGPoint(x: 207.5, y: 490)
        let drag = AttachmentBehavior(item: card, offsetFromCenter: UIOffset(horizontal: touch.x - card.center.x, vertical: touch.y - card.center.y),
                                      attachedToAnchor: touch)
        animator.addBehavior(drag)
        let panVelocity = CGPoint(x: 550, y: -1400)
        for k in 1...12 {
            let t = CGFloat(k) / 60
            drag.anchorPoint = CGPoint(x: touch.x + panVelocity.x * t, y: touch.y + panVelocity.y * t)
            animator.step()
        }
        // The touch point on the item (its offset turned with it) is where the finger is.
        let grip = drag.attachmentPoints.0
        let lag = hypot(grip.x - drag.anchorPoint.x, grip.y - drag.anchorPoint.y)
        let followed = lag < 15
        // Release: the attachment goes, a push with the release velocity throws the item.
        animator.removeBehavior(drag)
        let speed = hypot(panVelocity.x, panVelocity.y)
        let push = PushBehavior(items: [card], mode: .instantaneous)
        push.setAngle(atan2(panVelocity.y, panVelocity.x), magnitude: speed * 0.0008)
        animator.addBehavior(push)
        let paused = animator.runUntilPaused(timeout: 15)
        let inside = screen.insetBy(dx: 49, dy: 49).contains(card.center)
        return DemoResult(followed && paused && log.boundaryHits >= 2 && inside,
                          "followed the pan (\(fmt(lag)) pt behind the finger): \(followed), \(log.boundaryHits) edge bounces, at rest: \(paused), inside the screen at (\(fmt(card.center.x)), \(fmt(card.center.y)))")
    }

    /// Sticky corners: two spring fields, each over half the screen; with resistance 10, density 0.01 and no
    /// rotation, a thrown item settles at the center of the half it ends up in.
    static let stickyCorners = Demo(name: "sticky-corners", summary: "two spring fields over the screen's halves: a thrown item settles in the nearer half") { context in
        let animator = DynamicAnimator(referenceBounds: screen)
        let card = HeadlessItem(center: CGPoint(x: 120, y: 200), size: CGSize(width: 80, height: 80), name: "card", color: "#34c759")
        let half = CGSize(width: screen.width, height: screen.height / 2)
        let top = FieldBehavior.springField(), bottom = FieldBehavior.springField()
        top.position = CGPoint(x: screen.midX, y: screen.height / 4)
        bottom.position = CGPoint(x: screen.midX, y: screen.height * 3 / 4)
        for field in [top, bottom] {
            field.region = Region(size: half)
            field.addItem(card)
            animator.addBehavior(field)
        }
        let props = DynamicItemBehavior(items: [card])
        props.resistance = 10
        props.density = 0.01
        props.allowsRotation = false
        animator.addBehavior(props)
        let collision = CollisionBehavior(items: [card])
        collision.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(collision)
        context.watch(animator, items: [card], title: "sticky corners")
        // A throw downwards: the item crosses into the bottom half and stays there.
        props.addLinearVelocity(CGPoint(x: 300, y: 5000), for: card)
        let paused = animator.runUntilPaused(timeout: 20)
        let miss = hypot(card.center.x - bottom.position.x, card.center.y - bottom.position.y)
        return DemoResult(paused && miss < 3, "settled \(fmt(miss)) pt from the bottom half's center (thrown from the top half)")
    }

    /// A stand-in for UIKit's transition context: records `completeTransition`.
    final class TransitionContext {
        private(set) var completed: [Bool] = []
        func completeTransition(_ didComplete: Bool) { completed.append(didComplete) }
    }

    /// The drop-in dialog's presentation: gravity of magnitude 10, a floor at the screen center (collision insets),
    /// elasticity 0.7, no rotation.
    final class DropInBehavior: DynamicBehavior {
        init(item: DynamicItem, in bounds: CGRect) {
            super.init()
            let gravity = GravityBehavior(items: [item])
            gravity.magnitude = 10
            addChildBehavior(gravity)
            let collision = CollisionBehavior(items: [item])
            // A ceiling far above (the dialog starts off screen) and a floor that stops it centered.
            collision.setTranslatesReferenceBoundsIntoBoundary(
                with: UIEdgeInsets(top: -1000, left: 0, bottom: bounds.height / 2 - item.bounds.height / 2, right: 0))
            addChildBehavior(collision)
            let props = DynamicItemBehavior(items: [item])
            props.elasticity = 0.7
            props.allowsRotation = false
            addChildBehavior(props)
        }
    }

    /// The dismissal, in two stages driven by `action`: the dialog hangs from an offset attachment (frequency 3,
    /// damping 3) for `duration`, then falls free; once it has left the screen the behavior removes itself.
    final class DropOutBehavior: DynamicBehavior {
        let duration: TimeInterval
        private var start: TimeInterval?
        private(set) var released = false

        init(item: DynamicItem, in bounds: CGRect, duration: TimeInterval) {
            self.duration = duration
            super.init()
            let gravity = GravityBehavior(items: [item])
            addChildBehavior(gravity)
            let hang = AttachmentBehavior(item: item, offsetFromCenter: UIOffset(horizontal: -item.bounds.width / 2 + 20, vertical: -item.bounds.height / 2),
                                          attachedToAnchor: CGPoint(x: item.center.x - item.bounds.width / 2 + 20, y: item.center.y - item.bounds.height / 2))
            hang.frequency = 3
            hang.damping = 3
            addChildBehavior(hang)
            action = { [unowned self] in
                guard let animator = self.dynamicAnimator else { return }
                let now = animator.elapsedTime
                if self.start == nil { self.start = now }
                if !self.released && now - self.start! >= self.duration {
                    self.released = true
                    self.removeChildBehavior(hang)
                }
                if item.center.y - item.bounds.height > bounds.maxY { animator.removeBehavior(self) }
            }
        }
    }

    /// Pauses → completes the transition it is given.
    final class TransitionDriver: DynamicAnimatorDelegate {
        var context: TransitionContext?
        func dynamicAnimatorDidPause(_ animator: DynamicAnimator) {
            context?.completeTransition(true)
            context = nil
        }
    }

    static let dropInDialog = Demo(name: "drop-in-dialog", summary: "a composite behavior drops a dialog in; dismissal hangs it from an attachment, then lets it fall off screen") { context in
        let animator = DynamicAnimator(referenceBounds: screen)
        let dialog = HeadlessItem(center: CGPoint(x: screen.midX, y: -150), size: CGSize(width: 280, height: 180), name: "dialog", color: "#5856d6")
        let driver = TransitionDriver()
        animator.delegate = driver
        context.watch(animator, items: [dialog], title: "drop-in dialog")

        // Presentation.
        let presenting = TransitionContext()
        driver.context = presenting
        let dropIn = DropInBehavior(item: dialog, in: screen)
        animator.addBehavior(dropIn)
        animator.runUntilPaused(timeout: 10)
        let centered = abs(dialog.center.y - screen.midY) < 1.5 && abs(dialog.center.x - screen.midX) < 0.5
        let presentedAt = animator.elapsedTime

        // Dismissal.
        let dismissing = TransitionContext()
        driver.context = dismissing
        animator.removeBehavior(dropIn)
        let dropOut = DropOutBehavior(item: dialog, in: screen, duration: 0.5)
        animator.addBehavior(dropOut)
        var hung = false
        for _ in 0..<(60 * 10) {
            guard animator.step() else { break }
            if !dropOut.released && animator.elapsedTime - presentedAt > 0.4 { hung = abs(dialog.transform.rotationAngle) > 0.05 }
        }
        let gone = dialog.center.y - dialog.bounds.height > screen.maxY
        let ok = centered && presenting.completed == [true] && hung && dropOut.released && gone && dismissing.completed == [true]
        return DemoResult(ok, "presented centered in \(fmt(CGFloat(presentedAt))) s: \(centered); hung and turned from the attachment: \(hung); fell off screen: \(gone); transitions completed: \(presenting.completed + dismissing.completed)")
    }
}
