import DynamicsSIMD

// The free-motion pass.
//
// A step in which nothing can collide, no joint is awake and every field is a built-in kind acting on every body
// everywhere (a field-driven swarm, items falling with no collision behavior) has no constraint to solve. Its
// whole step is then one pass over the awake bodies, four at a time with their state in registers: the fields, all
// substeps of integration in closed form (`World.updateDampingFactors`), and the rest test of the sleep stage.
// The closed form is the substep loop's algebra, not an approximation: results agree with the loop to rounding.
//
// The pass is one generic kernel (`FreeKernel.run`) specialised per field program: no fields; the central form,
// where radial gravity and vortices about one point are summed per falloff into two coefficients (one kernel per
// set of falloffs present, so the common swarm costs one square root and one division per four bodies); and the
// general loop over any compiled fields. Its vector operations come from DynamicsSIMD where the standard
// library's generic SIMD members would be lowered lane by lane; check the generated code of any change here
// (callgrind counts about 115 instructions per group of four on field_swarm). A second dimension of
// specialisation drops gravity, forces, torques, spring fields and per-body damping terms when none is in use.
//
// The pass is bound by instruction throughput, not by the square root's latency: a version in two sweeps per
// block (fields into a buffer, then integration) measured slower. Most of what remains is the (x, y)-pair layout
// of the position and velocity columns: 12 of the 115 instructions split and re-merge pairs, and SSE2's
// two-operand form adds the register copies around them.

/// ⌊q⌋ for 0 ≤ q < 2²³ without a rounding instruction (SSE2 has none): adding and removing 2²³ rounds to the
/// nearest integer, which is then corrected down. The rest test uses it to tell when a body's rest time enters a
/// new window; the scalar and 4-wide paths use the same arithmetic, so they agree exactly.
@inline(__always) func restWindowIndex(_ q: Float) -> Float {
    let t = (q + 8_388_608) - 8_388_608
    return t > q ? t - 1 : t
}

@inline(__always) func restWindowIndex(_ q: SIMD4<Float>) -> SIMD4<Float> {
    let t = (q + 8_388_608) - 8_388_608
    return dk_select4(dk_lt4(q, t), t - 1, t)
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
        compileFreeProgram()
        return true
    }

    /// Chooses the kernel for the compiled fields: none; the central form when every field is radial gravity or a
    /// vortex about one point, the fields with falloff 1 or 2 sharing one minimum radius and those with falloff −1
    /// another (their coefficients summed per falloff); else the general loop.
    func compileFreeProgram() {
        let list = UnsafeBufferPointer(start: freeFields.base, count: freeFieldCount)
        guard let first = list.first else { freeProgram = .none; return }
        var c = FreeCentral()
        c.cxy = SIMD4(first.cx[0], first.cy[0], first.cx[0], first.cy[0])
        var inverseMin: SIMD4<Float>?, plainMin: SIMD4<Float>?
        var mask: UInt8 = 0
        for f in list {
            guard f.kind == .radial || f.kind == .vortex, f.cx == first.cx, f.cy == first.cy else {
                freeProgram = .general
                return
            }
            if f.falloff == 1 || f.falloff == 2 {
                if let m = inverseMin, m != f.minR { freeProgram = .general; return }
                inverseMin = f.minR
                c.invMinR = f.invMinR
                c.invMinR2 = f.invMinR * f.invMinR
            } else if f.falloff == -1 {
                if let m = plainMin, m != f.minR { freeProgram = .general; return }
                plainMin = f.minR
                c.minR = f.minR
            }
            let radial = f.kind == .radial
            switch f.falloff {
            case 0: mask |= 1; if radial { c.a0 += f.k } else { c.b0 += f.k }
            case 1: mask |= 2; if radial { c.a1 += f.k } else { c.b1 += f.k }
            case 2: mask |= 4; if radial { c.a2 += f.k } else { c.b2 += f.k }
            default: mask |= 8; if radial { c.am += f.k } else { c.bm += f.k }
            }
        }
        freeCentral = c
        freeProgram = .central(mask)
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
        guard bodies.awakeCount > 0 else { return false }
        let k = FreeKernel(world: self, dt: dt, h: h, substeps: substeps)
        // Without gravity, constant forces, torques, spring fields or linear damping (a field swarm), the kernel has
        // none of their tests or loads, and every body shares one set of integration terms.
        if k.gravityOn || k.forceOn || k.torqueOn || k.springs || linearDampingInUse {
            return k.dispatch(FreeOn.self, freeProgram)
        }
        return k.dispatch(FreeOff.self, freeProgram)
    }
}

