// Distance joint: rigid rod, spring, and rope (a max-length limit), UIKit's attachment with and without
// frequency and its limit attachment. Constraint C = |d| − length along the current axis between the anchors.
//
// A joint shorter than `pointJointLength` is a point constraint instead (both anchors kept together in two
// dimensions, like Box2D's mouse joint or a revolute joint without limits): the drag code of UIKit apps attaches
// the touch point to an anchor at the finger, with length 0, and along a zero-length axis a distance constraint
// has no direction (the axis turns with every small error, and the item's velocity swings from step to step).

extension JointRecord {
    /// Below this length (points) a distance joint keeps its anchors together as a point constraint: half the
    /// default linear slop, far below anything drawn.
    static let pointJointLength: Float = 0.25

    /// A distance joint solved as a point constraint: rigid or a rope of (nearly) zero length, or a spring whose
    /// rest length is (nearly) zero.
    @inline(__always) var isPointDistance: Bool {
        kind == .distance && length < JointRecord.pointJointLength
            && (hertz > 0 || maxLength < JointRecord.pointJointLength)
    }
}

extension World {
    @inline(__always)
    func warmStartDistance(_ jr: JointRecord, _ A: inout JointBody, _ B: inout JointBody) {
        let (rA, rB) = World.anchors(jr, A, B)
        if jr.isPointDistance {
            World.apply(jr, &A, &B, jr.linearImpulse, rA, rB)
            return
        }
        let axis = normalized((B.p + rB) - (A.p + rA))
        let P = (jr.axialImpulse + jr.lowerImpulse - jr.upperImpulse) * axis
        World.apply(jr, &A, &B, P, rA, rB)
    }

    @inline(__always)
    func solveDistance(_ jr: inout JointRecord, _ A: inout JointBody, _ B: inout JointBody, soft: Softness, invH: Float, useBias: Bool) {
        if jr.isPointDistance {
            // A spring is soft in every pass (its own stiffness); a rigid point corrects its error softly in the
            // biased pass only, as the revolute joint's point does.
            // A moved anchor travels from where it was to where it was put over the step, at its velocity.
            let v = jr.anchorVelocity, lag = jointStore.anchorTimeLeft * v
            if jr.hertz > 0 { solvePointConstraint(&jr, &A, &B, soft: jr.spring, useBias: true, anchorVelocity: v, anchorLag: lag) }
            else { solvePointConstraint(&jr, &A, &B, soft: soft, useBias: useBias, anchorVelocity: v, anchorLag: lag) }
            return
        }
        let (rA, rB) = World.anchors(jr, A, B)
        let d = (B.p + rB) - (A.p + rA)
        let len = length(d)
        guard len > 1e-6 else { return }
        let axis = d / len
        let crA = cross(rA, axis), crB = cross(rB, axis)
        let k = jr.mA + jr.mB + jr.iA * crA * crA + jr.iB * crB * crB
        guard k > 0 else { return }
        let axialMass = 1 / k

        @inline(__always) func cdot() -> Float {
            dot(axis, (B.v + cross(B.w, rB)) - (A.v + cross(A.w, rA)))
        }

        if jr.minLength < jr.maxLength {
            if jr.hertz > 0 {
                // Spring towards the rest length, soft in every pass.
                let C = len - jr.length
                let bias = jr.spring.biasRate * C
                let impulse = -jr.spring.massScale * axialMass * (cdot() + bias) - jr.spring.impulseScale * jr.axialImpulse
                jr.axialImpulse += impulse
                World.apply(jr, &A, &B, impulse * axis, rA, rB)
            }
            if jr.minLength > 0 {
                let C = len - jr.minLength
                var bias: Float = 0, massScale: Float = 1, impulseScale: Float = 0
                if C > 0 { bias = C * invH } else if useBias {
                    bias = jointBias(soft.biasRate, C); massScale = soft.massScale; impulseScale = soft.impulseScale
                }
                var impulse = -massScale * axialMass * (cdot() + bias) - impulseScale * jr.lowerImpulse
                let newImpulse = Swift.max(0, jr.lowerImpulse + impulse)
                impulse = newImpulse - jr.lowerImpulse
                jr.lowerImpulse = newImpulse
                World.apply(jr, &A, &B, impulse * axis, rA, rB)
            }
            if jr.maxLength.isFinite {
                let C = jr.maxLength - len
                var bias: Float = 0, massScale: Float = 1, impulseScale: Float = 0
                if C > 0 { bias = C * invH } else if useBias {
                    bias = jointBias(soft.biasRate, C); massScale = soft.massScale; impulseScale = soft.impulseScale
                }
                var impulse = -massScale * axialMass * (-cdot() + bias) - impulseScale * jr.upperImpulse
                let newImpulse = Swift.max(0, jr.upperImpulse + impulse)
                impulse = newImpulse - jr.upperImpulse
                jr.upperImpulse = newImpulse
                World.apply(jr, &A, &B, -impulse * axis, rA, rB)
            }
        } else {
            // Rigid: stiff velocity constraint, soft position correction only in the biased pass.
            let C = len - jr.length
            var bias: Float = 0, massScale: Float = 1, impulseScale: Float = 0
            if useBias { bias = jointBias(soft.biasRate, C); massScale = soft.massScale; impulseScale = soft.impulseScale }
            let impulse = -massScale * axialMass * (cdot() + bias) - impulseScale * jr.axialImpulse
            jr.axialImpulse += impulse
            World.apply(jr, &A, &B, impulse * axis, rA, rB)
        }
    }
}
