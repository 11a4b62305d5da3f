import XCTest
import DynamicsKit

// The examples of the UIKit Dynamics book chapter (references/000), typed as the chapter types them. Each class
// below is the chapter's view controller or behavior with only PORTING.md's edits, marked `// PORTING:` where they
// are made; each test drives it as the app would and asserts what the chapter says happens.

// MARK: - Falling square

/// "A square falls under gravity and stops at the bottom of the screen."
final class FallingSquareViewController {
    let view = makeScreen()                                             // PORTING: the view controller's view
    var squareView: UIView!
    var animator: UIDynamicAnimator!
    var gravity: UIGravityBehavior!
    var collision: UICollisionBehavior!

    func viewDidLoad() {
        squareView = UIView(frame: CGRect(x: 100, y: 100, width: 100, height: 100))
        // PORTING: no backgroundColor, no addSubview (nothing is drawn)
        animator = UIDynamicAnimator(referenceView: view)
        gravity = UIGravityBehavior(items: [squareView])
        animator.addBehavior(gravity)
        collision = UICollisionBehavior(items: [squareView])
        collision.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(collision)
    }
}

// MARK: - Flick

/// "Drag the view with an attachment; let go and an instantaneous push at the pan's velocity throws it."
final class FlickViewController {
    let view = makeScreen()                                             // PORTING: the view controller's view
    // Adjust to change speed of view from flick
    let magnitudeMultiplier: CGFloat = 0.0008

    lazy var dynamicAnimator: UIDynamicAnimator = {
        let dynamicAnimator = UIDynamicAnimator(referenceView: self.view)
        return dynamicAnimator
    }()

    lazy var gravity: UIGravityBehavior = {
        let gravity = UIGravityBehavior(items: [self.orangeView])
        return gravity
    }()

    lazy var collision: UICollisionBehavior = {
        let collision = UICollisionBehavior(items: [self.orangeView])
        collision.translatesReferenceBoundsIntoBoundary = true
        return collision
    }()

    lazy var orangeView: UIView = {
        let widthHeight: CGFloat = 40.0
        let orangeView = UIView(frame: CGRect(x: 0.0, y: 0.0, width: widthHeight, height: widthHeight))
        // PORTING: no backgroundColor, no addSubview
        return orangeView
    }()

    lazy var attachment: UIAttachmentBehavior = {
        let attachment = UIAttachmentBehavior(item: self.orangeView, attachedToAnchor: .zero)
        return attachment
    }()

    func viewDidLoad() {
        dynamicAnimator.addBehavior(gravity)
        dynamicAnimator.addBehavior(collision)
        // PORTING: no gesture recognizer; the test calls handlePan
    }

    func viewDidLayoutSubviews() {
        orangeView.center = view.center
        dynamicAnimator.updateItem(usingCurrentState: orangeView)
    }

    /// PORTING: the recognizer's state, location and velocity are parameters.
    func handlePan(state: GestureState, location: CGPoint, velocity: CGPoint) {
        let magnitude = sqrt((velocity.x * velocity.x) + (velocity.y * velocity.y))
        switch state {
        case .began:
            attachment.anchorPoint = location
            dynamicAnimator.addBehavior(attachment)
        case .changed:
            attachment.anchorPoint = location
        case .cancelled, .ended, .failed, .possible:
            let push = UIPushBehavior(items: [self.orangeView], mode: .instantaneous)
            push.pushDirection = CGVector(dx: velocity.x, dy: velocity.y)
            push.magnitude = magnitude * magnitudeMultiplier
            dynamicAnimator.removeBehavior(attachment)
            dynamicAnimator.addBehavior(push)
        }
    }
}

// MARK: - Sticky corners

/// "Two spring fields, each over half of the screen: a thrown view sticks in the half it lands in."
final class StickyCornersViewController {
    let view = makeScreen()                                             // PORTING: the view controller's view

    lazy var dynamicAnimator: UIDynamicAnimator = {
        let dynamicAnimator = UIDynamicAnimator(referenceView: self.view)
        return dynamicAnimator
    }()