extension FreeKernel {
    /// One specialised kernel per program: the central form per set of falloffs present; `E` says whether gravity,
    /// forces, torques, spring fields or linear damping are in use.
    @inline(__always)
    func dispatch<E: FreeFlag>(_: E.Type, _ program: FreeProgram) -> Bool {
        typealias Y = FreeOn
        typealias N = FreeOff
        switch program {
        case .none: return run(FreeNoFields.self, E.self)
        case .general: return run(FreeGeneralFields.self, E.self)
        case .central(let mask):
            switch mask {
            case 1: return run(FreeCentralFields<Y, N, N, N>.self, E.self)
            case 2: return run(FreeCentralFields<N, Y, N, N>.self, E.self)
            case 3: return run(FreeCentralFields<Y, Y, N, N>.self, E.self)
            case 4: return run(FreeCentralFields<N, N, Y, N>.self, E.self)
            case 5: return run(FreeCentralFields<Y, N, Y, N>.self, E.self)
            case 6: return run(FreeCentralFields<N, Y, Y, N>.self, E.self)
            case 7: return run(FreeCentralFields<Y, Y, Y, N>.self, E.self)
            case 8: return run(FreeCentralFields<N, N, N, Y>.self, E.self)
            case 9: return run(FreeCentralFields<Y, N, N, Y>.self, E.self)
            case 10: return run(FreeCentralFields<N, Y, N, Y>.self, E.self)
            case 11: return run(FreeCentralFields<Y, Y, N, Y>.self, E.self)
            case 12: return run(FreeCentralFields<N, N, Y, Y>.self, E.self)
            case 13: return run(FreeCentralFields<Y, N, Y, Y>.self, E.self)
            case 14: return run(FreeCentralFields<N, Y, Y, Y>.self, E.self)
            default: return run(FreeCentralFields<Y, Y, Y, Y>.self, E.self)
            }
        }
    }
}

/// How the free-motion pass evaluates its fields.
@usableFromInline
enum FreeProgram {
    case none
    /// Radial gravity and vortices about one point with one minimum radius; bit k set when a field has falloff
    /// k (bits 0, 1, 2) or −1 (bit 3).
    case central(UInt8)
    case general
}

/// The central form: acceleration = (A·d + B·d⊥) / |d| with A and B sums over the falloffs present of
/// coefficient × scale(r), the radial fields in A and the vortices in B. `invMinR` is the inverse minimum radius of
/// the falloff 1 and 2 fields, `minR` that of the falloff −1 fields.
@usableFromInline
struct FreeCentral {
    typealias V = SIMD4<Float>
    /// The centre as (x, y, x, y), the layout of stored position pairs.
    var cxy = V.zero
    var minR = V.zero, invMinR = V.zero, invMinR2 = V.zero
    var a0 = V.zero, a1 = V.zero, a2 = V.zero, am = V.zero
    var b0 = V.zero, b1 = V.zero, b2 = V.zero, bm = V.zero
}

@usableFromInline protocol FreeFlag { static var on: Bool { get } }
@usableFromInline enum FreeOn: FreeFlag { @usableFromInline static var on: Bool { true } }
@usableFromInline enum FreeOff: FreeFlag { @usableFromInline static var on: Bool { false } }

/// A field evaluator of the free-motion pass, specialised into its kernel.
@usableFromInline protocol FreeAccelerator {

