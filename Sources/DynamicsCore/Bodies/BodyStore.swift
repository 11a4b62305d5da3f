/// The body table: hot simulation state in struct-of-arrays columns indexed by *slot*, cold bookkeeping indexed
/// by the body id's index.
///
/// Slots are partitioned: `0 ..< awakeCount` hold the awake dynamic bodies (the only range the per-step loops
/// walk), `awakeCount ..< count` hold sleeping and static bodies. Putting an island to sleep swaps its bodies out of
/// the awake range; waking it swaps them back, so the cost of both is proportional to the island, and a sleeping
/// body costs nothing per step. This plays the role of Box2D v3's solver sets with a single table.
///
/// Every column is `@exclusivity(unchecked)`: the passes read columns of a class instance inside loops, and the
/// run-time exclusivity check on each access costs 0.6–1.1% more instructions per step in rain, pyramid and joint
/// grid scenes and 8–18% in field_swarm (callgrind, `Benchmarks/gate` with the attribute removed). Columns are
/// never passed inout to code that reaches the same column, so the check has nothing to catch.
@usableFromInline final class BodyStore {
    // MARK: hot columns, by slot
    @exclusivity(unchecked) var position = Column<Vec2>()        // center of mass, world, points
    @exclusivity(unchecked) var rotation = Column<Rotation>()
    @exclusivity(unchecked) var velocity = Column<Vec2>()        // points/s
    @exclusivity(unchecked) var angularVelocity = Column<Float>() // rad/s
    @exclusivity(unchecked) var invMass = Column<Float>()
    @exclusivity(unchecked) var invInertia = Column<Float>()
    @exclusivity(unchecked) var gravity = Column<Vec2>()         // points/s²
    @exclusivity(unchecked) var force = LazyColumn<Vec2>(fill: .zero)           // constant force, mass·points/s²
    /// Torque of constant forces applied at body-local offsets: torque = c·torqueA − s·torqueB (see `World.setConstantForce`).
    @exclusivity(unchecked) var torqueA = LazyColumn<Float>(fill: 0)
    @exclusivity(unchecked) var torqueB = LazyColumn<Float>(fill: 0)
    @exclusivity(unchecked) var linearDampingFactor = LazyColumn<Float>(fill: 1)    // per substep, exp(−rate·h)
    @exclusivity(unchecked) var angularDampingFactor = LazyColumn<Float>(fill: 1)
    /// The substeps of a body that nothing constrains, in closed form (see `World.updateDampingFactors`): after
    /// n substeps of h under a constant acceleration a, v ← decay·v + gain·a and x ← x + gain·v₀ + positionGain·a.
    @exclusivity(unchecked) var freeDecay = LazyColumn<Float>(fill: 1)
    @exclusivity(unchecked) var freeGain = LazyColumn<Float>(fill: 0)
    @exclusivity(unchecked) var freePositionGain = LazyColumn<Float>(fill: 0)
    @exclusivity(unchecked) var sleepTime = Column<Float>()
    /// Where the body was when its current rest window began (see World+Islands).
    @exclusivity(unchecked) var restAnchor = Column<Vec2>()
    @exclusivity(unchecked) var restAnchorRotation = Column<Rotation>()
    @exclusivity(unchecked) var extent = Column<Float>()          // largest distance of any shape point from the COM
    @exclusivity(unchecked) var bodyIndex = Column<Int32>()      // slot -> id index
    /// Awake slots: the box swept by the last broadphase. Other slots: the box a static or sleeping body is binned
    /// with in the static grid (valid when `binned`).
    @exclusivity(unchecked) var box = Column<AABB>()
    @usableFromInline @exclusivity(unchecked) var count = 0
    @usableFromInline @exclusivity(unchecked) var awakeCount = 0
    /// Bumped whenever a slot is created, moved or removed, and (by the world) whenever a body's masses change or a
    /// body is placed by hand: what a joint record caches about its bodies (slots, inverse masses, a fixed side's
    /// pose) can only have changed when this did.
    var slotVersion: UInt64 = 0

