import DynamicsSIMD

// The free-motion pass.
//
// A step in which nothing can collide, no joint is awake and every field is a built-in kind acting on every body
// everywhere (a field-driven swarm, items falling with no collision behavior) has no constraint to solve. Its
// whole step is then one pass over the awake bodies, several at a time with their state in registers: the fields,
// all substeps of integration in closed form (`World.updateDampingFactors`), and the rest test of the sleep stage.
// The closed form is the substep loop's algebra, not an approximation: results agree with the loop to rounding.
//
// This file compiles the fields into plain tables and chooses the program: no fields; the central form, where
// radial gravity and vortices about one point are summed per falloff into two coefficients (so the common swarm
// costs one square root and one division per body); or the general loop over any compiled fields. The kernel is
// `dk_free_motion` in DynamicsSIMD (FreeMotionBody.h), C so that one source builds at 4 lanes (SSE2, NEON) and,
// chosen at run time on x86-64, at 8 lanes (AVX2) and 16 (AVX-512). The widths do the same IEEE operations in
// the same order, so results do not depend on the processor (the `widerKernelsMatchFourLanes` tests). Each program is
// specialised per set of falloffs present, and again without gravity, forces, torques, spring fields and
// per-body damping terms when none is in use. A body that turns takes the scalar `integrateSpin` through a
// callback.

/// ⌊q⌋ for 0 ≤ q < 2²³ without a rounding instruction (SSE2 has none): adding and removing 2²³ rounds to the
/// nearest integer, which is then corrected down. The rest test uses it to tell when a body's rest time enters a
/// new window; the free-motion kernel's `windowIndex` (FreeMotionBody.h) does the same arithmetic, so they agree
/// exactly.
@inline(__always) func restWindowIndex(_ q: Float) -> Float {
    let t = (q + 8_388_608) - 8_388_608
    return t > q ? t - 1 : t
}

extension World {
    /// Whether this step can run as the free-motion pass; compiles its fields into `freeFields` if so.
    func prepareFreeMotion() -> Bool {
        guard !collisionFilter.classActive.contains(true) else { return false }
        if jointStore.awakeDirty { refreshAwakeJoints() }
        guard jointStore.awake.isEmpty, contactStore.contacts.isEmpty else { return false }
        freeMotion.fields.deinitialize(count: freeMotion.fieldCount)
        freeMotion.fieldCount = 0
        var previous: dk_free_field?
        // Each record's fields read in place: a copy of a record (its body lists, its region's program, its
        // definition's closure) would be retained and released every step.
        let compiled = fieldStore.records.withUnsafeBufferPointer { records -> Bool in
            for index in records.indices {
                let record = records.baseAddress! + index
                guard record.pointee.coversAll, record.pointee.bodySetVersion == bodySetVersion,
                      record.pointee.region.isInfinite else { return false }
                let falloff: Int
                switch record.pointee.def.falloff {
                case 0: falloff = 0
                case 1: falloff = 1
                case 2: falloff = 2
                case -1: falloff = -1
                default: return false
                }
                let strength = record.pointee.def.strength
                let kind: FreeFieldKind, k: Float
                switch record.pointee.def.kind {
                case .radialGravity: kind = .radial; k = -100 * strength
                case .vortex: kind = .vortex; k = 100 * strength
                case .spring where FieldMotion.integratesExactly(record.pointee.def): return false
                case .spring: kind = .spring; k = -100 * strength
                case .linearGravity: kind = .linear; k = 0
                default: return false
                }
                let minR = Swift.max(record.pointee.def.minimumRadius, 1e-6) / 100
                let c = record.pointee.def.position
                let same = previous.map { $0.cx == c.x && $0.cy == c.y } ?? false
                let dir = 100 * strength * record.pointee.def.direction
                let f = dk_free_field(kind: Int32(kind.rawValue), falloff: Int32(falloff), sameCenter: same ? 1 : 0,
                                      cx: c.x, cy: c.y, k: k, kx: dir.x, ky: dir.y, minR: minR, invMinR: 1 / minR)
                freeMotion.fields.append(f, count: freeMotion.fieldCount)
                freeMotion.fieldCount += 1
                previous = f
            }
            return true
        }
        guard compiled else { return false }
        compileFreeProgram()
        return true
    }