    /// Adds the field accelerations (a) and forces (f) at the positions (x, y) of four bodies.
    /// p0 and p1 are the same positions as stored, in (x, y) pairs.
    static func add(_ x: SIMD4<Float>, _ y: SIMD4<Float>, _ p0: SIMD4<Float>, _ p1: SIMD4<Float>,
                    _ k: borrowing FreeKernel, _ ax: inout SIMD4<Float>, _ ay: inout SIMD4<Float>,
                    _ fx: inout SIMD4<Float>, _ fy: inout SIMD4<Float>)
}

@usableFromInline enum FreeNoFields: FreeAccelerator {
    @inline(__always) @usableFromInline
    static func add(_ x: SIMD4<Float>, _ y: SIMD4<Float>, _ p0: SIMD4<Float>, _ p1: SIMD4<Float>,
                    _ k: borrowing FreeKernel, _ ax: inout SIMD4<Float>, _ ay: inout SIMD4<Float>,
                    _ fx: inout SIMD4<Float>, _ fy: inout SIMD4<Float>) {}
}

@usableFromInline enum FreeCentralFields<F0: FreeFlag, F1: FreeFlag, F2: FreeFlag, FM: FreeFlag>: FreeAccelerator {
    @inline(__always) @usableFromInline
    static func add(_ x: SIMD4<Float>, _ y: SIMD4<Float>, _ p0: SIMD4<Float>, _ p1: SIMD4<Float>,
                    _ k: borrowing FreeKernel, _ ax: inout SIMD4<Float>, _ ay: inout SIMD4<Float>,
                    _ fx: inout SIMD4<Float>, _ fy: inout SIMD4<Float>) {
        typealias V = SIMD4<Float>
        let c = k.central
        // The offsets from the centre taken on the stored pairs, then split: the form LLVM keeps in whole vectors.
        let q0 = p0 - c.cxy, q1 = p1 - c.cxy
        let dx = dk_opaque4(dk_even4(q0, q1)), dy = dk_opaque4(dk_odd4(q0, q1))
        // The square root and the division run side by side (1/r = r/r²), not one after the other: the pass is
        // bound by this chain's latency. r² below the smallest normal float counts as the centre (no direction).
        let d2 = dx * dx + dy * dy
        let atCentre = dk_lt4(d2, V(repeating: .leastNormalMagnitude))
        let dist = dk_sqrt4(d2)
        let inv2 = dk_select4(atCentre, .zero, 1 / d2)
        let inv = dist * inv2
        // Sums start at −0, which LLVM folds away (x + −0 = x exactly; + 0 would not fold).
        var a = V(repeating: -0.0), b = V(repeating: -0.0)
        if F0.on { a = c.a0; b = c.b0 }
        if F1.on {
            // 1 / max(dist / 100, minR) without a second division.
            let u = dk_min4(100 * inv, c.invMinR)
            a = a + (c.a1 * u); b = b + (c.b1 * u)
        }
        if F2.on {
            // 1 / max(dist / 100, minR)², from 1/r² alone.
            let u2 = dk_min4(10_000 * inv2, c.invMinR2)
            a = a + (c.a2 * u2); b = b + (c.b2 * u2)
        }
        if FM.on {
            let r = dk_max4(dist * 0.01, c.minR)
            a = a + (c.am * r); b = b + (c.bm * r)
        }
        a = dk_opaque4(a * inv); b = dk_opaque4(b * inv)
        ax = ax + (a * dx + b * dy)
        ay = ay + (a * dy - b * dx)
    }
}

