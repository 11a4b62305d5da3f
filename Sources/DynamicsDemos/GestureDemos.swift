import DynamicsKit

extension Demo {
    /// A view stand-in with just the property the mapping drives.
    final class ButtonView {
        var bounds: CGRect
        init(bounds: CGRect) { self.bounds = bounds }
    }

    /// A dynamic item whose `center` is a view's `bounds.size`: the engine moves a point, the view grows and
    /// shrinks. (Apple's "position to bounds mapping" sample.)
    final class PositionToBoundsMapping: DynamicItem {
        let target: ButtonView
        /// The item's own size for the engine's mass: fixed, while the view's bounds change.
        let bounds: CGRect
        init(target: ButtonView) {
            self.target = target
            bounds = CGRect(origin: .zero, size: target.bounds.size)
        }
        var center: CGPoint {
            get { CGPoint(x: target.bounds.width, y: target.bounds.height) }
            set { target.bounds.size = CGSize(width: newValue.x, height: newValue.y) }
        }
        var transform: CGAffineTransform = .identity
    }

    /// Position-to-bounds mapping: an attachment (frequency 2, damping 0.1) holds the mapped point at the button's
    /// size; an instantaneous push at π/4 makes the button grow, then shrink past its size and settle, elastically.
    static let positionToBounds = Demo(name: "position-to-bounds", summary: "a custom item maps center to a button's bounds.size: a push makes it grow and shrink elastically") { context in
        let animator = DynamicAnimator()
        let button = ButtonView(bounds: CGRect(x: 0, y: 0, width: 120, height: 44))
        let item = PositionToBoundsMapping(target: button)
        let spring = AttachmentBehavior(item: item, attachedToAnchor: item.center)
        spring.frequency = 2
        spring.damping = 0.1
        animator.addBehavior(spring)
        let push = PushBehavior(items: [item], mode: .instantaneous)
        push.setAngle(.pi / 4, magnitude: 3)
        animator.addBehavior(push)
        // What the screen shows: the button, centered where the spring's anchor is, its bounds following the mapping
        // after every step (the spring, drawn from the mapped point (width, height) to its rest at 120 × 44, pulls
        // the size back).
        let shown = HeadlessItem(center: item.center, size: button.bounds.size, name: "button", color: "#34c759")
        let mirror = DynamicBehavior()
        mirror.action = { shown.bounds = button.bounds }
        animator.addBehavior(mirror)
        context.watch(animator, items: [shown], title: "position to bounds: the button grows and shrinks")
        var widest: CGFloat = 0, narrowest: CGFloat = .infinity
        for _ in 0..<(60 * 10) {
            guard animator.step() else { break }
            widest = max(widest, button.bounds.width)
            narrowest = min(narrowest, button.bounds.width)
        }
        let settled = abs(button.bounds.width - 120) < 1 && abs(button.bounds.height - 44) < 1
        return DemoResult(widest > 135 && narrowest < 110 && settled,
                          "width 120 → \(fmt(widest)) → \(fmt(narrowest)) → \(fmt(button.bounds.width)); height back to \(fmt(button.bounds.height))")
    }