    // MARK: cold columns, by id index
    /// The slot of each body id, or −1 for an id whose body was destroyed (or is being created): a live id is one
    /// with a slot.
    @exclusivity(unchecked) var slot: [Int32] = []
    @usableFromInline @exclusivity(unchecked) var generation: [UInt32] = []
    /// Per body id, one byte: the type (bit 0: static), bit 1 set when the body may not turn, bit 2 set when it is
    /// binned in the static grid. Read through `type(_:)`, `allowsRotation(_:)` and `isBinned(_:)`.
    @usableFromInline @exclusivity(unchecked) var flags: [UInt8] = []
    @exclusivity(unchecked) var shapeStart: [Int32] = []
    /// At most 65535 (contact keys hold a shape's index in 16 bits).
    @exclusivity(unchecked) var shapeCount: [UInt16] = []
    /// The center of mass in the body-origin frame.
    @usableFromInline @exclusivity(unchecked) var localCenter = LazyIDColumn<Vec2>(fill: .zero)
    @exclusivity(unchecked) var mass: [Float] = []
    @exclusivity(unchecked) var inertia: [Float] = []            // about the COM, before `allowsRotation`
    /// Each body's surface material, an index into `materials` (−1 while it has none): bodies with the same
    /// restitution and friction share one entry, so a body holds 4 bytes for them instead of 8.
    @exclusivity(unchecked) var material: [Int32] = []
    @exclusivity(unchecked) var materials: [SurfaceMaterial] = []
    /// Material by the bit patterns of its restitution and friction; only looked up, never iterated.
    @exclusivity(unchecked) var materialIndex: [UInt64: Int32] = [:]
    @exclusivity(unchecked) var freeMaterials: [Int32] = []
    @exclusivity(unchecked) var charge = LazyIDColumn<Float>(fill: 0)
    /// Damping rates (their per-slot terms are `linearDampingFactor` … and `angularDampingFactor`).
    @exclusivity(unchecked) var linearDamping = LazyIDColumn<Float>(fill: 0)
    @exclusivity(unchecked) var angularDamping = LazyIDColumn<Float>(fill: 0)
    /// Below the class count, at most 65536.
    @exclusivity(unchecked) var collisionClass: [UInt16] = []
    @usableFromInline @exclusivity(unchecked) var userTag: [Int32] = []
    /// Index of the sleeping island holding the body, or -1.
    @exclusivity(unchecked) var sleepingIsland: [Int32] = []
    /// The first of the joints attached to the body (an edge: joint index × 2, + 1 for its body B side), or −1;
    /// the world's `jointEdgeNext` links the rest, in the order they were attached. For waking and destruction.
    @exclusivity(unchecked) var jointHead = LazyIDColumn<Int32>(fill: -1)
    @exclusivity(unchecked) var freeIDs: [Int32] = []

    init() {}

    deinit {
        position.free(count: count); rotation.free(count: count); velocity.free(count: count)
        angularVelocity.free(count: count); invMass.free(count: count); invInertia.free(count: count)
        gravity.free(count: count); force.free(count: count); torqueA.free(count: count); torqueB.free(count: count)
        linearDampingFactor.free(count: count); angularDampingFactor.free(count: count)
        freeDecay.free(count: count); freeGain.free(count: count); freePositionGain.free(count: count)
        sleepTime.free(count: count); restAnchor.free(count: count); restAnchorRotation.free(count: count); extent.free(count: count); bodyIndex.free(count: count)
        box.free(count: count)
    }

    var idCapacity: Int { slot.count }

    // MARK: columns made present when first needed (see `LazyColumn`)

    /// Gives a lazy column its buffer, sized as the table's.
    private func materialize<T>(_ column: inout LazyColumn<T>) {
        column.materialize(count: count, capacity: position.capacity)
    }

    func materializeForce() { materialize(&force) }

    func materializeTorque() { materialize(&torqueA); materialize(&torqueB) }

    /// The per-slot linear damping terms; the caller then computes the terms of every slot.
    func materializeLinearDamping() {
        materialize(&linearDampingFactor); materialize(&freeDecay); materialize(&freeGain); materialize(&freePositionGain)
    }

    /// The per-slot angular damping factors (1 for every slot until set).
    func materializeAngularDamping() { materialize(&angularDampingFactor) }