    lazy var collision: UICollisionBehavior = {
        let collision = UICollisionBehavior(items: [self.orangeView])
        collision.translatesReferenceBoundsIntoBoundary = true
        return collision
    }()

    lazy var fieldBehaviors: [UIFieldBehavior] = {
        var fieldBehaviors = [UIFieldBehavior]()
        for _ in 0 ..< 2 {
            let field = UIFieldBehavior.springField()
            field.addItem(self.orangeView)
            fieldBehaviors.append(field)
        }
        return fieldBehaviors
    }()

    lazy var itemBehavior: UIDynamicItemBehavior = {
        let itemBehavior = UIDynamicItemBehavior(items: [self.orangeView])
        // Adjust these values to change the "stickiness" of the view
        itemBehavior.density = 0.01
        itemBehavior.resistance = 10
        itemBehavior.friction = 0.0
        itemBehavior.allowsRotation = false
        return itemBehavior
    }()

    lazy var orangeView: UIView = {
        let widthHeight: CGFloat = 40.0
        let orangeView = UIView(frame: CGRect(x: 0.0, y: 0.0, width: widthHeight, height: widthHeight))
        // PORTING: no backgroundColor, no addSubview
        return orangeView
    }()

    lazy var attachment: UIAttachmentBehavior = {
        let attachment = UIAttachmentBehavior(item: self.orangeView, attachedToAnchor: .zero)
        return attachment
    }()

    func viewDidLoad() {
        dynamicAnimator.addBehavior(collision)
        dynamicAnimator.addBehavior(itemBehavior)
        for field in fieldBehaviors {
            dynamicAnimator.addBehavior(field)
        }
        // PORTING: no gesture recognizer; the test calls handlePan
    }

    func viewDidLayoutSubviews() {
        orangeView.center = view.center
        dynamicAnimator.updateItem(usingCurrentState: orangeView)

        for (index, field) in fieldBehaviors.enumerated() {
            field.position = CGPoint(x: view.bounds
                .midX, y: view.bounds.height * (0.25 + 0.5 * CGFloat(index)))
            field.region = UIRegion(size: CGSize(width: view.bounds.width, height: view.bounds.height * 0.5))
        }
    }

    /// PORTING: the recognizer's state, location and velocity are parameters.
    func handlePan(state: GestureState, location: CGPoint, velocity: CGPoint) {
        switch state {
        case .began:
            attachment.anchorPoint = location
            dynamicAnimator.addBehavior(attachment)
        case .changed:
            attachment.anchorPoint = location
        case .cancelled, .ended, .failed, .possible:
            itemBehavior.addLinearVelocity(velocity, for: self.orangeView)
            dynamicAnimator.removeBehavior(attachment)
        }
    }
}

// MARK: - Drop-out transition (also the transitions chapter, references/002)

/// The chapter's composite behavior driving a modal transition: the presented view drops in from above and
/// bounces to rest at the center; dismissed, it swings from a rope, then falls off the screen.
final class DropOutAnimator: UIDynamicBehavior {
    let duration: TimeInterval
    let isAppearing: Bool

    var transitionContext: TransitionContext?                           // PORTING: the context stand-in
    var hasElapsedTimeExceededDuration = false
    var finishTime: TimeInterval = 0.0
    var collisionBehavior: UICollisionBehavior?
    var attachmentBehavior: UIAttachmentBehavior?
    var animator: UIDynamicAnimator?
    /// Test bookkeeping: how often the delegate heard of a pause.
    var pauses = 0

    init(duration: TimeInterval = 1.0, isAppearing: Bool) {
        self.duration = duration
        self.isAppearing = isAppearing
        super.init()
    }

