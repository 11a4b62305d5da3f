import DynamicsSIMD

extension World {
    /// Per-substep damping factors, and the closed form of the substeps for a body nothing constrains: with
    /// d = e^(−c·h), n substeps of v ← (v + h·a)·d, x ← x + h·v give v_n = dⁿ·v₀ + h·S·a and
    /// x_n = x₀ + h·S·v₀ + h²·T·a, where S = Σ_{k=1…n} dᵏ and T = Σ_{j=1…n} Σ_{k=1…j} dᵏ.
    /// The per-substep linear factor d = e^(−damping·h) and the closed form of `n` substeps:
    /// (dⁿ, h·Σdᵏ, h²·ΣΣdᵏ) for velocity decay, velocity gain and position gain (see the free-motion pass).
    static func dampingTerms(_ damping: Float, h: Float, substeps n: Int) -> (d: Float, decay: Float, gain: Float, positionGain: Float) {
        let d = _exp(-damping * h)
        var power: Float = 1, sum: Float = 0, sumOfSums: Float = 0
        for _ in 0..<n { power *= d; sum += power; sumOfSums += sum }
        return (d, power, h * sum, h * h * sumOfSums)
    }

    /// Sets body i's damping rates. The first body with a rate other than 0 gives the damping columns their
    /// buffers (see `LazyColumn`), with every body's linear terms; the caller then sets body i's terms.
    func setDampingRates(_ i: Int, linear: Float, angular: Float) {
        bodies.linearDamping.set(i, linear, ids: bodies.idCapacity)
        bodies.angularDamping.set(i, angular, ids: bodies.idCapacity)
        if linear != 0 && !bodies.linearDampingFactor.isPresent {
            bodies.materializeLinearDamping()
            updateAllDampingFactors()
        }
        if angular != 0 { bodies.materializeAngularDamping() }
    }

    var dampingStep: (h: Float, n: Int) {
        (freeMotion.dampingH > 0 ? freeMotion.dampingH : Float(1.0 / 240.0), freeMotion.dampingSubsteps > 0 ? freeMotion.dampingSubsteps : 4)
    }

    /// `updateDampingFactors(slot:id:)` for every body, when the substep length or count changes: over raw
    /// columns, and reusing the terms of the previous body when its damping is the same (the common case), so
    /// ten thousand bodies cost well under a millisecond on the first step.
    func updateAllDampingFactors() {
        bodies.withColumns { columns in
            let (h, n) = dampingStep
            let index = columns.bodyIndex
            if let linearFactor = columns.linearDampingFactor, let decay = columns.freeDecay,
               let gain = columns.freeGain, let positionGain = columns.freePositionGain {
                let linear = bodies.linearDamping
                var last = Float.nan
                var terms = Self.dampingTerms(0, h: h, substeps: n)
                for s in 0..<bodies.count {
                    let l = linear[Int(index[s])]
                    if l != last { last = l; terms = Self.dampingTerms(l, h: h, substeps: n) }
                    linearFactor[s] = terms.d
                    decay[s] = terms.decay
                    gain[s] = terms.gain
                    positionGain[s] = terms.positionGain
                }
            }
            if let angularFactor = columns.angularDampingFactor {
                let angular = bodies.angularDamping
                var last = Float.nan, da: Float = 1
                for s in 0..<bodies.count {
                    let a = angular[Int(index[s])]
                    if a != last { last = a; da = _exp(-a * h) }
                    angularFactor[s] = da
                }
            }
        }
    }

    /// The damping terms of one slot, where its columns are present (else every body's are the undamped ones).
    func updateDampingFactors(slot s: Int, id i: Int) {
        let (h, n) = dampingStep
        if bodies.linearDampingFactor.isPresent {
            let terms = Self.dampingTerms(bodies.linearDamping[i], h: h, substeps: n)
            bodies.linearDampingFactor[s] = terms.d
            bodies.freeDecay[s] = terms.decay
            bodies.freeGain[s] = terms.gain
            bodies.freePositionGain[s] = terms.positionGain
        }
        if bodies.angularDampingFactor.isPresent { bodies.angularDampingFactor[s] = _exp(-bodies.angularDamping[i] * h) }
    }
}
