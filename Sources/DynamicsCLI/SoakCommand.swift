import ArgumentParser
import DynamicsKit
import DynamicsScenes
#if canImport(Glibc)
import Glibc
#endif

/// A long run that keeps changing: items come and go, behaviors are added and removed, gravity turns. It reports
/// as it goes what a long simulation must keep: resident memory flat, no NaN, no item out of its box, energy
/// bounded.
struct Soak: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Churn items and behaviors for many steps, reporting memory, NaN, escapes and energy as it goes.",
        discussion: """
        Keeps about --items items in a walled 2000 × 2000 box under turning gravity, with a drag field, pushes and \
        attachments coming and going, and replaces a few items every second. Exits non-zero if any item's state \
        is not finite or an item leaves the box.
        """)

    @Option(parsing: .unconditional, help: ArgumentHelp("Items kept in the box.", valueName: "N"))
    var items = 1000
    @Option(parsing: .unconditional, help: ArgumentHelp("Steps of 1/60 s to run.", valueName: "N"))
    var steps = 100_000
    @Option(parsing: .unconditional, help: ArgumentHelp("Steps between two report lines.", valueName: "N"))
    var every = 10_000
    @Option(parsing: .unconditional, help: ArgumentHelp("Seed of the churn.", valueName: "N"))
    var seed: UInt64 = 1

    func validate() throws {
        guard (1...100_000).contains(items) else { throw ValidationError("--items must be between 1 and 100,000, got \(items)") }
        guard steps >= 1 else { throw ValidationError("--steps must be at least 1, got \(steps)") }
        guard every >= 1 else { throw ValidationError("--every must be at least 1, got \(every)") }
    }

    /// Resident memory, bytes (Linux: /proc/self/statm).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    func run() throws {
        var rng = SplitMix64(state: seed)
        let box = CGRect(x: 0, y: 0, width: 2000, height: 2000)
        let animator = DynamicAnimator(referenceBounds: box)
        let gravity = GravityBehavior()
        let collision = CollisionBehavior()
        collision.translatesReferenceBoundsIntoBoundary = true
        let props = DynamicItemBehavior()
        props.elasticity = 0.4
        let drag = FieldBehavior.dragField()
        drag.strength = 0.05
        [gravity, collision, props, drag].forEach(animator.addBehavior)
        var live: [HeadlessItem] = []
        var attachments: [AttachmentBehavior] = []
        var pushes: [PushBehavior] = []
        var serial = 0
        func spawn() {
            let size = CGSize(width: 6 + 20 * CGFloat(rng.unit()), height: 6 + 20 * CGFloat(rng.unit()))
            let item = HeadlessItem(center: CGPoint(x: 40 + 1920 * CGFloat(rng.unit()), y: 40 + 1920 * CGFloat(rng.unit())), size: size,
                                    name: "s\(serial)", collisionBoundsType: rng.unit() < 0.3 ? .ellipse : .rectangle)
            serial += 1
            live.append(item)
            for b in [gravity, collision, props, drag] as [ItemBehavior] { b.addItem(item) }
        }
        func retire(_ k: Int) {
            let item = live.remove(at: k)
            for a in attachments where a.items.contains(where: { $0 === item }) { animator.removeBehavior(a) }
            attachments.removeAll { a in a.items.contains { $0 === item } }
            for p in pushes where p.items.contains(where: { $0 === item }) { p.removeItem(item) }
            for b in [gravity, collision, props, drag] as [ItemBehavior] { b.removeItem(item) }
        }
        for _ in 0..<items { spawn() }

        print("     step   resident MB   awake   contacts   NaN   outside   kinetic energy   ms/step")
        fflush(stdout)
        let clock = ContinuousClock()
        var intervalStart = clock.now
        var nanTotal = 0, outsideTotal = 0, escapedTotal = 0
        for step in 1...steps {
            if step % 60 == 0 {
                // An item out of the box (or not finite) is counted and replaced, so that the run goes on.
                var k = 0
                while k < live.count {
                    let c = live[k].center
                    if c.x.isFinite && c.y.isFinite && box.insetBy(dx: -30, dy: -30).contains(c) { k += 1; continue }
                    if c.x.isFinite && c.y.isFinite { escapedTotal += 1 } else { nanTotal += 1 }
                    retire(k)
                    spawn()
                }
                // Replace a few items, turn the gravity, attach or release, push one.
                for _ in 0..<max(1, items / 100) where !live.isEmpty { retire(Int(rng.unit() * Double(live.count)) % live.count); spawn() }
                gravity.angle = .pi / 2 + 0.6 * sin(CGFloat(step) / 3000)
                if rng.unit() < 0.5, live.count > 2 {
                    let a = live[Int(rng.unit() * Double(live.count)) % live.count], b = live[Int(rng.unit() * Double(live.count)) % live.count]
                    if a !== b {
                        let attachment = rng.unit() < 0.5 ? AttachmentBehavior(item: a, attachedTo: b)
                            : AttachmentBehavior.pinAttachment(with: a, attachedTo: b, attachmentAnchor: a.center)
                        attachment.frequency = rng.unit() < 0.5 ? 2 : 0
                        animator.addBehavior(attachment)
                        attachments.append(attachment)
                    }
                }
                if attachments.count > 20 { animator.removeBehavior(attachments.removeFirst()) }
                // Last second's push has acted (an instantaneous push acts once); a new one.
                pushes.forEach(animator.removeBehavior)
                pushes.removeAll()
                if let item = live.randomElement(using: &rng) {
                    let push = PushBehavior(items: [item], mode: .instantaneous)
                    push.setAngle(2 * .pi * CGFloat(rng.unit()), magnitude: 0.5 * CGFloat(rng.unit()))
                    animator.addBehavior(push)
                    pushes.append(push)
                }
            }
            if !animator.isRunning { gravity.magnitude = 1 }   // a change wakes a paused animator
            animator.step()
            if step % every == 0 || step == steps {
                var nan = 0, outside = 0
                var energy: Double = 0
                for state in animator.itemStates() {
                    let c = state.center, v = state.velocity
                    if !(c.x.isFinite && c.y.isFinite && v.x.isFinite && v.y.isFinite && state.angle.isFinite) { nan += 1; continue }
                    if !box.insetBy(dx: -30, dy: -30).contains(c) { outside += 1 }
                    let size = state.item.bounds.size
                    let mass = Double(size.width * size.height) / 10_000
                    energy += 0.5 * mass * Double(v.x * v.x + v.y * v.y)
                }
                nanTotal += nan; outsideTotal += outside
                let elapsed = (clock.now - intervalStart) / .milliseconds(1) / Double(step % every == 0 ? every : step % every)
                intervalStart = clock.now
                print(String(format: "%9d   %11.1f   %5d   %8d   %3d   %7d   %14.1f   %7.3f", step, Double(Soak.residentBytes()) / 1_048_576,
                             animator.world.awakeBodyCount, animator.world.allTouchingContactCount, nan, outside, energy, elapsed))
                fflush(stdout)   // a line at a time, also into a file or a pipe
            }
        }
        print("escaped items replaced: \(escapedTotal)")
        if nanTotal > 0 || outsideTotal > 0 || escapedTotal > 0 {
            throw CommandFailure("soak: \(nanTotal) non-finite item states, \(outsideTotal) items outside the box at the reports and \(escapedTotal) escaped items replaced")
        }
    }
}