    /// Drag off screen: an offset attachment drags (and so turns) a card; a slow release snaps it back, a fast one
    /// hands the finger's velocity and the card's spin to a `DynamicItemBehavior` (an item released by every
    /// behavior starts again from rest, as in UIKit), which carries it off under a little gravity until `action`
    /// sees it leave the screen and removes it.
    static let dragOffScreen = Demo(name: "drag-off-screen", summary: "drag a card by a corner: a slow release snaps it back, a fast one throws it off screen") { context in
        func run(panSpeed: CGFloat, panSteps: Int, title: String) -> (snapped: Bool, gone: Bool, turned: CGFloat) {
            let animator = DynamicAnimator(referenceBounds: screen)
            let home = CGPoint(x: screen.midX, y: screen.midY)
            let card = HeadlessItem(center: home, size: CGSize(width: 200, height: 280), name: "card", color: "#007aff")
            context.watch(animator, items: [card], title: title)
            let touch = CGPoint(x: home.x + 60, y: home.y - 100)
            let drag = AttachmentBehavior(item: card, offsetFromCenter: UIOffset(horizontal: 60, vertical: -100), attachedToAnchor: touch)
            animator.addBehavior(drag)
            // The finger moves right and a little down for `panSteps` steps; the card, held off its center, turns.
            var turned: CGFloat = 0, spin: CGFloat = 0
            for k in 1...panSteps {
                let t = CGFloat(k) / 60
                drag.anchorPoint = CGPoint(x: touch.x + panSpeed * t, y: touch.y + 0.2 * panSpeed * t)
                let before = card.transform.rotationAngle
                animator.step()
                spin = (card.transform.rotationAngle - before) * 60
                turned = max(turned, abs(card.transform.rotationAngle))
            }
            animator.removeBehavior(drag)
            if panSpeed < 800 {
                let snap = SnapBehavior(item: card, snapTo: home)
                animator.addBehavior(snap)
                animator.runUntilPaused(timeout: 10)
                let back = hypot(card.center.x - home.x, card.center.y - home.y) < 1 && abs(card.transform.rotationAngle) < 0.02
                return (back, false, turned)
            }
            // The finger's velocity at release, and the spin the card had: carried on by an item behavior.
            let carry = DynamicItemBehavior(items: [card])
            carry.addLinearVelocity(CGPoint(x: panSpeed, y: 0.2 * panSpeed), for: card)
            carry.addAngularVelocity(spin, for: card)
            carry.angularResistance = 1.25
            let fall = GravityBehavior(items: [card])
            fall.magnitude = 0.7
            carry.action = { [unowned animator] in
                let reach = hypot(card.bounds.width, card.bounds.height) / 2
                if !screen.insetBy(dx: -reach, dy: -reach).contains(card.center) { animator.removeAllBehaviors() }
            }
            animator.addBehavior(carry)
            animator.addBehavior(fall)
            let releasedX = card.center.x
            animator.runUntilPaused(timeout: 10)
            // Gone: removed once off screen, having flown on in the direction of the flick.
            let flewOn = card.center.x - releasedX > 100
            return (false, animator.behaviors.isEmpty && !screen.contains(card.center) && flewOn, turned)
        }
        // A slow drag of 0.3 s, and a flick: 0.1 s at 2000 pt/s, released while the card is still on screen.
        let slow = run(panSpeed: 300, panSteps: 18, title: "drag off screen: slow release snaps back")
        let fast = run(panSpeed: 2000, panSteps: 6, title: "drag off screen: fast release throws it off")
        return DemoResult(slow.snapped && fast.gone && slow.turned > 0.02 && fast.turned > 0.05,
                          "slow release snapped back: \(slow.snapped) (turned \(String(format: "%.2f", Double(slow.turned))) rad while dragged); fast release flew on off the screen and was removed: \(fast.gone)")
    }
}

extension Demo {
    /// The drop shade's release: an attachment pulls the shade to the open or closed position, a boundary at the
    /// screen's bottom edge bounces it, the collision delegate is the "haptic", `action` reports progress.
    final class ShadeBehavior: DynamicBehavior, CollisionBehaviorDelegate {
        let shade: DynamicItem
        let closedY: CGFloat, openY: CGFloat
        private(set) var haptics = 0
        var progress: (CGFloat) -> Void = { _ in }