/// Any list of compiled fields, in table order, with a switch per field.
@usableFromInline enum FreeGeneralFields: FreeAccelerator {
    @inline(__always) @usableFromInline
    static func add(_ x: SIMD4<Float>, _ y: SIMD4<Float>, _ p0: SIMD4<Float>, _ p1: SIMD4<Float>,
                    _ k: borrowing FreeKernel, _ ax: inout SIMD4<Float>, _ ay: inout SIMD4<Float>,
                    _ fx: inout SIMD4<Float>, _ fy: inout SIMD4<Float>) {
        typealias V = SIMD4<Float>
        // Fields about the same point share the distance, its inverse and the square root.
        var dx = V.zero, dy = V.zero, dist = V.zero, inv = V.zero
        for f in k.fields {
            if !f.sameCenter {
                dx = x - f.cx
                dy = y - f.cy
                dist = dk_sqrt4(dx * dx + dy * dy)
                inv = dk_select4(dk_le4(dist, .zero), .zero, 1 / dist)
            }
            let r = dist * 0.01
            let scale: V
            switch f.falloff {
            case 0: scale = V(repeating: 1)
            case 1: scale = dk_select4(dk_lt4(r, f.minR), f.invMinR, 100 * inv)
            case 2:
                let invR = dk_select4(dk_lt4(r, f.minR), f.invMinR, 100 * inv)
                scale = invR * invR
            default: scale = dk_select4(dk_lt4(r, f.minR), f.minR, r)
            }
            switch f.kind {
            case .radial:
                let c = f.k * scale * inv
                ax = ax + (c * dx); ay = ay + (c * dy)
            case .vortex:
                let c = f.k * scale * inv
                ax = ax + (c * dy); ay = ay - (c * dx)
            case .spring:
                let c = f.k * scale * inv
                fx = fx + (c * dx); fy = fy + (c * dy)
            case .linear:
                ax = ax + (scale * f.kx); ay = ay + (scale * f.ky)
            }
        }
    }
}

/// Everything one free-motion pass reads: raw column pointers and constants, so its loop touches no class property.
@usableFromInline
struct FreeKernel: ~Copyable {
    typealias V = SIMD4<Float>
    let world: World
    let n: Int
    let dt: Float, h: Float, substeps: Int
    let pos: UnsafeMutableRawPointer, vel: UnsafeMutableRawPointer, rot: UnsafeMutableRawPointer
    let grav: UnsafeMutableRawPointer, force: UnsafeMutableRawPointer
    let anchor: UnsafeMutableRawPointer, anchorRot: UnsafeMutableRawPointer
    let invMass: UnsafeMutablePointer<Float>, angVel: UnsafeMutablePointer<Float>
    let torqueA: UnsafeMutablePointer<Float>, torqueB: UnsafeMutablePointer<Float>, ext: UnsafeMutablePointer<Float>
    let decay: UnsafeMutablePointer<Float>, gain: UnsafeMutablePointer<Float>
    let positionGain: UnsafeMutablePointer<Float>, sleep: UnsafeMutablePointer<Float>
    let fields: UnsafeBufferPointer<FreeField>
    let central: FreeCentral
    let gravityOn: Bool, forceOn: Bool, torqueOn: Bool, springs: Bool
    let fastSpeed2: V, fastSpin: V, fastEdge: V, drift2: V, halfTurn2: V, halfDrift2: V, readyTime: V
    let invWindow: Float
    /// The integration terms of an undamped body (`World.dampingTerms`), for the kernel without damping.
    let undampedDecay: V, undampedGain: V, undampedPositionGain: V