    func animateTransition(using transitionContext: TransitionContext) {
        // PORTING: the views come from the context stand-in instead of its view controllers
        let fromView = transitionContext.fromView, toView = transitionContext.toView
        let containerView = transitionContext.containerView
        let duration = self.transitionDuration(using: transitionContext)

        // Hold refrence to transitionContext to notify it of completion
        self.transitionContext = transitionContext

        // Create dynamic animator
        let animator = UIDynamicAnimator(referenceView: containerView)
        animator.delegate = self
        self.animator = animator

        // Presenting Animation
        if self.isAppearing {
            // PORTING: no isUserInteractionEnabled

            // Position toView  just off-screen
            let fromViewInitialFrame = transitionContext.initialFrame(for: fromView)
            var toViewInitialFrame = toView.frame
            toViewInitialFrame.origin.y -= toViewInitialFrame.height
            toViewInitialFrame.origin.x = fromViewInitialFrame.width * 0.5 - toViewInitialFrame.width * 0.5
            toView.frame = toViewInitialFrame

            // PORTING: no addSubview

            // Prevent rotation and adjust bounce
            let bodyBehavior = UIDynamicItemBehavior(items: [toView])
            bodyBehavior.elasticity = 0.7
            bodyBehavior.allowsRotation = false

            // Add gravity at exaggerated magnitude so animation doesn't seem slow
            let gravityBehavior = UIGravityBehavior(items: [toView])
            gravityBehavior.magnitude = 10.0

            // Set collision bounds to include off-screen view and have collision in center
            // where our final view should come to rest
            let collisionBehavior = UICollisionBehavior(items: [toView])
            let insets = UIEdgeInsets(top: toViewInitialFrame.minY, left: 0.0, bottom: fromViewInitialFrame.height * 0.5 - toViewInitialFrame.height * 0.5, right: 0.0)
            collisionBehavior.setTranslatesReferenceBoundsIntoBoundary(with: insets)
            self.collisionBehavior = collisionBehavior

            // Keep track of finish time in case we need to end the animator befor the animator pauses
            self.finishTime = duration + (self.animator?.elapsedTime ?? 0.0)

            // Closure that is called after every "tick" of the animator
            // Check if we exceed duration
            self.action = { [weak self] in
                guard let strongSelf = self,
                      (strongSelf.animator?.elapsedTime ?? 0.0) >= strongSelf.finishTime else { return }
                strongSelf.hasElapsedTimeExceededDuration = true
                strongSelf.animator?.removeBehavior(strongSelf)
            }

            // `DropOutAnimator` is a composit behavior, so add child behaviors to self
            self.addChildBehavior(collisionBehavior)
            self.addChildBehavior(bodyBehavior)
            self.addChildBehavior(gravityBehavior)

            // Add self to dynamic animator
            self.animator?.addBehavior(self)
        }
        // Dismissing Animation
        else {
            // Create allow rotation and have a elastic item
            let bodyBehavior = UIDynamicItemBehavior(items: [fromView])
            bodyBehavior.elasticity = 0.8
            bodyBehavior.angularResistance = 5.0
            bodyBehavior.allowsRotation = true

            // Create gravity with exaggerated magnitude
            let gravityBehavior = UIGravityBehavior(items: [fromView])
            gravityBehavior.magnitude = 10.0

            // Collision boundary is set to have a floor just below the bottom of the screen
            let collisionBehavior = UICollisionBehavior(items: [fromView])
            let insets = UIEdgeInsets(top: 0.0, left: -1000, bottom: -225, right: -1000)
            collisionBehavior.setTranslatesReferenceBoundsIntoBoundary(with: insets)
            self.collisionBehavior = collisionBehavior

            // Attachment behavior so view will have effect of hanging from a rope
            let offset = UIOffset(horizontal: 70.0, vertical: fromView.bounds.height * 0.5)
            var anchorPoint = CGPoint(x: fromView.bounds.maxX - 40.0, y: fromView.bounds.minY)
            // PORTING: containerView.convert(anchorPoint, from: fromView), written out (no view hierarchy)
            anchorPoint = CGPoint(x: anchorPoint.x + fromView.frame.minX, y: anchorPoint.y + fromView.frame.minY)
            let attachmentBehavior = UIAttachmentBehavior(item: fromView, offsetFromCenter: offset, attachedToAnchor: anchorPoint)
            attachmentBehavior.frequency = 3.0
            attachmentBehavior.damping = 3.0
            self.attachmentBehavior = attachmentBehavior

            // `DropOutAnimator` is a composit behavior, so add child behaviors to self
            self.addChildBehavior(collisionBehavior)
            self.addChildBehavior(bodyBehavior)
            self.addChildBehavior(gravityBehavior)
            self.addChildBehavior(attachmentBehavior)

            // Add self to dynamic animator
            self.animator?.addBehavior(self)

            // Animation has two parts part one is hanging from rope.
            // Part two is bouncying off-screen
            // Divide duration in two
            self.finishTime = (2.0 / 3.0) * duration + (self.animator?.elapsedTime ?? 0.0)

            // After every "tick" of animator check if past time limit
            self.action = { [weak self] in
                guard let strongSelf = self,
                      (strongSelf.animator?.elapsedTime ?? 0.0) >= strongSelf.finishTime else { return }
                strongSelf.hasElapsedTimeExceededDuration = true
                strongSelf.animator?.removeBehavior(strongSelf)
            }
        }
    }

