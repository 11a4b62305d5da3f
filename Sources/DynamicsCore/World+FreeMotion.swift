// The free-motion pass.
//
// A step in which nothing can collide, no joint is awake and every field is a built-in kind acting on every body
// everywhere (a field-driven swarm, items falling with no collision behavior) has no constraint to solve. Its
// whole step is then one pass over the awake bodies, four at a time with their state in registers: the fields, all
// substeps of integration in closed form (`World.updateDampingFactors`), and the rest test of the sleep stage.
// The closed form is the substep loop's algebra, not an approximation: results agree with the loop to rounding.

/// ⌊q⌋ for 0 ≤ q < 2²³ without a rounding instruction (SSE2 has none): adding and removing 2²³ rounds to the
/// nearest integer, which is then corrected down. The rest test uses it to tell when a body's rest time enters a
/// new window; the scalar and 4-wide paths use the same arithmetic, so they agree exactly.
@inline(__always) func restWindowIndex(_ q: Float) -> Float {
    let t = (q + 8_388_608) - 8_388_608
    return t > q ? t - 1 : t
}

@inline(__always) func restWindowIndex(_ q: SIMD4<Float>) -> SIMD4<Float> {
    let t = (q + 8_388_608) - 8_388_608
    return t.replacing(with: t - 1, where: t .> q)
}

/// A field compiled for the free-motion pass; constants are stored broadcast to four lanes, ready to use.
@usableFromInline
struct FreeField {
    @usableFromInline enum Kind: UInt8 { case radial, vortex, spring, linear }
    var kind: Kind
    /// 0, 1, 2 or −1.
    var falloff: Int8
    /// Same position as the field before it: its distances are reused.
    var sameCenter: Bool
    var cx: SIMD4<Float>, cy: SIMD4<Float>
    /// Radial, vortex and spring: the coefficient of the unit offset (points/s², or force for spring).
    var k: SIMD4<Float>
    /// Linear: 100 · strength · direction.
    var kx: SIMD4<Float>, ky: SIMD4<Float>
    /// Minimum radius in metres, and its inverse.
    var minR: SIMD4<Float>, invMinR: SIMD4<Float>
}

extension World {
    /// Whether this step can run as the free-motion pass; compiles its fields into `freeFields` if so.
    func prepareFreeMotion() -> Bool {
        guard !classActive.contains(true) else { return false }
        if awakeJointsDirty { refreshAwakeJoints() }
        guard awakeJoints.isEmpty, contacts.isEmpty else { return false }
        freeFields.base.deinitialize(count: freeFieldCount)
        freeFieldCount = 0
        var previous: FreeField?
        for record in fields {
            guard record.coversAll, record.bodySetVersion == bodySetVersion, record.region.isInfinite else { return false }
            let def = record.def
            let falloff: Int8
            switch def.falloff {
            case 0: falloff = 0
            case 1: falloff = 1
            case 2: falloff = 2
            case -1: falloff = -1
            default: return false
            }
            let kind: FreeField.Kind, k: Float
            switch def.kind {
            case .radialGravity: kind = .radial; k = -100 * def.strength
            case .vortex: kind = .vortex; k = 100 * def.strength
            case .spring: kind = .spring; k = -100 * def.strength
            case .linearGravity: kind = .linear; k = 0
            default: return false
            }
            let minR = Swift.max(def.minimumRadius, 1e-6) / 100
            let c = def.position
            let same = previous.map { $0.cx[0] == c.x && $0.cy[0] == c.y } ?? false
            let dir = 100 * def.strength * def.direction
            typealias V = SIMD4<Float>
            let f = FreeField(kind: kind, falloff: falloff, sameCenter: same, cx: V(repeating: c.x), cy: V(repeating: c.y),
                              k: V(repeating: k), kx: V(repeating: dir.x), ky: V(repeating: dir.y),
                              minR: V(repeating: minR), invMinR: V(repeating: 1 / minR))
            freeFields.append(f, count: freeFieldCount)
            freeFieldCount += 1
            previous = f
        }
        return true
    }

    /// Turns a body through the substeps (torque, angular damping, rotation); the scalar part of both
    /// unconstrained integration paths.
    @inline(__always)
    func integrateSpin(slot i: Int, h: Float, substeps: Int) {
        let angVel = bodies.angularVelocity.base, rot = bodies.rotation.base
        let invI = bodies.invInertia.base, tA = bodies.torqueA.base, tB = bodies.torqueB.base
        let angDamp = bodies.angularDampingFactor.base
        var w = angVel[i]
        var q = rot[i]
        for _ in 0..<substeps {
            w = (w + h * invI[i] * (q.c * tA[i] - q.s * tB[i])) * angDamp[i]
            if w != 0 { q = q.integrated(by: h * w) }
        }
        angVel[i] = w
        rot[i] = q
    }