    init(world w: World, dt: Float, h: Float, substeps: Int) {
        let b = w.bodies
        world = w
        n = b.awakeCount
        self.dt = dt; self.h = h; self.substeps = substeps
        pos = UnsafeMutableRawPointer(b.position.base); vel = UnsafeMutableRawPointer(b.velocity.base)
        rot = UnsafeMutableRawPointer(b.rotation.base); grav = UnsafeMutableRawPointer(b.gravity.base)
        force = UnsafeMutableRawPointer(b.force.base)
        anchor = UnsafeMutableRawPointer(b.restAnchor.base)
        anchorRot = UnsafeMutableRawPointer(b.restAnchorRotation.base)
        invMass = b.invMass.base; angVel = b.angularVelocity.base
        torqueA = b.torqueA.base; torqueB = b.torqueB.base; ext = b.extent.base
        decay = b.freeDecay.base; gain = b.freeGain.base
        positionGain = b.freePositionGain.base; sleep = b.sleepTime.base
        fields = UnsafeBufferPointer(start: w.freeFields.base, count: w.freeFieldCount)
        central = w.freeCentral
        gravityOn = w.gravityInUse; forceOn = w.forceInUse; torqueOn = w.torqueInUse
        springs = fields.contains { $0.kind == .spring }
        let lin = w.settings.sleepLinearVelocity, ang = w.settings.sleepAngularVelocity
        let window = w.settings.timeToSleep
        fastSpeed2 = V(repeating: 16 * lin * lin); fastSpin = V(repeating: 4 * ang); fastEdge = V(repeating: 4 * lin)
        let maxDrift = lin * window, maxTurn = ang * window
        drift2 = V(repeating: maxDrift * maxDrift)
        halfTurn2 = V(repeating: 0.5 * maxTurn * maxTurn); halfDrift2 = V(repeating: 0.5 * maxDrift * maxDrift)
        invWindow = 1 / window
        readyTime = V(repeating: window)
        let (sh, sn) = w.dampingStep
        let undamped = World.dampingTerms(0, h: sh, substeps: sn)
        undampedDecay = V(repeating: undamped.decay); undampedGain = V(repeating: undamped.gain)
        undampedPositionGain = V(repeating: undamped.positionGain)
    }

    /// Every awake body, four at a time; the last group (fewer than four) writes only its live lanes. Columns hold
    /// a multiple of four with zeroed spare capacity (`Column.reserve`), so that group may read past the range.
    @inline(__always)
    func run<A: FreeAccelerator, E: FreeFlag>(_: A.Type, _: E.Type) -> Bool {
        var ready = false
        let full = n & ~3
        var s = 0
        while s < full {
            if group(A.self, E.self, s, 4) { ready = true }
            s += 4
        }
        if s < n && group(A.self, E.self, s, n - s) { ready = true }
        return ready
    }

    @inline(__always) func load(_ p: UnsafeMutablePointer<Float>, _ s: Int) -> V {
        UnsafeRawPointer(p + s).loadUnaligned(as: V.self)
    }
    /// Four (x, y) pairs, split into x and y.
    @inline(__always) func loadSplit(_ p: UnsafeMutableRawPointer, _ s: Int) -> (V, V) {
        let a = (p + 8 &* s).loadUnaligned(as: V.self), b = (p + 8 &* s + 16).loadUnaligned(as: V.self)
        return (dk_even4(a, b), dk_odd4(a, b))
    }
    @inline(__always) func store(_ p: UnsafeMutablePointer<Float>, _ s: Int, _ v: V, _ lanes: Int) {
        if lanes == 4 { UnsafeMutableRawPointer(p + s).storeBytes(of: v, as: V.self); return }
        for l in 0..<lanes { p[s + l] = v[l] }
    }
    /// Stores four x and four y as (x, y) pairs.
    @inline(__always) func storeMerged(_ p: UnsafeMutableRawPointer, _ s: Int, _ x: V, _ y: V, _ lanes: Int) {
        if lanes == 4 {
            (p + 8 &* s).storeBytes(of: dk_ziplo4(x, y), as: V.self)
            (p + 8 &* s + 16).storeBytes(of: dk_ziphi4(x, y), as: V.self)
            return
        }
        for l in 0..<lanes {
            (p + 8 &* (s &+ l)).storeBytes(of: x[l], as: Float.self)
            (p + 8 &* (s &+ l) + 4).storeBytes(of: y[l], as: Float.self)
        }
    }