    func transitionDuration(using transitionContext: TransitionContext?) -> TimeInterval {
        // Return the duration of the animation
        return self.duration
    }
}

extension DropOutAnimator: UIDynamicAnimatorDelegate {
    func dynamicAnimatorDidPause(_ animator: UIDynamicAnimator) {
        pauses += 1
        // Animator has reached stasis
        if self.isAppearing {
            // Check if we are out of time
            if self.hasElapsedTimeExceededDuration {
                // Move to final positions
                let toView = self.transitionContext?.toView
                let containerView = self.transitionContext?.containerView
                toView?.center = containerView?.center ?? .zero
                self.hasElapsedTimeExceededDuration = false
            }

            // Clean up and call completion
            self.transitionContext?.completeTransition(!(self.transitionContext?.transitionWasCancelled ?? false))
            self.childBehaviors.forEach { self.removeChildBehavior($0) }
            animator.removeAllBehaviors()
            self.transitionContext = nil
        } else {
            if let attachmentBehavior = self.attachmentBehavior {
                // If we have an attachment, we are at the end of part one and start part two.
                self.removeChildBehavior(attachmentBehavior)
                self.attachmentBehavior = nil
                animator.addBehavior(self)
                let duration = self.transitionDuration(using: self.transitionContext)
                self.finishTime = 1.0 / 3.0 * duration + animator.elapsedTime
            } else {
                // Clean up and call completion
                // PORTING: fromView?.removeFromSuperview() and isUserInteractionEnabled have no stand-in
                self.transitionContext?.completeTransition(!(self.transitionContext?.transitionWasCancelled ?? false))
                self.childBehaviors.forEach { self.removeChildBehavior($0) }
                animator.removeAllBehaviors()
                self.transitionContext = nil
            }
        }
    }
}

// MARK: - Shade

/// The chapter's interactive shade: pulled down from the top and let go, an attachment pulls it open (or back up,
/// cancelled), it bounces on the bottom edge, and the transition completes when the animator pauses.
final class ShadeAnimator: UIDynamicBehavior {
    // Whether we are presenting or dismissing
    let isAppearing: Bool

    // PORTING: no view controllers or transitioning delegate; the haptics generator is a counter
    var impacts = 0

    // The context given to the animator at the start of the transition
    var transitionContext: TransitionContext?

    // Time limit of the dynamic part of the animation
    var finishTime: TimeInterval = 4.0

    // The dynamic animator that we add `ShadeAnimator` to
    lazy var animator: UIDynamicAnimator! = {
        let animator = UIDynamicAnimator(referenceView: self.transitionContext!.containerView)
        return animator
    }()

    init(isAppearing: Bool) {
        self.isAppearing = isAppearing
        super.init()
    }

    // Setup and moves shade view controller to just above screen if appearing
    func setupViewsForTransition(with transitionContext: TransitionContext) {
        let toView = transitionContext.toView

        // Hold refrence to transitionContext to notify it of completion
        self.transitionContext = transitionContext
        if isAppearing {
            // Position toView  just off-screen
            let fromViewInitialFrame = transitionContext.initialFrame(for: transitionContext.fromView)
            var toViewInitialFrame = toView.frame
            toViewInitialFrame.origin.y -= toViewInitialFrame.height
            toViewInitialFrame.origin.x = fromViewInitialFrame.width * 0.5 - toViewInitialFrame.width * 0.5
            toView.frame = toViewInitialFrame
        }
    }

