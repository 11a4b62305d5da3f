extension World {
    /// Replaces the field table: fields apply in the order given (the object layer passes them in behavior-tree
    /// order), each to its own bodies. Refuses invalid parameters and stale bodies. Wakes the sleeping bodies of
    /// fields that changed, so a field wakes the items it would move.
    public func setFields(_ list: [(FieldDefinition, [BodyID])]) throws {
        var records: [FieldRecord] = []
        records.reserveCapacity(list.count)
        for (k, (def, ids)) in list.enumerated() {
            do { try def.validate() } catch { throw DynamicsError("field \(k): \(error)") }
            for id in ids where !bodies.isValid(id) { throw DynamicsError("field \(k): \(id) is stale or was never created") }
            var unique = Set<Int32>()
            var allDynamic = true
            for id in ids { unique.insert(id.index); if bodies.type(Int(id.index)) != .dynamic { allDynamic = false } }
            let coversAll = allDynamic && unique.count == dynamicBodyCount
            records.append(FieldRecord(def: def, region: RegionProgram(def.region), bodies: ids.map(\.index),
                                       generations: ids.map(\.generation), coversAll: coversAll, bodySetVersion: bodySetVersion))
        }
        for r in records { for b in r.bodies { wakeBody(Int(b)) } }
        fieldStore.records = records
        fieldStore.warned = [Bool](repeating: false, count: records.count)
    }

    /// Number of fields.
    public var fieldCount: Int { fieldStore.records.count }

    /// Adds this step's field accelerations to the bodies' gravity for the step (and clears them from the field
    /// column), so that the broadphase's swept boxes and the narrowphase's speculative reach, which foresee gravity,
    /// foresee the fields too: an item a strong field throws at a wall within one step (through the core of a
    /// well) meets it. The velocity integration sums the same terms in the same order, so the motion does not
    /// change. `unfoldFieldAcceleration` restores the gravity after the solve.
    func foldFieldAcceleration() {
        bodies.withColumns { columns in
            fieldStore.foldedGravityCount = 0
            guard fieldStore.active else { return }
            let n = Swift.min(bodies.awakeCount, fieldStore.coveredCount, fieldStore.acceleration.count)
            guard n > 0 else { return }
            let g = columns.gravity
            fieldStore.savedGravity.removeAll(keepingCapacity: true)
            fieldStore.savedGravity.append(contentsOf: UnsafeBufferPointer(start: g, count: n))
            fieldStore.acceleration.withUnsafeMutableBufferPointer { a in
                for s in 0..<n {
                    g[s] = g[s] + a[s]
                    a[s] = .zero
                }
            }
            fieldStore.foldedGravityCount = n
        }
    }

    /// Gives the bodies their own gravity back (`foldFieldAcceleration`).
    func unfoldFieldAcceleration() {
        bodies.withColumns { columns in
            guard fieldStore.foldedGravityCount > 0 else { return }
            let g = columns.gravity
            fieldStore.savedGravity.withUnsafeBufferPointer { saved in
                for s in 0..<fieldStore.foldedGravityCount { g[s] = saved[s] }
            }
            fieldStore.foldedGravityCount = 0
        }
    }

    /// No field may change a speed by more than the world's speed limit in one step: a force that grows without
    /// bound (a negative falloff far away, the singular core of a well) is held there.
    func capFieldTerms(dt: Float, count n: Int) {
        bodies.withColumns { columns in
            let maxAcceleration = settings.maximumLinearSpeed / dt
            let invMass = columns.invMass
            fieldStore.acceleration.withUnsafeMutableBufferPointer { a in
            fieldStore.force.withUnsafeMutableBufferPointer { f in
                @inline(__always) func capped(_ v: Vec2, _ limit: Float) -> Vec2 {
                    let l2 = lengthSquared(v)
                    if l2 <= limit * limit { return v }
                    return l2.isFinite ? (limit / l2.squareRoot()) * v : .zero
                }
                for s in 0..<Swift.min(n, a.count, f.count) {
                    a[s] = capped(a[s], maxAcceleration)
                    let inverseMass = invMass[s]
                    if inverseMass > 0 { f[s] = capped(f[s], maxAcceleration / inverseMass) }
                }
            }
            }
        }
    }

    /// Stage 2: evaluates every field over its awake bodies at their positions before the step, into the
    /// per-step field force column (mass·points/s²) and velocity overrides.
    func applyFields(dt: Float, substeps: Int) {
        bodies.withColumns { columns in
            let n = bodies.awakeCount
            fieldStore.hasVelocityOverride = false
            fieldStore.motion.active = false
            // No fields: the field columns are not needed (nor allocated).
            guard !fieldStore.records.isEmpty else { fieldStore.active = false; fieldStore.motion.release(); return }
            let needsMotion = fieldStore.records.contains { FieldMotion.integratesExactly($0.def) }
            if needsMotion { fieldStore.motion.begin(count: n) } else { fieldStore.motion.release() }
            if fieldStore.force.count < n { fieldStore.force.append(contentsOf: repeatElement(.zero, count: n - fieldStore.force.count)) }
            if fieldStore.acceleration.count < n { fieldStore.acceleration.append(contentsOf: repeatElement(.zero, count: n - fieldStore.acceleration.count)) }
            if fieldStore.velocityOverride.count < n { fieldStore.velocityOverride.append(contentsOf: repeatElement(Vec2(.nan, .nan), count: n - fieldStore.velocityOverride.count)) }
            fieldStore.active = true
            fieldStore.coveredCount = n
            fieldStore.force.withUnsafeMutableBufferPointer { $0.update(repeating: .zero) }
            fieldStore.acceleration.withUnsafeMutableBufferPointer { $0.update(repeating: .zero) }
            if fieldStore.velocityOverrideWritten {
                fieldStore.velocityOverride.withUnsafeMutableBufferPointer { $0.update(repeating: Vec2(.nan, .nan)) }
                fieldStore.velocityOverrideWritten = false
            }
            // Fields over every dynamic body with no region: contiguous kernels over the awake range.
            var general = fieldStore.generalScratch
            fieldStore.generalScratch = []
            general.removeAll(keepingCapacity: true)
            defer { fieldStore.generalScratch = general }
            for f in 0..<fieldStore.records.count {
                let r = fieldStore.records[f]
                if r.coversAll && r.bodySetVersion == bodySetVersion && r.region.isInfinite && !FieldMotion.integratesExactly(r.def)
                    && applyFieldOverAwakeRange(r.def, count: n) { continue }
                general.append(f)
            }
            defer { capFieldTerms(dt: dt, count: n) }
            guard !general.isEmpty else { fieldStore.time += dt; return }
            var motion = fieldStore.motion
            fieldStore.motion = FieldMotion()
            defer {
                if motion.active { motion.finish(h: dt / Float(substeps), invMass: columns.invMass, count: n) }
                fieldStore.motion = motion
            }
            let pos = columns.position, vel = columns.velocity
            let slot = bodies.slot, generation = bodies.generation, mass = bodies.mass, charges = bodies.charge
            let sleepingIsland = bodies.sleepingIsland
            let time = fieldStore.time
            let fields = self.fieldStore.records
            var anyOverride = false
            var toWake: [Int] = []
            fieldStore.force.withUnsafeMutableBufferPointer { force in
            fieldStore.acceleration.withUnsafeMutableBufferPointer { acceleration in
            fieldStore.velocityOverride.withUnsafeMutableBufferPointer { override in
                for f in general {
                    let record = fields[f]
                    let def = record.def
                    let center = def.position, strength = def.strength, falloff = def.falloff
                    let minR = Swift.max(def.minimumRadius, 1e-6) / 100
                    let animated = (def.kind == .noise || def.kind == .turbulence) && def.animationSpeed != 0
                    // Spatial frequency of the noise: 0.25 (smooth) to 4.25 (rough) cycles per metre.
                    let frequency = 0.25 + 4 * (1 - def.smoothness)
                    let noiseTime = time * def.animationSpeed
                    for k in 0..<record.bodies.count {
                        let i = Int(record.bodies[k])
                        guard generation[i] == record.generations[k] else { continue }
                        let s = Int(slot[i])
                        if s >= n {
                            // Asleep or static: an animated field changes its push, so it wakes what it would move.
                            if animated, sleepingIsland[i] >= 0, record.region.contains(pos[s] - center) { toWake.append(i) }
                            continue
                        }
                        let p = pos[s]
                        let rel = p - center
                        guard record.region.contains(rel) else { continue }
                        let dist = lengthSquared(rel).squareRoot()
                        let r = Swift.max(dist * 0.01, minR)
                        // r^(−falloff), with the common exponents computed without pow.
                        let scale: Float
                        switch falloff {
                        case 0: scale = 1
                        case 1: scale = 1 / r
                        case 2: scale = 1 / (r * r)
                        case -1: scale = r
                        default: scale = Float(_pow(Double(r), Double(-falloff)))
                        }
                        let inv: Float = dist > 0 ? 1 / dist : 0
                        let dir = inv * rel
                        let m = mass[i], q = charges[i], v = vel[s]
                        var F = Vec2.zero // UIKit newtons
                        // Mass-proportional kinds add an acceleration (points/s²): 100 · F / m. The arithmetic matches
                        // `applyFieldOverAwakeRange` to the bit, so results do not depend on which path ran.
                        switch def.kind {
                        case .linearGravity: acceleration[s] += scale * (100 * strength * def.direction); continue
                        case .radialGravity: acceleration[s] += (-100 * strength * scale * inv) * rel; continue
                        case .vortex: acceleration[s] += (100 * strength * scale * inv) * Vec2(rel.y, -rel.x); continue
                        case .noise:
                            acceleration[s] += 100 * strength * scale * GradientNoise.vector(p / 100 * frequency, time: noiseTime, seed: def.seed)
                            continue
                        case .turbulence:
                            acceleration[s] += 100 * strength * scale * (length(v) / 100) * GradientNoise.vector(p / 100 * frequency, time: noiseTime, seed: def.seed)
                            continue
                        case .spring where falloff == -1:
                            // A linear spring: 100·strength·r UIKit newtons per metre is `strength` per point.
                            motion.addSpring(slot: s, stiffness: strength, center: center)
                            continue
                        case .spring: force[s] += (-100 * strength * scale * inv) * rel; continue
                        case .electric: F = strength * q * scale * dir
                        case .magnetic:
                            // F = strength·q·scale·(v.y, −v.x) / 100 UIKit newtons: a turn rate, not a force.
                            motion.addTurn(slot: s, rate: strength * q * scale)
                            continue
                        case .drag:
                            // F = −strength·scale·v / 100 UIKit newtons: a decay rate, not a force.
                            motion.addDrag(slot: s, rate: strength * scale)
                            continue
                        case .velocity:
                            override[s] = def.direction * (100 * strength)
                            anyOverride = true
                            continue
                        case .custom:
                            let out = def.evaluate!(FieldSample(position: p, velocity: v, mass: m, charge: q, deltaTime: dt))
                            guard out.x.isFinite && out.y.isFinite else {
                                if !fieldStore.warned[f] {
                                    fieldStore.warned[f] = true
                                    warnings.append("field \(f) (custom): the evaluation block returned a non-finite force (\(out.x), \(out.y)) for body \(i); the force was ignored (reported once per field)")
                                }
                                continue
                            }
                            F = out
                        }
                        force[s] += 100 * F
                    }
                }
            }
            }
            }
            fieldStore.hasVelocityOverride = anyOverride
            if anyOverride { fieldStore.velocityOverrideWritten = true }
            for i in toWake { wakeBody(i) }
            fieldStore.time += dt
        }
    }

    /// The kernels for fields that hold every dynamic body and act everywhere: one contiguous loop over the awake
    /// range per field, with the falloff exponent decided outside the loop. Returns false for kinds that need the
    /// general path.
    func applyFieldOverAwakeRange(_ def: FieldDefinition, count n: Int) -> Bool {
        return bodies.withColumns { columns in
            let pos = columns.position
            let center = def.position, strength = def.strength
            let minR = Swift.max(def.minimumRadius, 1e-6) / 100
            @inline(__always) func kernel(_ scale: (Float) -> Float, _ body: (Int, Vec2, Float, Float) -> Void) {
                for s in 0..<n {
                    let rel = pos[s] - center
                    let dist = lengthSquared(rel).squareRoot()
                    let r = Swift.max(dist * 0.01, minR)
                    body(s, rel, dist > 0 ? 1 / dist : 0, scale(r))
                }
            }
            @inline(__always) func run(_ body: (Int, Vec2, Float, Float) -> Void) {
                switch def.falloff {
                case 0: kernel({ _ in 1 }, body)
                case 1: kernel({ 1 / $0 }, body)
                case 2: kernel({ 1 / ($0 * $0) }, body)
                case -1: kernel({ $0 }, body)
                default:
                    let e = Double(-def.falloff)
                    kernel({ Float(_pow(Double($0), e)) }, body)
                }
            }
            // Radial kinds, four items at a time: (x, y) pairs are split into x and y vectors, and the result is
            // interleaved back. Each lane does the scalar path's operations in its order, so results are identical.
            @inline(__always) func radial4(_ k: Float, turn: Bool, into out: UnsafeMutablePointer<Vec2>) {
                let falloff = def.falloff
                @inline(__always) func scale4(_ r: SIMD4<Float>) -> SIMD4<Float> {
                    switch falloff {
                    case 0: return SIMD4(repeating: 1)
                    case 1: return 1 / r
                    case 2: return 1 / (r * r)
                    case -1: return r
                    default:
                        let e = Double(-falloff)
                        return SIMD4(Float(_pow(Double(r[0]), e)), Float(_pow(Double(r[1]), e)), Float(_pow(Double(r[2]), e)), Float(_pow(Double(r[3]), e)))
                    }
                }
                @inline(__always) func scale1(_ r: Float) -> Float {
                    switch falloff {
                    case 0: return 1
                    case 1: return 1 / r
                    case 2: return 1 / (r * r)
                    case -1: return r
                    default: return Float(_pow(Double(r), Double(-falloff)))
                    }
                }
                let cx = SIMD4<Float>(repeating: center.x), cy = SIMD4<Float>(repeating: center.y)
                let minR4 = SIMD4<Float>(repeating: minR), kk = SIMD4<Float>(repeating: k)
                var s = 0
                while s + 4 <= n {
                    let a = UnsafeRawPointer(pos + s).loadUnaligned(as: SIMD4<Float>.self)
                    let b = UnsafeRawPointer(pos + s + 2).loadUnaligned(as: SIMD4<Float>.self)
                    let x = SIMD4(a[0], a[2], b[0], b[2]) - cx
                    let y = SIMD4(a[1], a[3], b[1], b[3]) - cy
                    let dist = (x * x + y * y).squareRoot()
                    let r = pointwiseMax(dist * 0.01, minR4)
                    let inv = (1 / dist).replacing(with: 0, where: dist .<= 0)
                    let c = kk * scale4(r) * inv
                    let fx = turn ? c * y : c * x
                    let fy = turn ? c * -x : c * y
                    let o0 = UnsafeRawPointer(out + s).loadUnaligned(as: SIMD4<Float>.self)
                    let o1 = UnsafeRawPointer(out + s + 2).loadUnaligned(as: SIMD4<Float>.self)
                    UnsafeMutableRawPointer(out + s).storeBytes(of: o0 + SIMD4(fx[0], fy[0], fx[1], fy[1]), as: SIMD4<Float>.self)
                    UnsafeMutableRawPointer(out + s + 2).storeBytes(of: o1 + SIMD4(fx[2], fy[2], fx[3], fy[3]), as: SIMD4<Float>.self)
                    s += 4
                }
                while s < n {
                    let rel = pos[s] - center
                    let dist = lengthSquared(rel).squareRoot()
                    let r = Swift.max(dist * 0.01, minR)
                    let inv: Float = dist > 0 ? 1 / dist : 0
                    let c = k * scale1(r) * inv
                    out[s] += turn ? c * Vec2(rel.y, -rel.x) : c * rel
                    s += 1
                }
            }
            switch def.kind {
            case .radialGravity:
                fieldStore.acceleration.withUnsafeMutableBufferPointer { radial4(-100 * strength, turn: false, into: $0.baseAddress!) }
            case .vortex:
                fieldStore.acceleration.withUnsafeMutableBufferPointer { radial4(100 * strength, turn: true, into: $0.baseAddress!) }
            case .spring:
                fieldStore.force.withUnsafeMutableBufferPointer { radial4(-100 * strength, turn: false, into: $0.baseAddress!) }
            case .linearGravity:
                let k = 100 * strength * def.direction
                fieldStore.acceleration.withUnsafeMutableBufferPointer { a in run { s, _, _, scale in a[s] += scale * k } }
            default:
                return false
            }
            return true
        }
    }

    /// Messages about problems found while stepping (for example a custom field returning NaN), oldest first;
    /// the owner drains them with `takeWarnings()`.
    public func takeWarnings() -> [String] {
        let w = warnings
        warnings.removeAll()
        return w
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
#endif
@inline(__always) func _pow(_ x: Double, _ y: Double) -> Double { pow(x, y) }