    /// One group of four bodies from slot s (only the first `lanes` live); returns whether one is ready to sleep.
    @inline(__always)
    func group<A: FreeAccelerator, E: FreeFlag>(_: A.Type, _: E.Type, _ s: Int, _ lanes: Int) -> Bool {
        typealias I = SIMD4<Int32>
        let live = lanes == 4 ? I(repeating: -1) : (I(0, 1, 2, 3) &- I(repeating: Int32(lanes))) &>> 31
        let p0 = (pos + 8 &* s).loadUnaligned(as: V.self), p1 = (pos + 8 &* s + 16).loadUnaligned(as: V.self)
        var x = dk_even4(p0, p1), y = dk_odd4(p0, p1)
        var (vx, vy) = loadSplit(vel, s)

        // Fields, evaluated at the position before the step. (Sums start at −0: see FreeCentralFields.)
        var ax = V(repeating: -0.0), ay = V(repeating: -0.0), fx = V(repeating: -0.0), fy = V(repeating: -0.0)
        A.add(x, y, p0, p1, self, &ax, &ay, &fx, &fy)
        if E.on && gravityOn {
            let (gx, gy) = loadSplit(grav, s)
            ax = gx + ax; ay = gy + ay
        }
        if E.on && (forceOn || springs) {
            let im = load(invMass, s)
            if forceOn {
                let (cx, cy) = loadSplit(force, s)
                fx = cx + fx; fy = cy + fy
            }
            ax = ax + (im * fx); ay = ay + (im * fy)
        }

        // All substeps at once.
        let d = E.on ? load(decay, s) : undampedDecay, g = E.on ? load(gain, s) : undampedGain
        let pg = E.on ? load(positionGain, s) : undampedPositionGain
        // The barriers keep LLVM from re-forming the integration on the stored (x, y) pairs in half vectors.
        x = dk_opaque4(x + g * vx + pg * ax)
        y = dk_opaque4(y + g * vy + pg * ay)
        vx = dk_opaque4(d * vx + g * ax)
        vy = dk_opaque4(d * vy + g * ay)
        storeMerged(pos, s, x, y, lanes)
        storeMerged(vel, s, vx, vy, lanes)
        let speed2 = vx * vx + vy * vy

        // Rotation: most swarms do not turn; the bodies that do take the scalar path.
        var w = load(angVel, s)
        var spinning = dk_ne4(w, .zero)
        if E.on && torqueOn { spinning = spinning | (dk_ne4(load(torqueA, s), .zero) | dk_ne4(load(torqueB, s), .zero)) }
        spinning = spinning & live
        if dk_any4(spinning) != 0 {
            for l in 0..<lanes where spinning[l] != 0 { world.integrateSpin(slot: s + l, h: h, substeps: substeps) }
            w = load(angVel, s)
        }

        // The rest test of `restTest`, lane for lane.
        let e = load(ext, s), spin = dk_abs4(w)
        let fast = dk_lt4(fastSpeed2, speed2) | (dk_lt4(fastSpin, spin) & dk_lt4(fastEdge, spin * e))
        if dk_all4(fast | ~live) != 0 {
            store(sleep, s, V(repeating: -1), lanes)
            return false
        }
        // The new positions are read back from memory: keeping them in registers through the fast path above costs
        // spills in every group.
        (x, y) = loadSplit(pos, s)
        let (rc, rs) = loadSplit(rot, s)
        let (px, py) = loadSplit(anchor, s)
        let ex = x - px, ey = y - py
        let drift = dk_lt4(drift2, ex * ex + ey * ey)
        let (qc, qs) = loadSplit(anchorRot, s)
        let oneMinusCos = 1 - (qc * rc + qs * rs)
        let turned = dk_lt4(halfTurn2, oneMinusCos) & (dk_le4(e, .zero) | dk_lt4(halfDrift2, oneMinusCos * (e * e)))
        let before = load(sleep, s)
        let reset = dk_lt4(before, .zero) | drift | turned
        let after = before + dt
        let crossed = dk_ne4(restWindowIndex(after * invWindow), restWindowIndex(before * invWindow))
        let time = dk_select4(fast, V(repeating: -1), dk_select4(reset, .zero, after))
        let move = (reset | crossed) & ~fast
        store(sleep, s, time, lanes)
        storeMerged(anchor, s, dk_select4(move, x, px), dk_select4(move, y, py), lanes)
        storeMerged(anchorRot, s, dk_select4(move, rc, qc), dk_select4(move, rs, qs), lanes)
        return dk_any4(dk_le4(readyTime, time) & live) != 0
    }
}