    /// PORTING: the recognizer's state, location and velocity are parameters; `.began` presents in the app.
    func handlePan(state: GestureState, location: CGPoint, velocity: CGPoint) {
        let touchLocationFromBottom: CGFloat = 20.0

        switch state {
        case .changed:
            guard let view = isAppearing ? transitionContext?.toView : transitionContext?.fromView else { return }
            // PORTING: UIView.animate(withDuration: 0.2) { … } sets the frame at once
            view.frame.origin.y = location.y - view.bounds.height + touchLocationFromBottom
            transitionContext?.updateInteractiveTransition(view.frame.maxY / view.frame.height)
        case .ended, .cancelled:
            guard let view = isAppearing ? transitionContext?.toView : transitionContext?.fromView else { return }
            let isCancelled = isAppearing ? (velocity.y < 0.5 || view.center.y < 0.0) : (velocity.y > 0.5 || view.center.y > 0.0)
            addAttachmentBehavior(with: view, isCancelled: isCancelled)
            addCollisionBehavior(with: view)
            addItemBehavior(with: view)

            animator.addBehavior(self)
            animator.delegate = self

            self.action = { [weak self] in
                guard let strongSelf = self else { return }
                if strongSelf.animator.elapsedTime > strongSelf.finishTime {
                    strongSelf.animator.removeAllBehaviors()
                } else {
                    strongSelf.transitionContext?.updateInteractiveTransition(view.frame.maxY / view.frame.height)
                }
            }
        default:
            break
        }
    }

    // Add collision behavior that causes bounce when finished
    func addCollisionBehavior(with view: UIView) {
        let collisionBehavior = UICollisionBehavior(items: [view])
        let insets = UIEdgeInsets(top: -view.bounds.height, left: 0.0, bottom: 0.0, right: 0.0)
        collisionBehavior.setTranslatesReferenceBoundsIntoBoundary(with: insets)
        collisionBehavior.collisionDelegate = self
        self.addChildBehavior(collisionBehavior)
    }

    // Add attachment behavior that pulls shade either to top or bottom
    func addAttachmentBehavior(with view: UIView, isCancelled: Bool) {
        let anchor: CGPoint
        switch (isAppearing, isCancelled) {
        case (true, true), (false, false):
            anchor = CGPoint(x: view.center.x, y: -view.frame.height)
        case (true, false), (false, true):
            anchor = CGPoint(x: view.center.x, y: view.frame.height)
        }
        let attachmentBehavior = UIAttachmentBehavior(item: view, attachedToAnchor: anchor)
        attachmentBehavior.damping = 0.1
        attachmentBehavior.frequency = 3.0
        attachmentBehavior.length = 0.5 * view.frame.height
        self.addChildBehavior(attachmentBehavior)
    }

    // Makes view more bouncy
    func addItemBehavior(with view: UIView) {
        let itemBehavior = UIDynamicItemBehavior(items: [view])
        itemBehavior.allowsRotation = false
        itemBehavior.elasticity = 0.6
        self.addChildBehavior(itemBehavior)
    }
}

extension ShadeAnimator: UIDynamicAnimatorDelegate {
    // Determines transition has ended
    func dynamicAnimatorDidPause(_ animator: UIDynamicAnimator) {
        guard let transitionContext = self.transitionContext else { return }
        let view = isAppearing ? transitionContext.toView : transitionContext.fromView
        switch (view.center.y < 0.0, isAppearing) {
        case (true, true), (true, false):
            // PORTING: view.removeFromSuperview() has no stand-in
            transitionContext.finishInteractiveTransition()
            transitionContext.completeTransition(!isAppearing)
        case (false, true):
            transitionContext.toView.frame = transitionContext.finalFrame(for: transitionContext.toView)
            transitionContext.finishInteractiveTransition()
            transitionContext.completeTransition(true)
        case (false, false):
            transitionContext.fromView.frame = transitionContext.initialFrame(for: transitionContext.fromView)
            transitionContext.cancelInteractiveTransition()
            transitionContext.completeTransition(false)
        }
        childBehaviors.forEach { removeChildBehavior($0) }
        animator.removeAllBehaviors()
        self.animator = nil
        self.transitionContext = nil
    }
}