    /// Chooses the kernel for the compiled fields: none; the central form when every field is radial gravity or a
    /// vortex about one point, the fields with falloff 1 or 2 sharing one minimum radius and those with falloff −1
    /// another (their coefficients summed per falloff); else the general loop.
    func compileFreeProgram() {
        let list = freeMotion.fields.buffer(count: freeMotion.fieldCount)
        guard let first = list.first else { freeMotion.program = .none; return }
        var c = dk_free_central()
        c.cx = first.cx
        c.cy = first.cy
        var inverseMin: Float?, plainMin: Float?
        var mask: UInt8 = 0
        let radialKind = Int32(FreeFieldKind.radial.rawValue), vortexKind = Int32(FreeFieldKind.vortex.rawValue)
        for f in list {
            guard f.kind == radialKind || f.kind == vortexKind, f.cx == first.cx, f.cy == first.cy else {
                freeMotion.program = .general
                return
            }
            if f.falloff == 1 || f.falloff == 2 {
                if let m = inverseMin, m != f.minR { freeMotion.program = .general; return }
                inverseMin = f.minR
                c.invMinR = f.invMinR
                c.invMinR2 = f.invMinR * f.invMinR
            } else if f.falloff == -1 {
                if let m = plainMin, m != f.minR { freeMotion.program = .general; return }
                plainMin = f.minR
                c.minR = f.minR
            }
            let radial = f.kind == radialKind
            switch f.falloff {
            case 0: mask |= 1; if radial { c.a0 += f.k } else { c.b0 += f.k }
            case 1: mask |= 2; if radial { c.a1 += f.k } else { c.b1 += f.k }
            case 2: mask |= 4; if radial { c.a2 += f.k } else { c.b2 += f.k }
            default: mask |= 8; if radial { c.am += f.k } else { c.bm += f.k }
            }
        }
        freeMotion.central = c
        freeMotion.program = .central(mask)
    }

    /// Turns a body through the substeps (torque, angular damping, rotation); the scalar part of both
    /// unconstrained integration paths.
    @inline(__always)
    func integrateSpin(slot i: Int, h: Float, substeps: Int) {
        bodies.withColumns { columns in
            let angVel = columns.angularVelocity, rot = columns.rotation
            var w = angVel[i]
            var q = rot[i]
            // A body without torque or damping columns reads their defaults, 0 and 1 (see `LazyColumn`).
            let invI = bodies.invInertia[i], tA = bodies.torqueA[i], tB = bodies.torqueB[i]
            let angDamp = bodies.angularDampingFactor[i]
            for _ in 0..<substeps {
                w = (w + h * invI * (q.c * tA - q.s * tB)) * angDamp
                if w != 0 { q = q.integrated(by: h * w) }
            }
            angVel[i] = w
            rot[i] = q
        }
    }

