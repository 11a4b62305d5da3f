import DynamicsKit
import DynamicsReplay

/// What a demo reports: whether its outcome holds, and one line saying what happened.
public struct DemoResult {
    public let ok: Bool
    public let summary: String
    public init(_ ok: Bool, _ summary: String) { self.ok = ok; self.summary = summary }
}

/// Lets a demo show its animators to whoever runs it (the showcase records them for the replay page).
public final class DemoContext {
    let recordEvery: Int?
    public private(set) var recorders: [Recorder] = []
    public init(recordEvery: Int? = nil) { self.recordEvery = recordEvery }

    /// Watches an animator and the items to draw; call before stepping.
    public func watch(_ animator: DynamicAnimator, items: [DynamicItem], title: String) {
        guard let every = recordEvery else { return }
        recorders.append(Recorder(animator: animator, items: items, title: title, every: every))
    }
}

/// A headless demo: real DynamicsKit code, as an iOS developer would write it, with scripted input where the
/// original had a finger, and a check of its outcome.
public struct Demo {
    /// The name `dynamics demo` takes, e.g. "falling-square".
    public let name: String
    /// One line for `dynamics list`.
    public let summary: String
    let body: (DemoContext) -> DemoResult

    init(name: String, summary: String, body: @escaping (DemoContext) -> DemoResult) {
        self.name = name; self.summary = summary; self.body = body
    }

    /// Runs the demo; with `recordEvery`, also records every animator it watches, a frame every so many steps.
    public func run(recordEvery: Int? = nil) -> (result: DemoResult, recordings: [Recording]) {
        let context = DemoContext(recordEvery: recordEvery)
        let result = body(context)
        for r in context.recorders {
            r.finish()
            r.recording.summary = summary
            r.recording.outcome = (result.ok ? "" : "FAILED: ") + result.summary
        }
        return (result, context.recorders.map(\.recording))
    }

    public static let all: [Demo] = [
        fallingSquare, flick, stickyCorners, dropInDialog, dropShade, positionToBounds, dragOffScreen, collectionDrag,
        bouncyFall, pendulum, newtonsCradle, snapToCorners, pileOf400,
    ]

    public static func named(_ name: String) -> Demo? { all.first { $0.name == name } }

    static func fmt(_ v: CGFloat) -> String { String(format: "%.1f", Double(v)) }