extension ShadeAnimator: UICollisionBehaviorDelegate {
    // Triggers haptics
    func collisionBehavior(_ behavior: UICollisionBehavior, beganContactFor item: UIDynamicItem, withBoundaryIdentifier identifier: NSCopying?, at p: CGPoint) {
        guard p.y > 0.0 else { return }
        impacts += 1                                                    // PORTING: impactFeedbackGenerator
    }
}

// MARK: - Position to bounds

/// A dynamic item whose "position" is another item's size (the chapter's `PositionToBoundsMapping`).
protocol ResizableDynamicItem: UIDynamicItem {
    var bounds: CGRect { get set }
}

extension UIView: ResizableDynamicItem {}                               // PORTING: UIButton is a view stand-in

final class PositionToBoundsMapping: NSObject, UIDynamicItem {
    var target: ResizableDynamicItem

    init(target: ResizableDynamicItem) {
        self.target = target
        super.init()
    }

    var bounds: CGRect {
        get {
            return self.target.bounds
        }
    }

    var center: CGPoint {
        get {
            return CGPoint(x: self.target.bounds.width, y: self.target.bounds.height)
        }

        set {
            self.target.bounds = CGRect(x: 0.0, y: 0.0, width: newValue.x, height: newValue.y)
        }
    }

    var transform: CGAffineTransform {
        get {
            return self.target.transform
        }

        set {
            self.target.transform = newValue
        }
    }
}

final class PositionToBoundsViewController {
    let view = makeScreen()                                             // PORTING: the view controller's view
    lazy var button: UIView = {                                         // PORTING: UIButton → the view stand-in
        let button = UIView(frame: CGRect(x: 0.0, y: 0.0, width: 300.0, height: 200.0))
        // PORTING: no backgroundColor, cornerRadius, title or addSubview
        return button
    }()

    var buttonBounds = CGRect.zero
    var animator: UIDynamicAnimator?

    func viewDidLoad() {
        // PORTING: no addTarget; the test calls didPressButton
        buttonBounds = button.bounds
    }

    func viewDidLayoutSubviews() {
        button.center = view.center
    }

    func didPressButton(sender: UIView) {
        // Reset bounds so if button is press twice in a row, previous changes don't propogate
        button.bounds = buttonBounds
        let animator = UIDynamicAnimator(referenceView: view)

        // Create mapping
        let buttonBoundsDynamicItem = PositionToBoundsMapping(target: button)

        // Add Attachment behavior
        let attachmentBehavior = UIAttachmentBehavior(item: buttonBoundsDynamicItem, attachedToAnchor: buttonBoundsDynamicItem.center)

        // Higher frequency faster oscillation
        attachmentBehavior.frequency = 2.0

        // Lower damping longer oscillation lasts
        attachmentBehavior.damping = 0.1
        animator.addBehavior(attachmentBehavior)

        let pushBehavior = UIPushBehavior(items: [buttonBoundsDynamicItem], mode: .instantaneous)

        // Change angle to determine how much height/ width should change 45° means heigh:width is 1:1
        pushBehavior.angle = .pi / 4.0

        // Larger magnitude means bigger change
        pushBehavior.magnitude = 30.0
        animator.addBehavior(pushBehavior)
        pushBehavior.active = true

        // Hold refrence so animator is not released
        self.animator = animator
    }
}

// MARK: - The tests

final class BookChapterExamplesTests: XCTestCase {
    /// "The square falls and stops at the bottom of the screen."
    func test_fallingSquare_landsOnTheBottomEdge_andStops() {
        let vc = FallingSquareViewController()
        vc.viewDidLoad()
        XCTAssertTrue(vc.animator.runUntilPaused(timeout: 10), "it comes to rest")
        XCTAssertEqual(vc.squareView.center.x, 150, accuracy: 0.05, "it falls straight")
        XCTAssertEqual(vc.squareView.frame.maxY, 667, accuracy: 1, "on the bottom edge")
        XCTAssertEqual(vc.squareView.angle, 0, accuracy: 0.001)
    }