    @usableFromInline static let staticBit: UInt8 = 1, fixedRotationBit: UInt8 = 2, binnedBit: UInt8 = 4

    @inline(__always) func type(_ i: Int) -> BodyType { flags[i] & Self.staticBit != 0 ? .static : .dynamic }
    @inline(__always) func allowsRotation(_ i: Int) -> Bool { flags[i] & Self.fixedRotationBit == 0 }
    @inline(__always) func isBinned(_ i: Int) -> Bool { flags[i] & Self.binnedBit != 0 }

    @inline(__always) func setFlag(_ i: Int, _ bit: UInt8, _ on: Bool) {
        flags[i] = on ? flags[i] | bit : flags[i] & ~bit
    }
    func setType(_ i: Int, _ t: BodyType) { setFlag(i, Self.staticBit, t == .static) }
    func setAllowsRotation(_ i: Int, _ allows: Bool) { setFlag(i, Self.fixedRotationBit, !allows) }
    func setBinned(_ i: Int, _ binned: Bool) { setFlag(i, Self.binnedBit, binned) }

    @inline(__always) func restitution(_ i: Int) -> Float { materials[Int(material[i])].restitution }
    /// Some body's material has restitution (a contact's is the larger of its two bodies'): without, the step's
    /// restitution pass has nothing to do and skips its walk over the contacts.
    var anyRestitution: Bool { materials.contains { $0.uses > 0 && $0.restitution > 0 } }
    @inline(__always) func friction(_ i: Int) -> Float { materials[Int(material[i])].friction }

    /// Gives body i the material with this restitution and friction, sharing an entry with the bodies that have
    /// it, and lets go of the one it had.
    func setMaterial(_ i: Int, restitution: Float, friction: Float) {
        let key = SurfaceMaterial.key(restitution: restitution, friction: friction)
        let old = material[i]
        if old >= 0 {
            if materials[Int(old)].key == key { return }
            releaseMaterial(i)
        }
        if let k = materialIndex[key] {
            materials[Int(k)].uses += 1
            material[i] = k
            return
        }
        let entry = SurfaceMaterial(restitution: restitution, friction: friction, uses: 1)
        let k: Int32
        if let free = freeMaterials.popLast() {
            k = free
            materials[Int(k)] = entry
        } else {
            k = Int32(materials.count)
            materials.append(entry)
        }
        materialIndex[key] = k
        material[i] = k
    }

    /// Body i no longer holds a material (it is destroyed); an entry no body uses is freed for reuse.
    func releaseMaterial(_ i: Int) {
        let k = Int(material[i])
        guard k >= 0 else { return }
        material[i] = -1
        materials[k].uses -= 1
        if materials[k].uses == 0 {
            materialIndex[materials[k].key] = nil
            freeMaterials.append(Int32(k))
        }
    }

    func isValid(_ id: BodyID) -> Bool {
        let i = Int(id.index)
        return i >= 0 && i < slot.count && slot[i] >= 0 && generation[i] == id.generation
    }

    /// Makes room for `n` bodies in all, exactly: the columns and per-id arrays are sized once instead of by
    /// doubling (which leaves up to half of each unused).
    func reserveCapacity(_ n: Int) {
        guard n > count else { return }
        position.reserveExactly(n, count: count); rotation.reserveExactly(n, count: count)
        velocity.reserveExactly(n, count: count); angularVelocity.reserveExactly(n, count: count)
        invMass.reserveExactly(n, count: count)
        invInertia.reserveExactly(n, count: count); gravity.reserveExactly(n, count: count)
        force.reserveExactly(n, count: count); torqueA.reserveExactly(n, count: count); torqueB.reserveExactly(n, count: count)
        linearDampingFactor.reserveExactly(n, count: count); angularDampingFactor.reserveExactly(n, count: count)
        freeDecay.reserveExactly(n, count: count); freeGain.reserveExactly(n, count: count)
        freePositionGain.reserveExactly(n, count: count); sleepTime.reserveExactly(n, count: count)
        restAnchor.reserveExactly(n, count: count); restAnchorRotation.reserveExactly(n, count: count)
        extent.reserveExactly(n, count: count); bodyIndex.reserveExactly(n, count: count); box.reserveExactly(n, count: count)
        let ids = n - freeIDs.count
        guard ids > slot.count else { return }
        slot.reserveCapacity(ids); generation.reserveCapacity(ids); flags.reserveCapacity(ids)
        shapeStart.reserveCapacity(ids); shapeCount.reserveCapacity(ids); localCenter.reserveCapacity(ids)
        mass.reserveCapacity(ids); inertia.reserveCapacity(ids); material.reserveCapacity(ids)
        charge.reserveCapacity(ids); linearDamping.reserveCapacity(ids); angularDamping.reserveCapacity(ids)
        collisionClass.reserveCapacity(ids); userTag.reserveCapacity(ids); sleepingIsland.reserveCapacity(ids)
        jointHead.reserveCapacity(ids)
    }

