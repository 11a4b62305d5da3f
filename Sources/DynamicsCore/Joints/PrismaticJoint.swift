// Prismatic joint (UIKit's sliding attachment): B may translate relative to A only along A's axis, does not turn
// relative to A, and optionally stays within [lower, upper] points of travel.

extension World {
    @inline(__always)
    func warmStartPrismatic(_ jr: JointRecord, _ A: inout JointBody, _ B: inout JointBody) {
        let (rA, rB) = World.anchors(jr, A, B)
        let d = (B.p + rB) - (A.p + rA)
        let axis = jr.bodyA < 0 ? jr.localAxisA : A.q.rotate(jr.localAxisA)
        let perp = leftPerp(axis)
        let a1 = cross(d + rA, axis), a2 = cross(rB, axis)
        let s1 = cross(d + rA, perp), s2 = cross(rB, perp)
        let axial = jr.lowerImpulse - jr.upperImpulse
        let P = axial * axis + jr.linearImpulse.x * perp
        let LA = axial * a1 + jr.linearImpulse.x * s1 + jr.linearImpulse.y
        let LB = axial * a2 + jr.linearImpulse.x * s2 + jr.linearImpulse.y
        A.v -= jr.mA * P; A.w -= jr.iA * LA
        B.v += jr.mB * P; B.w += jr.iB * LB
    }

    @inline(__always)
    func solvePrismatic(_ jr: inout JointRecord, _ A: inout JointBody, _ B: inout JointBody, soft: Softness, invH: Float, useBias: Bool) {
        let (rA, rB) = World.anchors(jr, A, B)
        let d = (B.p + rB) - (A.p + rA)
        let axis = jr.bodyA < 0 ? jr.localAxisA : A.q.rotate(jr.localAxisA)
        let translation = dot(axis, d)
        let a1 = cross(d + rA, axis), a2 = cross(rB, axis)
        let mA = jr.mA, mB = jr.mB, iA = jr.iA, iB = jr.iB

        if jr.enableLimit {
            let k = mA + mB + iA * a1 * a1 + iB * a2 * a2
            let axialMass: Float = k > 0 ? 1 / k : 0
            do { // lower
                let C = translation - jr.lower
                var bias: Float = 0, massScale: Float = 1, impulseScale: Float = 0
                if C > 0 { bias = C * invH } else if useBias { bias = jointBias(soft.biasRate, C); massScale = soft.massScale; impulseScale = soft.impulseScale }
                let cdot = dot(axis, B.v - A.v) + a2 * B.w - a1 * A.w
                var impulse = -axialMass * massScale * (cdot + bias) - impulseScale * jr.lowerImpulse
                let newImpulse = Swift.max(jr.lowerImpulse + impulse, 0)
                impulse = newImpulse - jr.lowerImpulse
                jr.lowerImpulse = newImpulse
                let P = impulse * axis
                A.v -= mA * P; A.w -= iA * impulse * a1
                B.v += mB * P; B.w += iB * impulse * a2
            }
            do { // upper
                let C = jr.upper - translation
                var bias: Float = 0, massScale: Float = 1, impulseScale: Float = 0
                if C > 0 { bias = C * invH } else if useBias { bias = jointBias(soft.biasRate, C); massScale = soft.massScale; impulseScale = soft.impulseScale }
                let cdot = dot(axis, A.v - B.v) + a1 * A.w - a2 * B.w
                var impulse = -axialMass * massScale * (cdot + bias) - impulseScale * jr.upperImpulse
                let newImpulse = Swift.max(jr.upperImpulse + impulse, 0)
                impulse = newImpulse - jr.upperImpulse
                jr.upperImpulse = newImpulse
                let P = impulse * axis
                A.v += mA * P; A.w += iA * impulse * a1
                B.v -= mB * P; B.w -= iB * impulse * a2
            }
        }

        // Perpendicular and angular parts, solved together.
        let perp = leftPerp(axis)
        let s1 = cross(d + rA, perp), s2 = cross(rB, perp)
        let cdot = Vec2(dot(perp, B.v - A.v) + s2 * B.w - s1 * A.w, B.w - A.w)
        var bias = Vec2.zero
        var massScale: Float = 1, impulseScale: Float = 0
        if useBias {
            let C = Vec2(dot(perp, d), unwind(relativeAngle(A.q, B.q) - jr.referenceAngle))
            bias = Vec2(jointBias(soft.biasRate, C.x), soft.biasRate * C.y)
            massScale = soft.massScale; impulseScale = soft.impulseScale
        }
        let k11 = mA + mB + iA * s1 * s1 + iB * s2 * s2
        let k12 = iA * s1 + iB * s2
        var k22 = iA + iB
        if k22 == 0 { k22 = 1 }
        let b = solve22(k11, k12, k22, cdot + bias)
        let impulse = -massScale * b - impulseScale * jr.linearImpulse
        jr.linearImpulse += impulse
        let P = impulse.x * perp
        let LA = impulse.x * s1 + impulse.y
        let LB = impulse.x * s2 + impulse.y
        A.v -= mA * P; A.w -= iA * LA
        B.v += mB * P; B.w += iB * LB
    }
}