    /// The pass itself (see the top of this file). Returns whether some body has rested long enough to sleep.
    func freeMotionPass(dt: Float, h: Float, substeps: Int) -> Bool {
        typealias V = SIMD4<Float>
        typealias M = SIMDMask<SIMD4<Int32>>
        let n = bodies.awakeCount
        guard n > 0 else { return false }
        let pos = UnsafeMutableRawPointer(bodies.position.base), vel = UnsafeMutableRawPointer(bodies.velocity.base)
        let rot = UnsafeMutableRawPointer(bodies.rotation.base), grav = UnsafeMutableRawPointer(bodies.gravity.base)
        let force = UnsafeMutableRawPointer(bodies.force.base)
        let anchor = UnsafeMutableRawPointer(bodies.restAnchor.base)
        let anchorRot = UnsafeMutableRawPointer(bodies.restAnchorRotation.base)
        let invMass = bodies.invMass.base, angVel = bodies.angularVelocity.base
        let torqueA = bodies.torqueA.base, torqueB = bodies.torqueB.base, ext = bodies.extent.base
        let decayColumn = bodies.freeDecay.base, gainColumn = bodies.freeGain.base
        let positionGainColumn = bodies.freePositionGain.base, sleep = bodies.sleepTime.base

        // Columns hold a multiple of four with zeroed spare capacity (`Column.reserve`), so the last group of four
        // may read past the awake range; it writes only its live lanes.
        @inline(__always) func load(_ p: UnsafeMutablePointer<Float>, _ s: Int) -> V {
            UnsafeRawPointer(p + s).loadUnaligned(as: V.self)
        }
        /// Four (x, y) pairs as they are stored (two registers), and split into x and y.
        @inline(__always) func loadPairs(_ p: UnsafeMutableRawPointer, _ s: Int) -> (V, V) {
            ((p + 8 * s).loadUnaligned(as: V.self), (p + 8 * s + 16).loadUnaligned(as: V.self))
        }
        @inline(__always) func split(_ a: V, _ b: V) -> (V, V) {
            let ab = SIMD8<Float>(lowHalf: a, highHalf: b)
            return (ab.evenHalf, ab.oddHalf)
        }
        @inline(__always) func merge(_ x: V, _ y: V) -> (V, V) {
            (V(x[0], y[0], x[1], y[1]), V(x[2], y[2], x[3], y[3]))
        }
        @inline(__always) func store(_ p: UnsafeMutablePointer<Float>, _ s: Int, _ v: V, _ lanes: Int) {
            if lanes == 4 { UnsafeMutableRawPointer(p + s).storeBytes(of: v, as: V.self); return }
            for l in 0..<lanes { p[s + l] = v[l] }
        }
        @inline(__always) func storePairs(_ p: UnsafeMutableRawPointer, _ s: Int, _ a: V, _ b: V, _ lanes: Int) {
            if lanes == 4 {
                (p + 8 * s).storeBytes(of: a, as: V.self)
                (p + 8 * s + 16).storeBytes(of: b, as: V.self)
                return
            }
            for l in 0..<lanes {
                (p + 8 * (s + l)).storeBytes(of: l < 2 ? a[2 * l] : b[2 * l - 4], as: Float.self)
                (p + 8 * (s + l) + 4).storeBytes(of: l < 2 ? a[2 * l + 1] : b[2 * l - 3], as: Float.self)
            }
        }
        // Lane tests as two 64-bit words: cheaper here than the standard library's generic any/all.
        @inline(__always) func anyLane(_ m: M) -> Bool {
            let u = unsafeBitCast(m, to: SIMD2<UInt64>.self)
            return (u[0] | u[1]) != 0
        }
        @inline(__always) func allLanes(_ m: M) -> Bool {
            let u = unsafeBitCast(m, to: SIMD2<UInt64>.self)
            return (u[0] & u[1]) == ~0
        }

        let lin = settings.sleepLinearVelocity, ang = settings.sleepAngularVelocity
        let window = settings.timeToSleep
        let fastSpeed2 = V(repeating: 16 * lin * lin), fastSpin = V(repeating: 4 * ang), fastEdge = V(repeating: 4 * lin)
        let maxDrift = lin * window, maxTurn = ang * window
        let drift2 = V(repeating: maxDrift * maxDrift)
        let halfTurn2 = V(repeating: 0.5 * maxTurn * maxTurn), halfDrift2 = V(repeating: 0.5 * maxDrift * maxDrift)
        let invWindow = 1 / window
        let readyTime = V(repeating: window)
        let lanesIndex = SIMD4<Int32>(0, 1, 2, 3)
        let gravityOn = gravityInUse, forceOn = forceInUse
        let fieldList = UnsafeBufferPointer(start: freeFields.base, count: freeFieldCount)
        var forceTerm = forceOn
        for f in fieldList where f.kind == .spring { forceTerm = true }
        /// One group of four bodies (fewer at the end); returns whether one of them is ready to sleep.
        @inline(__always) func block(_ s: Int, _ lanes: Int) -> Bool {
            let live = lanesIndex .< Int32(lanes)
            let (p0, p1) = loadPairs(pos, s)
            var (x, y) = split(p0, p1)
            let (v0, v1) = loadPairs(vel, s)
            var (vx, vy) = split(v0, v1)

            // Fields, in table order, evaluated at the position before the step. Fields about the same point
            // share the distance, its inverse and the square root.
            var ax = V.zero, ay = V.zero, fx = V.zero, fy = V.zero
            var dx = V.zero, dy = V.zero, dist = V.zero, inv = V.zero
            for f in fieldList {
                if !f.sameCenter {
                    dx = x - f.cx
                    dy = y - f.cy
                    dist = (dx * dx + dy * dy).squareRoot()
                    inv = (1 / dist).replacing(with: 0, where: dist .<= 0)
                }
                let r = dist * 0.01
                let scale: V
                switch f.falloff {
                case 0: scale = V(repeating: 1)
                case 1: scale = f.invMinR.replacing(with: 100 * inv, where: r .>= f.minR)
                case 2:
                    // 1 / max(dist / 100, minR), squared, without a second division.
                    let invR = f.invMinR.replacing(with: 100 * inv, where: r .>= f.minR)
                    scale = invR * invR
                default: scale = r.replacing(with: f.minR, where: r .< f.minR)
                }
                switch f.kind {
                case .radial:
                    let c = f.k * scale * inv
                    ax += c * dx; ay += c * dy
                case .vortex:
                    let c = f.k * scale * inv
                    ax += c * dy; ay -= c * dx
                case .spring:
                    let c = f.k * scale * inv
                    fx += c * dx; fy += c * dy
                case .linear:
                    ax += scale * f.kx; ay += scale * f.ky
                }
            }
            if gravityOn {
                let (g0, g1) = loadPairs(grav, s)
                let (gx, gy) = split(g0, g1)
                ax = gx + ax; ay = gy + ay
            }
            if forceTerm {
                let im = load(invMass, s)
                if forceOn {
                    let (c0, c1) = loadPairs(force, s)
                    let (cx, cy) = split(c0, c1)
                    fx = cx + fx; fy = cy + fy
                }
                ax += im * fx; ay += im * fy
            }

            // All substeps at once.
            let decay = load(decayColumn, s), gain = load(gainColumn, s), positionGain = load(positionGainColumn, s)
            x = x + gain * vx + positionGain * ax
            y = y + gain * vy + positionGain * ay
            vx = decay * vx + gain * ax
            vy = decay * vy + gain * ay
            let (np0, np1) = merge(x, y)
            storePairs(pos, s, np0, np1, lanes)
            let (nv0, nv1) = merge(vx, vy)
            storePairs(vel, s, nv0, nv1, lanes)

            // Rotation: most swarms do not turn; the bodies that do take the scalar path.
            var w = load(angVel, s)
            let spinning = ((w .!= 0) .| (load(torqueA, s) .!= 0) .| (load(torqueB, s) .!= 0)) .& live
            if anyLane(spinning) {
                for l in 0..<lanes where spinning[l] { integrateSpin(slot: s + l, h: h, substeps: substeps) }
                w = load(angVel, s)
            }
            let (q0, q1) = loadPairs(rot, s)

            // The rest test of `restTest`, lane for lane.
            let e = load(ext, s), spin = w.replacing(with: -w, where: w .< 0)
            let fast = (vx * vx + vy * vy .> fastSpeed2) .| ((spin .> fastSpin) .& (spin * e .> fastEdge))
            if allLanes(fast .| .!live) {
                store(sleep, s, .zero, lanes)
                storePairs(anchor, s, np0, np1, lanes)
                storePairs(anchorRot, s, q0, q1, lanes)
                return false
            }
            let (rc, rs) = split(q0, q1)
            let (a0, a1) = loadPairs(anchor, s)
            let (px, py) = split(a0, a1)
            let ex = x - px, ey = y - py
            let drift = ex * ex + ey * ey .> drift2
            let (b0, b1) = loadPairs(anchorRot, s)
            let (qc, qs) = split(b0, b1)
            let oneMinusCos = 1 - (qc * rc + qs * rs)
            let turned = (oneMinusCos .> halfTurn2) .& ((e .<= 0) .| (oneMinusCos * (e * e) .> halfDrift2))
            let reset = fast .| drift .| turned
            let before = load(sleep, s)
            let after = before + dt
            let crossed = restWindowIndex(after * invWindow) .!= restWindowIndex(before * invWindow)
            let time = after.replacing(with: 0, where: reset)
            let move = reset .| crossed
            store(sleep, s, time, lanes)
            let (na0, na1) = merge(px.replacing(with: x, where: move), py.replacing(with: y, where: move))
            storePairs(anchor, s, na0, na1, lanes)
            let (nr0, nr1) = merge(qc.replacing(with: rc, where: move), qs.replacing(with: rs, where: move))
            storePairs(anchorRot, s, nr0, nr1, lanes)
            return anyLane((time .>= readyTime) .& live)
        }

        // One call site, so the block is inlined (a second one made it a closure with a heap-allocated context).
        var ready = false
        var s = 0
        while s < n {
            if block(s, Swift.min(4, n - s)) { ready = true }
            s += 4
        }
        return ready
    }
}