    /// A square falls under gravity and rests on the bottom edge of the reference bounds.
    static let fallingSquare = Demo(name: "falling-square", summary: "gravity and collision with the reference bounds: a square falls and rests on the bottom edge") { context in
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 320, height: 568))
        let square = HeadlessItem(center: CGPoint(x: 160, y: 100), size: CGSize(width: 100, height: 100), name: "square")
        animator.addBehavior(GravityBehavior(items: [square]))
        let collision = CollisionBehavior(items: [square])
        collision.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(collision)
        context.watch(animator, items: [square], title: "falling square")
        let paused = animator.runUntilPaused(timeout: 10)
        let ok = paused && abs(square.center.y - 518) < 2.5
        return DemoResult(ok, "rests at y=\(fmt(square.center.y)) (expected 518) after \(fmt(CGFloat(animator.elapsedTime))) s")
    }

    /// The composite behavior from the WWDC session: gravity and collision as children of one behavior.
    final class BouncyFallBehavior: DynamicBehavior {
        init(items: [DynamicItem]) {
            super.init()
            addChildBehavior(GravityBehavior(items: items))
            let collision = CollisionBehavior(items: items)
            collision.translatesReferenceBoundsIntoBoundary = true
            addChildBehavior(collision)
            let bounce = DynamicItemBehavior(items: items)
            bounce.elasticity = 0.6
            addChildBehavior(bounce)
        }
    }

    static let bouncyFall = Demo(name: "bouncy-fall", summary: "the WWDC BouncyFallBehavior composite (gravity + collision + elasticity) drops five squares") { context in
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 320, height: 568))
        let items = (0..<5).map { HeadlessItem(center: CGPoint(x: 40 + CGFloat($0) * 60, y: 60 + CGFloat($0) * 30), size: CGSize(width: 40, height: 40)) }
        let log = ContactLog()
        let behavior = BouncyFallBehavior(items: items)
        (behavior.childBehaviors[1] as! CollisionBehavior).collisionDelegate = log
        animator.addBehavior(behavior)
        context.watch(animator, items: items, title: "bouncy fall")
        let paused = animator.runUntilPaused(timeout: 20)
        let resting = items.allSatisfy { abs($0.center.y - 548) < 2.5 }
        return DemoResult(paused && resting && log.boundaryHits > 5, "\(log.boundaryHits) bounces reported, all 5 items resting on the floor: \(resting)")
    }


    /// A rigid attachment of 100 pt: a pendulum with period 2π√(L/g) ≈ 1.99 s.
    static let pendulum = Demo(name: "pendulum", summary: "a rigid attachment to an anchor swings with the period 2π√(L/g)") { context in
        let animator = DynamicAnimator()
        let bob = HeadlessItem(center: CGPoint(x: 100 * sin(0.15), y: 100 * cos(0.15)), size: CGSize(width: 10, height: 10))
        animator.addBehavior(AttachmentBehavior(item: bob, attachedToAnchor: .zero))
        animator.addBehavior(GravityBehavior(items: [bob]))
        let frictionless = DynamicItemBehavior(items: [bob]); frictionless.resistance = 0
        animator.addBehavior(frictionless)
        context.watch(animator, items: [bob], title: "pendulum")
        var last = bob.center.x, crossings: [Double] = []
        for k in 0..<(60 * 8) {
            animator.step()
            if last < 0 && bob.center.x >= 0 { crossings.append(Double(k) / 60) }
            last = bob.center.x
        }
        let period = crossings.count > 1 ? (crossings.last! - crossings.first!) / Double(crossings.count - 1) : .nan
        return DemoResult(abs(period - 1.987) < 0.06, "period \(String(format: "%.3f", period)) s (expected 1.987)")
    }

    /// Five balls hanging side by side; the first, pulled aside and released, sends the last one out.
    static let newtonsCradle = Demo(name: "newtons-cradle", summary: "five elastic balls on attachments: the first, released, sends the last one out") { context in
        let animator = DynamicAnimator()
        var balls: [HeadlessItem] = []
        for k in 0..<5 {
            // A 2-point gap between balls: restitution acts on approaching pairs, so touching balls would share the blow.
            let anchor = CGPoint(x: CGFloat(k) * 42, y: 0)
            let ball = HeadlessItem(center: CGPoint(x: anchor.x, y: 200), size: CGSize(width: 40, height: 40), collisionBoundsType: .ellipse)
            if k == 0 { ball.center = CGPoint(x: anchor.x - 200 * sin(0.6), y: 200 * cos(0.6)) }
            balls.append(ball)
            animator.addBehavior(AttachmentBehavior(item: ball, attachedToAnchor: anchor))
        }
        animator.addBehavior(GravityBehavior(items: balls))
        let collision = CollisionBehavior(items: balls)
        animator.addBehavior(collision)
        let props = DynamicItemBehavior(items: balls)
        props.elasticity = 1; props.resistance = 0; props.friction = 0; props.allowsRotation = false
        animator.addBehavior(props)
        context.watch(animator, items: balls, title: "Newton's cradle")
        var maxLast: CGFloat = 168, maxMiddle: CGFloat = 0
        for _ in 0..<(60 * 2) {
            animator.step()
            maxLast = max(maxLast, balls[4].center.x)
            maxMiddle = max(maxMiddle, abs(balls[2].center.x - 84))
        }
        let pull = 200 * sin(0.6), out = maxLast - 168
        return DemoResult(out > 0.7 * pull && maxMiddle < 15,
                "last ball swings out \(fmt(out)) pt for a \(fmt(pull)) pt pull (\(Int((100 * out / pull).rounded()))%), middle ball moves \(fmt(maxMiddle)) pt")
    }

    /// Snap behaviors move a card to each corner in turn.
    static let snapToCorners = Demo(name: "snap-to-corners", summary: "snap behaviors move a card to each corner in turn") { context in
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 320, height: 568))
        let card = HeadlessItem(center: CGPoint(x: 160, y: 284), size: CGSize(width: 80, height: 120))
        var worst: CGFloat = 0
        context.watch(animator, items: [card], title: "snap to corners")
        for corner in [CGPoint(x: 60, y: 80), CGPoint(x: 260, y: 80), CGPoint(x: 260, y: 488), CGPoint(x: 60, y: 488)] {
            let snap = SnapBehavior(item: card, snapTo: corner)
            animator.addBehavior(snap)
            animator.runUntilPaused(timeout: 5)
            worst = max(worst, hypot(card.center.x - corner.x, card.center.y - corner.y))
            animator.removeBehavior(snap)
        }
        return DemoResult(worst < 1.5, "visited 4 corners, worst miss \(String(format: "%.2f", Double(worst))) pt")
    }

    /// 400 mixed items poured into a box until they all sleep.
    static let pileOf400 = Demo(name: "pile-of-400", summary: "400 mixed rectangles and ellipses poured into a box until every one sleeps") { context in
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 600, height: 800))
        var items: [HeadlessItem] = []
        for k in 0..<400 {
            let kind: DynamicItemCollisionBoundsType = k % 3 == 0 ? .ellipse : .rectangle
            let item = HeadlessItem(center: CGPoint(x: 30 + CGFloat(k % 20) * 27, y: 30 + CGFloat(k / 20) * 27),
                                    size: CGSize(width: 16 + CGFloat(k % 4) * 2, height: 16), collisionBoundsType: kind)
            item.transform = CGAffineTransform(rotationAngle: CGFloat(k) * 0.37)
            items.append(item)
        }
        animator.addBehavior(GravityBehavior(items: items))
        let collision = CollisionBehavior(items: items)
        collision.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(collision)
        context.watch(animator, items: items, title: "pile of 400")
        let paused = animator.runUntilPaused(timeout: 30)
        let inside = items.allSatisfy { $0.center.x > 0 && $0.center.x < 600 && $0.center.y > 0 && $0.center.y < 800 }
        return DemoResult(paused && inside, "all asleep after \(fmt(CGFloat(animator.elapsedTime))) s, all inside: \(inside)")
    }
}
