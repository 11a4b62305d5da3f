// The restitution pass's energy bound: bounces never leave the bodies they join with more kinetic energy than
// those bodies had before restitution or would have had without any contact.
//
// Restitution runs once after the substeps, contact by contact: each point that approached fast enough gets the
// separating speed its elasticity asks for, given the velocities the earlier contacts left. Where one body bounces
// off two contacts at once (a box landing in a corner, one item struck between two), each contact's target ignores
// what the other's impulse already did, and impulses only push: together they overshoot. With elasticity 1 a box
// thrown into a corner under gravity left it with 27% more energy than it came with, and boxes in a box gained
// energy bounce after bounce until they reached the speed limit.
//
// So the pass is bounded per group of bodies joined by the contacts that bounced: their kinetic energy after
// restitution may not exceed the larger of what they had before it and what they would have had at the step's end
// moving freely from its start (their velocities at the step's start plus a step of gravity and constant force,
// the energy any bounce of elasticity at most 1 can give back). A group over the bound keeps the fraction of its
// restitution impulses that meets it exactly (a quadratic in that fraction); a group within the bound (as a single
// bounce is) is left as it is. Energy moves between the bodies of a group as before (Newton's cradle passes its
// swing on).

/// A group's kinetic energies (UIKit newton·points) before restitution, after it and moving freely through the
/// step, and the coefficients of the energy after keeping a fraction λ of the restitution: before + linear·λ +
/// quadratic·λ² (quadratic = Σ ½ m|Δv|², linear = Σ m v·Δv, angular terms alike).
struct GroupEnergy {
    var before: Float = 0, after: Float = 0, free: Float = 0, quadratic: Float = 0, linear: Float = 0
}

/// Scratch of the restitution guard, reused from step to step: per-slot tables that only grow, valid for a slot
/// whose stamp is the step's.
struct RestitutionGuard {
    /// Each awake body's velocity and angular velocity at the start of the step.
    var startVelocity: [Vec2] = []
    var startSpin: [Float] = []
    /// Per slot: the step's stamp once restitution moved the body, its velocity before that (x, y, spin), its
    /// parent in the union-find of bodies joined by bouncing contacts, and (at a root) the group's sums.
    var stamp: [UInt32] = []
    var before: [SIMD4<Float>] = []
    var parent: [Int32] = []
    var sums: [GroupEnergy] = []
    var current: UInt32 = 0
    /// The bodies restitution moved this step, in the order it moved them.
    var moved: [Int32] = []

    /// The group (union-find root) of a marked slot.
    @inline(__always) mutating func root(_ s: Int32) -> Int32 {
        parent.withUnsafeMutableBufferPointer { UnionFind.root($0.baseAddress!, s) }
    }

    /// Notes that restitution is about to move awake body `s`, whose velocity is still `v`, `w`.
    @inline(__always) mutating func mark(_ s: Int, _ v: Vec2, _ w: Float) {
        guard stamp[s] != current else { return }
        stamp[s] = current
        before[s] = SIMD4(v.x, v.y, w, 0)
        parent[s] = Int32(s)
        moved.append(Int32(s))
    }

    /// Joins the groups of two marked slots; the smaller root stays root, whatever the order of the calls.
    @inline(__always) mutating func join(_ a: Int, _ b: Int) {
        parent.withUnsafeMutableBufferPointer { UnionFind.join($0.baseAddress!, Int32(a), Int32(b)) }
    }
}

extension World {
    /// Records the awake bodies' velocities at the start of the step (before the substeps) and readies the
    /// per-slot tables, when some body can bounce.
    func recordRestitutionStart() {
        let n = bodies.awakeCount
        bodies.withColumns { columns in
            @inline(__always) func grow<T>(_ a: inout [T], _ fill: T) { if a.count < n { a.append(contentsOf: repeatElement(fill, count: n - a.count)) } }
            grow(&restitutionGuard.startVelocity, .zero); grow(&restitutionGuard.startSpin, 0)
            grow(&restitutionGuard.stamp, 0); grow(&restitutionGuard.before, .zero)
            grow(&restitutionGuard.parent, 0); grow(&restitutionGuard.sums, GroupEnergy())
            restitutionGuard.startVelocity.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: columns.velocity, count: n) }
            restitutionGuard.startSpin.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: columns.angularVelocity, count: n) }
            restitutionGuard.current &+= 1
            if restitutionGuard.current == 0 {
                // After 2³² steps the stamps start over.
                for s in restitutionGuard.stamp.indices { restitutionGuard.stamp[s] = 0 }
                restitutionGuard.current = 1
            }
            restitutionGuard.moved.removeAll(keepingCapacity: true)
        }
    }

    /// Bounds what restitution gave each group of bodies it joined (see the top of this file). `dt`: the step.
    func boundRestitutionEnergy(dt: Float) {
        guard !restitutionGuard.moved.isEmpty else { return }
        bodies.withColumns { columns in
            let vel = columns.velocity, angVel = columns.angularVelocity
            let invMass = columns.invMass, invI = columns.invInertia, gravity = columns.gravity
            let force = columns.force
            // Taken out and put back, so that its arrays keep their one owner (no copy, no allocation).
            var g = RestitutionGuard()
            swap(&g, &restitutionGuard)
            defer { swap(&g, &restitutionGuard) }
            @inline(__always) func energy(_ v: SIMD4<Float>, _ m: Float, _ i: Float) -> Float {
                0.5 * ((v.x * v.x + v.y * v.y) * m + v.z * v.z * i)
            }
            for s32 in g.moved { g.sums[Int(g.root(s32))] = GroupEnergy() }
            for s32 in g.moved {
                let s = Int(s32)
                let im = invMass[s]
                guard im > 0 else { continue }
                let r = Int(g.root(s32))
                let m = 1 / im, i: Float = invI[s] > 0 ? 1 / invI[s] : 0
                let before = g.before[s], after = SIMD4(vel[s].x, vel[s].y, angVel[s], 0)
                let a = gravity[s] + (force.map { im * $0[s] } ?? .zero)
                let free = SIMD4(g.startVelocity[s].x + dt * a.x, g.startVelocity[s].y + dt * a.y, g.startSpin[s], 0)
                let d = after - before
                g.sums[r].before += energy(before, m, i)
                g.sums[r].after += energy(after, m, i)
                g.sums[r].free += energy(free, m, i)
                g.sums[r].quadratic += energy(d, m, i)
                g.sums[r].linear += (before.x * d.x + before.y * d.y) * m + before.z * d.z * i
            }
            for s32 in g.moved {
                let s = Int(s32)
                let group = g.sums[Int(g.root(s32))]
                let bound = Swift.max(group.before, group.free)
                // Within a part in a thousand of the bound, rounding; beyond it, the group overshot.
                guard group.after > bound * 1.001, group.quadratic > 0 else { continue }
                // quadratic·λ² + linear·λ + (before − bound) = 0, its root in (0, 1).
                let qa = group.quadratic, qb = group.linear, qc = group.before - bound
                let disc = Swift.max(qb * qb - 4 * qa * qc, 0)
                let lambda = Swift.min(Swift.max((-qb + disc.squareRoot()) / (2 * qa), 0), 1)
                let before = g.before[s]
                vel[s] = Vec2(before.x + lambda * (vel[s].x - before.x), before.y + lambda * (vel[s].y - before.y))
                angVel[s] = before.z + lambda * (angVel[s] - before.z)
            }
        }
    }
}