    /// "Flick the view and it flies off in the direction of the flick."
    func test_flick_leavesInTheGesturesDirection() {
        let vc = FlickViewController()
        vc.viewDidLoad()
        vc.viewDidLayoutSubviews()
        runDisplayLink(vc.dynamicAnimator, seconds: 2)                  // it drops to the bottom first
        // Pick the view up at its center and flick it up and to the right.
        let pan = ScriptedPan(start: vc.orangeView.center, velocity: CGPoint(x: 450, y: -1400), duration: 0.25)
        pan.play({ vc.handlePan(state: $0, location: $1, velocity: $2) }, frame: { vc.dynamicAnimator.step() })
        vc.dynamicAnimator.step()
        let before = vc.orangeView.center
        vc.dynamicAnimator.step()
        let direction = atan2(vc.orangeView.center.y - before.y, vc.orangeView.center.x - before.x)
        let gesture = atan2(pan.velocity.y, pan.velocity.x)
        XCTAssertEqual(direction * 180 / .pi, gesture * 180 / .pi, accuracy: 5, "the flick leaves along the gesture")
        XCTAssertTrue(vc.dynamicAnimator.runUntilPaused(timeout: 20))
        XCTAssertTrue(vc.view.bounds.insetBy(dx: 19, dy: 19).contains(vc.orangeView.center), "it stays on screen")
    }

    /// "A thrown view sticks in the half of the screen it lands in" — at the center of that half's field.
    func test_stickyCorners_captureTheViewInTheHalfItIsThrownInto() {
        for (throwVelocity, expectedY) in [(CGPoint(x: 0, y: -1500), 667 * 0.25), (CGPoint(x: 0, y: 1500), 667 * 0.75)] {
            let vc = StickyCornersViewController()
            vc.viewDidLoad()
            vc.viewDidLayoutSubviews()
            runDisplayLink(vc.dynamicAnimator, seconds: 3)
            let pan = ScriptedPan(start: vc.orangeView.center, velocity: CGPoint(x: throwVelocity.x / 10, y: throwVelocity.y / 10), duration: 0.2)
            pan.play({ state, location, velocity in
                vc.handlePan(state: state, location: location, velocity: state == .ended ? throwVelocity : velocity)
            }, frame: { vc.dynamicAnimator.step() })
            XCTAssertTrue(vc.dynamicAnimator.runUntilPaused(timeout: 20), "it comes to rest")
            XCTAssertEqual(vc.orangeView.center.x, 187.5, accuracy: 2)
            XCTAssertEqual(vc.orangeView.center.y, expectedY, accuracy: 2, "captured by the field of the half it was thrown into")
        }
    }

    /// "The presented view drops in from above and bounces to rest in the center; dismissed, it swings from a rope,
    /// then falls off the screen." Did-pause comes once per phase.
    func test_dropOutTransition_dropsIn_thenSwingsAndFallsOut() {
        let screen = makeScreen()
        let dialog = UIView(frame: CGRect(x: 0, y: 0, width: 300, height: 200))
        let present = DropOutAnimator(isAppearing: true)
        let presenting = TransitionContext(containerView: screen, fromView: makeScreen(), toView: dialog)
        present.animateTransition(using: presenting)
        runDisplayLink(present.animator!, seconds: 5)
        XCTAssertFalse(present.animator!.isRunning)
        XCTAssertEqual(presenting.completed, [true], "the presentation completes once")
        XCTAssertEqual(present.pauses, 1, "did-pause fires once")
        XCTAssertEqual(dialog.center.x, 187.5, accuracy: 0.5)
        XCTAssertEqual(dialog.center.y, 333.5, accuracy: 3, "it rests at the center")
        XCTAssertTrue(present.animator!.behaviors.isEmpty)

        let dismiss = DropOutAnimator(isAppearing: false)
        let dismissing = TransitionContext(containerView: screen, fromView: dialog, toView: makeScreen())
        dismiss.animateTransition(using: dismissing)
        var lowest: CGFloat = 0, turned: CGFloat = 0
        dismiss.animator!.addStepObserver { _ in
            lowest = max(lowest, dialog.center.y)
            turned = max(turned, abs(dialog.angle))
        }
        runDisplayLink(dismiss.animator!, seconds: 10)
        XCTAssertFalse(dismiss.animator!.isRunning)
        XCTAssertEqual(dismiss.pauses, 2, "did-pause once after the rope, once at the end")
        XCTAssertEqual(dismissing.completed, [true], "the dismissal completes once")
        XCTAssertGreaterThan(turned, 0.2, "it swings from the rope")
        XCTAssertGreaterThan(lowest, 667, "it falls off the bottom of the screen")
        XCTAssertTrue(dismiss.animator!.behaviors.isEmpty)
    }

