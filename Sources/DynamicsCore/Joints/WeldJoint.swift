// Weld joint (UIKit's fixed attachment): the anchors coincide and the relative angle is held at its value at
// creation. Both parts are rigid; only their position error is corrected softly.

extension World {
    @inline(__always)
    func solveWeld(_ jr: inout JointRecord, _ A: inout JointBody, _ B: inout JointBody, soft: Softness, useBias: Bool) {
        let iSum = jr.iA + jr.iB
        if iSum > 0 {
            var bias: Float = 0, massScale: Float = 1, impulseScale: Float = 0
            if useBias {
                let C = unwind(relativeAngle(A.q, B.q) - jr.referenceAngle)
                bias = soft.biasRate * C; massScale = soft.massScale; impulseScale = soft.impulseScale
            }
            let cdot = B.w - A.w
            let impulse = -(1 / iSum) * massScale * (cdot + bias) - impulseScale * jr.angularImpulse
            jr.angularImpulse += impulse
            A.w -= jr.iA * impulse; B.w += jr.iB * impulse
        }
        solvePointConstraint(&jr, &A, &B, soft: soft, useBias: useBias)
    }
}
