// Field motion integrated exactly, substep by substep.
//
// Three field kinds act through the velocity in a way that an explicit force held over a step cannot integrate on a
// light item: a drag (dv/dt = −c·v) reverses the velocity once c·dt > 1, a magnetic field (dv/dt = Ω·(vy, −vx))
// makes a circle into an outward spiral, and a linear spring (dv/dt = −K·(x − c)) gains amplitude once K·dt² is
// not small. At their default strength 1 on a 10×10 item (mass 0.01) c is 100/s, Ω 100 rad/s and K 100/s², far
// past that. Here each is integrated per substep without error in what it conserves:
//
// - drag: v ← v·e^(−c·h), an exact decay, which never reverses the velocity;
// - magnetic: v turned by Ω·h, an exact rotation, which never changes the speed;
// - linear springs (falloff −1, the spring field's default): velocity Verlet, half a kick at each end of the step
//   and a whole kick between substeps, with the stiffness K replaced by K_e = (2/h·sin(θ/2))², θ = min(√K·h, π/3).
//   The discrete oscillator then has the spring's own period (while √K·h ≤ π/3, six substeps a period), is stable
//   at any stiffness, and an item let go at rest never passes its starting distance: the scheme conserves
//   v² + K_e·cos²(θ/2)·x² exactly. A spring stiffer than the substeps can resolve oscillates with a period of six
//   substeps, never faster or larger. (At four substeps a period it would come back to the same place at the end
//   of every step and look at rest.)
//
// The rates depend on where the item is only through the field's falloff and region, read once per step at the
// step's start, like every other field.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(ucrt)
import ucrt
#endif

struct FieldMotion {
    /// Whether some awake body has a term this step.
    var active = false
    var hasDrag = false, hasTurn = false, hasSpring = false
    /// Per awake slot. While the fields are evaluated: the drag rate, turn rate and spring stiffness per unit
    /// mass (strength·falloff), and Σ stiffness·center. After `finish`: the decay factor per substep, the turn per
    /// substep as (cos, sin), K_e (1/s²) and the spring's constant acceleration term (points/s²).
    var drag: [Float] = []
    var turn: [Float] = []
    var turnCS: [Vec2] = []
    var springK: [Float] = []
    var springB: [Vec2] = []

    /// Whether a field is integrated here rather than as a force.
    static func integratesExactly(_ def: FieldDefinition) -> Bool {
        switch def.kind {
        case .drag, .magnetic: return true
        case .spring: return def.falloff == -1
        default: return false
        }
    }

    /// Starts a step over `n` awake slots with every term zero.
    mutating func begin(count n: Int) {
        active = false
        hasDrag = false; hasTurn = false; hasSpring = false
        @inline(__always) func reset<T>(_ a: inout [T], _ zero: T) {
            a.removeAll(keepingCapacity: true)
            a.append(contentsOf: repeatElement(zero, count: n))
        }
        reset(&drag, 0); reset(&turn, 0); reset(&turnCS, Vec2(1, 0)); reset(&springK, 0); reset(&springB, .zero)
    }

    /// No field needs it: the columns are given back.
    mutating func release() {
        if drag.capacity > 0 { self = FieldMotion() }
        active = false
    }

    mutating func addDrag(slot s: Int, rate: Float) {
        drag[s] += rate; hasDrag = true; active = true
    }

    mutating func addTurn(slot s: Int, rate: Float) {
        turn[s] += rate; hasTurn = true; active = true
    }

    mutating func addSpring(slot s: Int, stiffness: Float, center: Vec2) {
        springK[s] += stiffness
        springB[s] += stiffness * center
        hasSpring = true; active = true
    }

    /// Turns the sums into per-substep terms for substeps of `h` seconds.
    mutating func finish(h: Float, invMass: UnsafeMutablePointer<Float>, count n: Int) {
        for s in 0..<Swift.min(n, drag.count) {
            let inverseMass = invMass[s]
            // (A negative drag, which pushes an item along, at most multiplies its speed by e per substep: the
            // world's speed limit takes over from there.)
            if hasDrag { drag[s] = Float(exp(Swift.min(Double(-drag[s] * inverseMass * h), 1))) }
            if hasTurn {
                let angle = Double(turn[s] * inverseMass * h)
                turnCS[s] = Vec2(Float(cos(angle)), Float(sin(angle)))
            }
            if hasSpring {
                let stiffness = springK[s], K = stiffness * inverseMass
                var Ke = K
                if K > 0 {
                    let theta = Swift.min(K.squareRoot() * h, Float.pi / 3)
                    let root = 2 / h * Float(sin(Double(theta / 2)))
                    Ke = root * root
                }
                // a = B − K_e·x, with B = K_e·(the stiffness-weighted center); with no net stiffness, the constant
                // pull Σ k·c / m that is left.
                springB[s] = K > 0 ? (Ke / stiffness) * springB[s] : inverseMass * springB[s]
                springK[s] = Ke
            }
        }
    }

    /// One substep's drag and turn, and `weight` × one substep's spring kick, on the awake velocities.
    func apply(h: Float, springWeight weight: Float, velocity v: UnsafeMutablePointer<Vec2>,
               position x: UnsafeMutablePointer<Vec2>, count n: Int) {
        let count = Swift.min(n, drag.count)
        if hasDrag || hasTurn {
            for s in 0..<count {
                var u = v[s]
                if hasTurn {
                    let cs = turnCS[s]
                    u = Vec2(u.x * cs.x + u.y * cs.y, u.y * cs.x - u.x * cs.y)
                }
                if hasDrag { u = drag[s] * u }
                v[s] = u
            }
        }
        if weight != 0 { kick(h: h, weight: weight, velocity: v, position: x, count: count) }
    }

    /// `weight` × a substep's spring kick: v ← v + weight·h·(B − K_e·x).
    func kick(h: Float, weight: Float, velocity v: UnsafeMutablePointer<Vec2>, position x: UnsafeMutablePointer<Vec2>,
              count n: Int) {
        guard hasSpring else { return }
        let hw = h * weight
        for s in 0..<Swift.min(n, springK.count) where springK[s] != 0 || springB[s] != .zero {
            v[s] += hw * (springB[s] - springK[s] * x[s])
        }
    }
}