    /// "Pull the shade down and let go: it opens (or, pushed back up, cancels), bouncing on the bottom edge."
    func test_shade_opensWhenPulledDown_andCancelsWhenPushedUp() {
        for cancel in [false, true] {
            let screen = makeScreen()
            let shade = UIView(frame: screen.bounds)
            let animator = ShadeAnimator(isAppearing: true)
            let context = TransitionContext(containerView: screen, fromView: makeScreen(), toView: shade)
            animator.setupViewsForTransition(with: context)
            XCTAssertEqual(shade.frame.maxY, 0, "the shade starts above the screen")
            // Pull it down halfway, then let go moving down (or up).
            let down = ScriptedPan(start: CGPoint(x: 187.5, y: 10), velocity: CGPoint(x: 0, y: 1000), duration: 0.4)
            down.play({ state, location, velocity in
                animator.handlePan(state: state == .ended ? .changed : state, location: location, velocity: velocity)
            }, frame: {})
            XCTAssertGreaterThan(shade.center.y, 0, "pulled more than halfway down")
            animator.handlePan(state: .ended, location: CGPoint(x: 187.5, y: 410), velocity: CGPoint(x: 0, y: cancel ? -400 : 1000))
            let dynamic = animator.animator!
            runDisplayLink(dynamic, seconds: 6)
            XCTAssertFalse(dynamic.isRunning, "the shade comes to rest")
            if cancel {
                XCTAssertEqual(context.completed, [false], "cancelled")
                XCTAssertLessThan(shade.center.y, 0, "back above the screen")
                XCTAssertEqual(context.finished, 1)
            } else {
                XCTAssertEqual(context.completed, [true], "opened")
                XCTAssertEqual(context.finished, 1)
                XCTAssertEqual(shade.frame, screen.bounds, "covering the screen")
                XCTAssertGreaterThanOrEqual(animator.impacts, 1, "it bounced on the bottom edge (the NSCopying delegate method was called)")
            }
        }
    }

    /// "The button does not move but grows and shrinks": the mapped bounds oscillate in both width and height,
    /// then settle back to the button's size.
    func test_positionToBoundsMapping_oscillatesTheBoundsInWidthAndHeight_andSettles() {
        let vc = PositionToBoundsViewController()
        vc.viewDidLoad()
        vc.viewDidLayoutSubviews()
        vc.didPressButton(sender: vc.button)
        let animator = vc.animator!
        var widths: [CGFloat] = [], heights: [CGFloat] = []
        animator.addStepObserver { _ in
            widths.append(vc.button.bounds.width)
            heights.append(vc.button.bounds.height)
        }
        runDisplayLink(animator, seconds: 30)
        XCTAssertEqual(vc.button.center, CGPoint(x: 187.5, y: 333.5), "the button does not move")
        XCTAssertGreaterThan(widths.max()! - 300, 20, "it grows in width")
        XCTAssertGreaterThan(heights.max()! - 200, 20, "and in height")
        XCTAssertLessThan(widths.min()!, 290, "and shrinks again: an oscillation")
        XCTAssertLessThan(heights.min()!, 190)
        // 45°: width and height change alike.
        XCTAssertEqual(widths.max()! - 300, heights.max()! - 200, accuracy: 2)
        XCTAssertFalse(animator.isRunning, "it settles")
        XCTAssertEqual(vc.button.bounds.width, 300, accuracy: 1)
        XCTAssertEqual(vc.button.bounds.height, 200, accuracy: 1)
    }
}