    /// Appends a slot at the end of the table (in the non-awake range).
    func appendSlot(id: Int32) -> Int {
        let s = count
        position.append(.zero, count: s); rotation.append(.identity, count: s); velocity.append(.zero, count: s)
        angularVelocity.append(0, count: s); invMass.append(0, count: s); invInertia.append(0, count: s)
        gravity.append(.zero, count: s); force.append(count: s); torqueA.append(count: s)
        torqueB.append(count: s); linearDampingFactor.append(count: s); angularDampingFactor.append(count: s)
        freeDecay.append(count: s); freeGain.append(count: s); freePositionGain.append(count: s)
        sleepTime.append(0, count: s); restAnchor.append(.zero, count: s); restAnchorRotation.append(.identity, count: s); extent.append(0, count: s); bodyIndex.append(id, count: s)
        box.append(AABB(lower: .zero, upper: .zero), count: s)
        count += 1
        slot[Int(id)] = Int32(s)
        slotVersion &+= 1
        return s
    }

    /// Swaps two slots and keeps the id -> slot map in step.
    func swapSlots(_ a: Int, _ b: Int) {
        guard a != b else { return }
        slotVersion &+= 1
        position.swapAt(a, b); rotation.swapAt(a, b); velocity.swapAt(a, b); angularVelocity.swapAt(a, b)
        invMass.swapAt(a, b); invInertia.swapAt(a, b); gravity.swapAt(a, b); force.swapAt(a, b)
        torqueA.swapAt(a, b); torqueB.swapAt(a, b); linearDampingFactor.swapAt(a, b)
        angularDampingFactor.swapAt(a, b); freeDecay.swapAt(a, b); freeGain.swapAt(a, b); freePositionGain.swapAt(a, b)
        sleepTime.swapAt(a, b); restAnchor.swapAt(a, b); restAnchorRotation.swapAt(a, b); extent.swapAt(a, b); bodyIndex.swapAt(a, b); box.swapAt(a, b)
        slot[Int(bodyIndex[a])] = Int32(a)
        slot[Int(bodyIndex[b])] = Int32(b)
    }

    /// Moves a non-awake slot into the awake range.
    func makeAwake(slot s: Int) {
        precondition(s >= awakeCount)
        swapSlots(s, awakeCount)
        awakeCount += 1
        slotVersion &+= 1
    }

    /// Moves an awake slot out of the awake range.
    func makeNotAwake(slot s: Int) {
        precondition(s < awakeCount)
        swapSlots(s, awakeCount - 1)
        awakeCount -= 1
        slotVersion &+= 1
    }

    /// Removes the slot of a body (it must be outside the awake range), keeping the table dense.
    func removeSlot(_ s: Int) {
        precondition(s >= awakeCount && s < count)
        slotVersion &+= 1
        let last = count - 1
        swapSlots(s, last)
        position.removeBySwap(last, last: last); rotation.removeBySwap(last, last: last)
        velocity.removeBySwap(last, last: last); angularVelocity.removeBySwap(last, last: last)
        invMass.removeBySwap(last, last: last); invInertia.removeBySwap(last, last: last)
        gravity.removeBySwap(last, last: last); force.removeBySwap(last, last: last)
        torqueA.removeBySwap(last, last: last); torqueB.removeBySwap(last, last: last)
        linearDampingFactor.removeBySwap(last, last: last); angularDampingFactor.removeBySwap(last, last: last)
        freeDecay.removeBySwap(last, last: last); freeGain.removeBySwap(last, last: last)
        freePositionGain.removeBySwap(last, last: last)
        sleepTime.removeBySwap(last, last: last); restAnchor.removeBySwap(last, last: last)
        restAnchorRotation.removeBySwap(last, last: last); extent.removeBySwap(last, last: last)
        bodyIndex.removeBySwap(last, last: last); box.removeBySwap(last, last: last)
        count -= 1
    }
}