        init(shade: DynamicItem, in bounds: CGRect, open: Bool, closedY: CGFloat) {
            self.shade = shade
            self.closedY = closedY
            openY = bounds.midY
            super.init()
            let pull = AttachmentBehavior(item: shade, attachedToAnchor: CGPoint(x: bounds.midX, y: open ? openY : closedY))
            pull.length = 0
            pull.frequency = 3
            pull.damping = 0.4
            addChildBehavior(pull)
            let edge = CollisionBehavior(items: [shade])
            edge.addBoundary(withIdentifier: "bottom edge", from: CGPoint(x: bounds.minX, y: bounds.maxY), to: CGPoint(x: bounds.maxX, y: bounds.maxY))
            edge.collisionDelegate = self
            addChildBehavior(edge)
            let props = DynamicItemBehavior(items: [shade])
            props.elasticity = 0.35
            props.allowsRotation = false
            addChildBehavior(props)
            action = { [unowned self] in self.progress((self.shade.center.y - self.closedY) / (self.openY - self.closedY)) }
        }

        func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item: DynamicItem,
                               withBoundaryIdentifier identifier: AnyHashable?, at point: CGPoint) { haptics += 1 }
    }

    /// Finishes or cancels when the animator pauses.
    final class ShadeController: DynamicAnimatorDelegate {
        var outcome: String?
        var opening = false
        func dynamicAnimatorDidPause(_ animator: DynamicAnimator) { outcome = opening ? "finished (open)" : "cancelled (closed)" }
    }

    /// Drop shade: a scripted pan pulls a full-screen shade down from the top; released past the middle or fast
    /// enough, it opens (else it closes again).
    static let dropShade = Demo(name: "drop-shade", summary: "pan a shade down; on release an attachment opens it (bouncing off the bottom edge with a haptic) or closes it") { context in
        /// One pan of `distance` pt in 0.25 s, released at `releaseSpeed` pt/s.
        func pull(distance: CGFloat, releaseSpeed: CGFloat, title: String) -> (outcome: String?, haptics: Int, progress: ClosedRange<CGFloat>, y: CGFloat) {
            let animator = DynamicAnimator(referenceBounds: screen)
            let closedY = -screen.height / 2 + 60
            let shade = HeadlessItem(center: CGPoint(x: screen.midX, y: closedY), size: screen.size, name: "shade", color: "#8e8e93")
            let controller = ShadeController()
            animator.delegate = controller
            context.watch(animator, items: [shade], title: title)
            // The shade follows the finger: an attachment at its center, moved by the pan.
            let drag = AttachmentBehavior(item: shade, attachedToAnchor: shade.center)
            drag.length = 0
            animator.addBehavior(drag)
            for k in 1...15 {
                drag.anchorPoint = CGPoint(x: screen.midX, y: closedY + distance * CGFloat(k) / 15)
                animator.step()
            }
            animator.removeBehavior(drag)
            // Past the middle of its travel, or released fast downwards: open; otherwise close again.
            controller.opening = shade.center.y - closedY > (screen.midY - closedY) / 2 || releaseSpeed > 500
            let release = ShadeBehavior(shade: shade, in: screen, open: controller.opening, closedY: closedY)
            var low: CGFloat = .infinity, high: CGFloat = -.infinity
            release.progress = { low = min(low, $0); high = max(high, $0) }
            animator.addBehavior(release)
            animator.runUntilPaused(timeout: 15)
            return (controller.outcome, release.haptics, low...high, shade.center.y)
        }
        let flung = pull(distance: 250, releaseSpeed: 1000, title: "drop shade: flung open")
        let nudged = pull(distance: 80, releaseSpeed: 100, title: "drop shade: nudged, closes again")
        let opened = flung.outcome == "finished (open)" && flung.haptics >= 1 && flung.progress.upperBound > 0.98
            && abs(flung.y - screen.midY) < 2
        let closed = nudged.outcome == "cancelled (closed)" && nudged.haptics == 0 && nudged.progress.lowerBound < 0.02
            && abs(nudged.y - (-screen.height / 2 + 60)) < 2
        return DemoResult(opened && closed,
                          "flung: \(flung.outcome ?? "did not pause"), \(flung.haptics) haptic(s), progress up to \(String(format: "%.2f", Double(flung.progress.upperBound))); nudged: \(nudged.outcome ?? "did not pause"), progress back to \(String(format: "%.2f", Double(nudged.progress.lowerBound)))")
    }
}
