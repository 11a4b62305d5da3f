// Revolute joint (UIKit's pin attachment): the two anchors coincide; an optional range limits the relative angle,
// and a friction torque resists relative rotation (a motor with target speed 0 and bounded torque).

extension World {
    /// Warm start for joints whose point part is a 2D point constraint (revolute, weld).
    @inline(__always)
    func warmStartPoint(_ jr: JointRecord, _ A: inout JointBody, _ B: inout JointBody) {
        let (rA, rB) = World.anchors(jr, A, B)
        let axial = jr.motorImpulse + jr.lowerImpulse - jr.upperImpulse + jr.angularImpulse
        A.v -= jr.mA * jr.linearImpulse; A.w -= jr.iA * (cross(rA, jr.linearImpulse) + axial)
        B.v += jr.mB * jr.linearImpulse; B.w += jr.iB * (cross(rB, jr.linearImpulse) + axial)
    }

    /// The 2D point constraint shared by revolute and weld joints.
    @inline(__always)
    func solvePointConstraint(_ jr: inout JointRecord, _ A: inout JointBody, _ B: inout JointBody, soft: Softness, useBias: Bool,
                              anchorVelocity: Vec2 = .zero, anchorLag: Vec2 = .zero) {
        let (rA, rB) = World.anchors(jr, A, B)
        // `anchorVelocity`: B's point moves at this velocity besides B's own (a world anchor being dragged), and is
        // `anchorLag` behind where it will be at the end of the step.
        let cdot = (B.v + anchorVelocity + cross(B.w, rB)) - (A.v + cross(A.w, rA))
        var bias = Vec2.zero
        var massScale: Float = 1, impulseScale: Float = 0
        if useBias {
            let separation = (B.p + rB - anchorLag) - (A.p + rA)
            bias = soft.biasRate * separation
            // At most `jointPushMaxVelocity`, as every joint's correction (a point moved far by hand).
            let maxBias = settings.jointPushMaxVelocity
            let b2 = lengthSquared(bias)
            if b2 > maxBias * maxBias { bias = (maxBias / b2.squareRoot()) * bias }
            massScale = soft.massScale; impulseScale = soft.impulseScale
        }
        let mA = jr.mA, mB = jr.mB, iA = jr.iA, iB = jr.iB
        let k11 = mA + mB + rA.y * rA.y * iA + rB.y * rB.y * iB
        let k12 = -rA.y * rA.x * iA - rB.y * rB.x * iB
        let k22 = mA + mB + rA.x * rA.x * iA + rB.x * rB.x * iB
        let b = solve22(k11, k12, k22, cdot + bias)
        let impulse = -massScale * b - impulseScale * jr.linearImpulse
        jr.linearImpulse += impulse
        World.apply(jr, &A, &B, impulse, rA, rB)
    }

    @inline(__always)
    func solveRevolute(_ jr: inout JointRecord, _ A: inout JointBody, _ B: inout JointBody, soft: Softness, h: Float, invH: Float, useBias: Bool) {
        let iSum = jr.iA + jr.iB
        if iSum > 0 {
            let axialMass = 1 / iSum
            if jr.maxFrictionTorque > 0 {
                let cdot = B.w - A.w
                var impulse = -axialMass * cdot
                let old = jr.motorImpulse
                let maxImpulse = h * jr.maxFrictionTorque
                jr.motorImpulse = Swift.max(-maxImpulse, Swift.min(old + impulse, maxImpulse))
                impulse = jr.motorImpulse - old
                A.w -= jr.iA * impulse; B.w += jr.iB * impulse
            }
            if jr.enableLimit {
                let angle = unwind(relativeAngle(A.q, B.q) - jr.referenceAngle)
                do { // lower
                    let C = angle - jr.lower
                    var bias: Float = 0, massScale: Float = 1, impulseScale: Float = 0
                    if C > 0 { bias = C * invH } else if useBias { bias = soft.biasRate * C; massScale = soft.massScale; impulseScale = soft.impulseScale }
                    let cdot = B.w - A.w
                    var impulse = -axialMass * massScale * (cdot + bias) - impulseScale * jr.lowerImpulse
                    let newImpulse = Swift.max(jr.lowerImpulse + impulse, 0)
                    impulse = newImpulse - jr.lowerImpulse
                    jr.lowerImpulse = newImpulse
                    A.w -= jr.iA * impulse; B.w += jr.iB * impulse
                }
                do { // upper
                    let C = jr.upper - angle
                    var bias: Float = 0, massScale: Float = 1, impulseScale: Float = 0
                    if C > 0 { bias = C * invH } else if useBias { bias = soft.biasRate * C; massScale = soft.massScale; impulseScale = soft.impulseScale }
                    let cdot = A.w - B.w
                    var impulse = -axialMass * massScale * (cdot + bias) - impulseScale * jr.upperImpulse
                    let newImpulse = Swift.max(jr.upperImpulse + impulse, 0)
                    impulse = newImpulse - jr.upperImpulse
                    jr.upperImpulse = newImpulse
                    A.w += jr.iA * impulse; B.w -= jr.iB * impulse
                }
            }
        }
        solvePointConstraint(&jr, &A, &B, soft: soft, useBias: useBias)
    }
}