    /// The pass itself (see the top of this file). Returns whether some body has rested long enough to sleep.
    func freeMotionPass(dt: Float, h: Float, substeps: Int) -> Bool {
        return bodies.withColumns { columns in
            guard bodies.awakeCount > 0 else { return false }
            let b = bodies
            let fieldList = freeMotion.fields.buffer(count: freeMotion.fieldCount)
            let springs = fieldList.contains { $0.kind == Int32(FreeFieldKind.spring.rawValue) }
            let lin = settings.sleepLinearVelocity, ang = settings.sleepAngularVelocity
            let window = settings.timeToSleep
            let maxDrift = lin * window, maxTurn = ang * window
            let (sh, sn) = dampingStep
            let undamped = World.dampingTerms(0, h: sh, substeps: sn)
            func raw(_ p: UnsafeMutablePointer<Vec2>) -> UnsafeMutablePointer<Float> {
                UnsafeMutableRawPointer(p).assumingMemoryBound(to: Float.self)
            }
            func raw(_ p: UnsafeMutablePointer<Rotation>) -> UnsafeMutablePointer<Float> {
                UnsafeMutableRawPointer(p).assumingMemoryBound(to: Float.self)
            }
            var spinContext = FreeSpinContext(world: self, h: h, substeps: substeps)
            return withUnsafeMutablePointer(to: &spinContext) { context in
                var p = dk_free_params()
                p.position = raw(columns.position); p.velocity = raw(columns.velocity); p.rotation = raw(columns.rotation)
                p.anchor = raw(columns.restAnchor); p.anchorRotation = raw(columns.restAnchorRotation)
                p.gravity = UnsafePointer(raw(columns.gravity)); p.force = columns.force.map { UnsafePointer(raw($0)) }
                p.angularVelocity = columns.angularVelocity; p.sleepTime = columns.sleepTime
                p.invMass = UnsafePointer(columns.invMass)
                p.torqueA = columns.torqueA.map { UnsafePointer($0) }; p.torqueB = columns.torqueB.map { UnsafePointer($0) }
                p.extent = UnsafePointer(columns.extent)
                p.decay = columns.freeDecay.map { UnsafePointer($0) }; p.gain = columns.freeGain.map { UnsafePointer($0) }
                p.positionGain = columns.freePositionGain.map { UnsafePointer($0) }
                p.count = b.awakeCount
                p.central = freeMotion.central
                switch freeMotion.program {
                case .none: p.program = 0
                case .central(let mask): p.program = 1; p.central.mask = Int32(mask)
                case .general: p.program = 2
                }
                // Without gravity, constant forces, torques, spring fields or linear damping (a field swarm), the
                // kernel has none of their tests or loads, and every body shares one set of integration terms.
                p.perBody = freeMotion.gravityInUse || forceInUse || torqueInUse || springs || linearDampingInUse ? 1 : 0
                p.gravityOn = freeMotion.gravityInUse ? 1 : 0; p.forceOn = forceInUse ? 1 : 0
                p.torqueOn = torqueInUse ? 1 : 0; p.springs = springs ? 1 : 0
                p.dampingOn = linearDampingInUse ? 1 : 0
                p.fields = fieldList.baseAddress
                p.fieldCount = fieldList.count
                p.dt = dt
                p.fastSpeed2 = 16 * lin * lin; p.fastSpin = 4 * ang; p.fastEdge = 4 * lin
                p.drift2 = maxDrift * maxDrift
                p.halfTurn2 = 0.5 * maxTurn * maxTurn; p.halfDrift2 = 0.5 * maxDrift * maxDrift
                p.readyTime = window
                p.maxSpeed = settings.maximumLinearSpeed
                p.maxSpeed2 = settings.maximumLinearSpeed * settings.maximumLinearSpeed
                p.invWindow = 1 / window
                p.undampedDecay = undamped.decay; p.undampedGain = undamped.gain
                p.undampedPositionGain = undamped.positionGain
                p.spin = { context, slot in
                    let c = context!.assumingMemoryBound(to: FreeSpinContext.self)
                    c.pointee.world.integrateSpin(slot: slot, h: c.pointee.h, substeps: c.pointee.substeps)
                }
                p.context = UnsafeMutableRawPointer(context)
                // Bodies in blocks, on every worker: each body's pass reads and writes its own slots only. The pass
                // costs 0.6–2 ns a body (16 to 4 lanes) and handing it out about a microsecond, so it is handed out
                // from 8,192 bodies, in blocks of 1,024 that the threads share evenly (10,000 bodies in blocks of
                // 4,096 would leave one thread two of the three).
                return withUnsafePointer(to: &p) { p in
                    anyInBlocks(count: b.awakeCount, minimumBlock: 1024, parallelMinimum: 8192) { range in
                        dk_free_motion_range(p, range.lowerBound, range.upperBound) != 0
                    }
                }
            }
        }
    }
}

/// What the kernel's spin callback needs.
struct FreeSpinContext {
    unowned(unsafe) let world: World
    let h: Float
    let substeps: Int
}

/// The field kinds of the free-motion pass (`dk_free_field.kind`).
enum FreeFieldKind: Int32 { case radial, vortex, spring, linear }

/// How the free-motion pass evaluates its fields.
enum FreeProgram {
    case none
    /// Radial gravity and vortices about one point with one minimum radius; bit k set when a field has falloff
    /// k (bits 0, 1, 2) or −1 (bit 3).
    case central(UInt8)
    case general
}

/// What the free-motion pass (gravity, forces, fields, damping) keeps between steps: the damping terms' step,
/// the compiled fields and how the pass evaluates them.
struct FreeMotionState {
    var dampingH: Float = 0
    var dampingSubsteps = 0
    /// Set once any body has a non-zero gravity (never cleared): while false, the free-motion pass skips the column.
    var gravityInUse = false
    /// The fields of the free-motion pass, compiled each step it runs (reused scratch; a raw column so the pass
    /// reads it without a closure).
    var fields = Column<dk_free_field>()
    var fieldCount = 0
    /// How the pass evaluates `freeFields`, and the combined coefficients of the central form (its `mask` is
    /// `freeProgram`'s, filled in when the pass runs).
    var program = FreeProgram.none
    var central = dk_free_central()

    init() {}
}