/// A surface material shared by the bodies that have it (`BodyStore.material`).
struct SurfaceMaterial {
    var restitution: Float
    var friction: Float
    /// How many bodies hold it.
    var uses: Int32

    /// The bit patterns of both values: bodies share an entry only with identical values.
    static func key(restitution: Float, friction: Float) -> UInt64 {
        UInt64(restitution.bitPattern) << 32 | UInt64(friction.bitPattern)
    }

    var key: UInt64 { Self.key(restitution: restitution, friction: friction) }
}

/// The body columns' raw pointers, for a pass's loops (class properties read inside a loop cost several times
/// the loop body). Reached only inside `BodyStore.withColumns`, and used only there. Creating a body can grow the
/// columns, which would leave the pointers dangling, so no code inside the closure creates one; waking and sleeping
/// move bodies between slots of the same columns, so a pass that does either reads its slots again afterwards.
@usableFromInline
struct BodyColumns {
    @usableFromInline let position: UnsafeMutablePointer<Vec2>
    @usableFromInline let rotation: UnsafeMutablePointer<Rotation>
    @usableFromInline let velocity: UnsafeMutablePointer<Vec2>
    @usableFromInline let angularVelocity: UnsafeMutablePointer<Float>
    @usableFromInline let invMass: UnsafeMutablePointer<Float>
    @usableFromInline let invInertia: UnsafeMutablePointer<Float>
    @usableFromInline let gravity: UnsafeMutablePointer<Vec2>
    @usableFromInline let sleepTime: UnsafeMutablePointer<Float>
    @usableFromInline let restAnchor: UnsafeMutablePointer<Vec2>
    @usableFromInline let restAnchorRotation: UnsafeMutablePointer<Rotation>
    @usableFromInline let extent: UnsafeMutablePointer<Float>
    @usableFromInline let bodyIndex: UnsafeMutablePointer<Int32>
    @usableFromInline let box: UnsafeMutablePointer<AABB>
    /// The lazy columns: nil while every body holds the column's fill value.
    @usableFromInline let force: UnsafeMutablePointer<Vec2>?
    @usableFromInline let torqueA: UnsafeMutablePointer<Float>?
    @usableFromInline let torqueB: UnsafeMutablePointer<Float>?
    @usableFromInline let linearDampingFactor: UnsafeMutablePointer<Float>?
    @usableFromInline let angularDampingFactor: UnsafeMutablePointer<Float>?
    @usableFromInline let freeDecay: UnsafeMutablePointer<Float>?
    @usableFromInline let freeGain: UnsafeMutablePointer<Float>?
    @usableFromInline let freePositionGain: UnsafeMutablePointer<Float>?
}

extension BodyStore {
    /// Runs `body` with the columns' raw pointers: the one way the step's passes reach the columns' memory.
    @inline(__always) @usableFromInline
    func withColumns<R>(_ body: (BodyColumns) throws -> R) rethrows -> R {
        try body(BodyColumns(position: position.base, rotation: rotation.base, velocity: velocity.base,
                             angularVelocity: angularVelocity.base, invMass: invMass.base, invInertia: invInertia.base,
                             gravity: gravity.base, sleepTime: sleepTime.base, restAnchor: restAnchor.base,
                             restAnchorRotation: restAnchorRotation.base, extent: extent.base, bodyIndex: bodyIndex.base,
                             box: box.base, force: force.base, torqueA: torqueA.base, torqueB: torqueB.base,
                             linearDampingFactor: linearDampingFactor.base, angularDampingFactor: angularDampingFactor.base,
                             freeDecay: freeDecay.base, freeGain: freeGain.base, freePositionGain: freePositionGain.base))
    }
}
