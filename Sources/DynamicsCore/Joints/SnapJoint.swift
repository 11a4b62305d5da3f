// Snap joint (UIKit's snap behavior): a damped spring pulls body A's anchor to a world target and its angle to 0.
// Both parts use the joint's spring (hertz, damping ratio) in every pass, so the motion is a damped oscillation
// whatever the substep count.

extension World {
    @inline(__always)
    func warmStartSnap(_ jr: JointRecord, _ A: inout JointBody) {
        let rA = A.q.rotate(jr.localA)
        A.v += jr.mA * jr.linearImpulse
        A.w += jr.iA * (cross(rA, jr.linearImpulse) + jr.angularImpulse)
    }

    @inline(__always)
    func solveSnap(_ jr: inout JointRecord, _ A: inout JointBody) {
        let soft = jr.spring
        if jr.iA > 0 {
            let C = A.q.angle
            let impulse = -soft.massScale * (1 / jr.iA) * (A.w + soft.biasRate * C) - soft.impulseScale * jr.angularImpulse
            jr.angularImpulse += impulse
            A.w += jr.iA * impulse
        }
        let rA = A.q.rotate(jr.localA)
        let C = (A.p + rA) - jr.localB
        let cdot = A.v + cross(A.w, rA)
        let mA = jr.mA, iA = jr.iA
        let k11 = mA + rA.y * rA.y * iA
        let k12 = -rA.y * rA.x * iA
        let k22 = mA + rA.x * rA.x * iA
        let b = solve22(k11, k12, k22, cdot + soft.biasRate * C)
        let impulse = -soft.massScale * b - soft.impulseScale * jr.linearImpulse
        jr.linearImpulse += impulse
        A.v += mA * impulse
        A.w += iA * cross(rA, impulse)
    }
}
