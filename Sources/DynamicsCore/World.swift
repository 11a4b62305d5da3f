import DynamicsSIMD

/// The simulation: bodies, shapes, joints, contacts, and the step.
///
/// ```swift
/// let world = World()
/// world.setCollisionMatrix(classCount: 2) { a, b in a == 1 && b == 1 }
/// var box = BodyDefinition.box(center: Vec2(100, 0), width: 10, height: 10)
/// box.gravity = Vec2(0, 1000)
/// box.collisionClass = 1
/// let id = try world.createBody(box)
/// for _ in 0..<60 { try world.step(dt: 1.0 / 60, substeps: 4) }
/// print(world.origin(of: id))
/// ```
///
/// Not thread-safe: use one world from one thread at a time. Separate worlds are independent.
///
/// To run a scene again from the start (a study of many runs), build it in a fresh `World`. A world whose bodies
/// were destroyed and created again is not a fresh one: it hands out the freed ids again (the last freed first), so
/// the same bodies get other ids and are solved in another order, and it keeps its `stepCount`; its run then
/// differs from a fresh world's, though each is deterministic.
public final class World {
    /// The engine parameters; change them with `setSettings(_:)`, which refuses settings that break a rule of
    /// `WorldSettings.validate()`.
    public private(set) var settings: WorldSettings {
        didSet {
            broadphase.pairCacheVersion &+= 1
            if settings.gridCellSize != oldValue.gridCellSize { broadphase.cellSize = 0 }
        }
    }

    /// Replaces the engine parameters. Throws a `DynamicsError` naming the first rule broken (the settings are then
    /// unchanged).
    ///
    /// ```swift
    /// var settings = world.settings
    /// settings.contactHertz = 60
    /// try world.setSettings(settings)
    /// ```
    public func setSettings(_ newValue: WorldSettings) throws {
        try newValue.validate()
        settings = newValue
    }

    // MARK: - Subsystems
    //
    // Each subsystem's state is a struct in its folder, beside the code that runs it (ARCHITECTURE.md). The
    // structs are stored properties of this final class, so the step reaches their arrays in place. They are
    // `@exclusivity(unchecked)` because the step passes one field of a subsystem inout while it uses the same
    // subsystem's other fields (`sortPairs(&broadphase.pairs)` sorts with `broadphase.sortScratch`): Swift's run-time
    // check counts an access to any field as an access to the whole struct and would stop the program, although
    // the fields are disjoint and addressed in place. The rule the check no longer enforces: code that takes a field
    // inout must not reach that same field another way.

    /// The bodies: ids, slots, the awake range and the structure-of-arrays columns (Bodies/).
    @usableFromInline let bodies = BodyStore()
    /// The bodies' shapes and polygon runs (Shapes/).
    @exclusivity(unchecked) var shapeStore = ShapeStore()
    /// The joints by id, each body's joint list, the awake joints (Joints/).
    @exclusivity(unchecked) var jointStore = JointStore()
    /// Which collision classes collide (Collision/).
    @exclusivity(unchecked) var collisionFilter = CollisionFilter()
    /// Grids, candidate pairs and fat boxes (BroadPhase/).
    @exclusivity(unchecked) var broadphase = BroadPhaseState()
    /// The awake contacts and the narrowphase's reference poses (Collision/).
    @exclusivity(unchecked) var contactStore = ContactStore()
    /// The continuous pass's scratch (Collision/World+Continuous.swift).
    @exclusivity(unchecked) var continuousPass = ContinuousScratch()
    /// The step's contact constraints, wide and scalar (Solver/).
    @exclusivity(unchecked) var contactSolver = ContactSolverTables()
    /// The restitution pass's energy bound (Solver/RestitutionGuard.swift).
    @exclusivity(unchecked) var restitutionGuard = RestitutionGuard()
    /// The step's rigid distance joints in wide batches (Solver/WideJoints.swift).
    @exclusivity(unchecked) var rodSolver = WideRodSolver()
    /// Sleeping islands and the union-find's scratch (Islands/).
    @exclusivity(unchecked) var islandStore = IslandStore()
    /// Fields and their per-body results (Fields/).
    @exclusivity(unchecked) var fieldStore = FieldStore()
    /// Gravity, forces, damping and fields as the free-motion pass compiles them (Solver/World+FreeMotion.swift).
    @exclusivity(unchecked) var freeMotion = FreeMotionState()
    /// The threads the step runs on (Solver/World+Workers.swift).
    @exclusivity(unchecked) var workers = WorkerState()
    /// The breadth-first search of the awake stacks' depth (Islands/World+StackDepth.swift).
    @exclusivity(unchecked) var stackDepth = StackDepthScratch()
    /// The deepest awake stack in the last search's contacts and the largest acceleration on its bodies
    /// (`deepestStack`), from which each step's substeps and contact stiffness follow (`contactStiffness`).
    @exclusivity(unchecked) var tallStack = TallStackState()
    /// Scratch for polygons in world coordinates (A's vertices, A's normals, B's vertices, B's normals). Immutable
    /// pointers, so the narrowphase reaches them without exclusivity checks.
    let scratchPolygons = UnsafeMutablePointer<Vec2>.allocate(capacity: 4 * maxPolygonVertices)

    /// Some body has (or had) a constant force, a torque, linear damping: their columns are present (never
    /// cleared). Until then every body shares the undamped free-motion terms.
    var forceInUse: Bool { bodies.force.isPresent }
    var torqueInUse: Bool { bodies.torqueA.isPresent }
    var linearDampingInUse: Bool { bodies.linearDampingFactor.isPresent }

    /// Warnings for the host (a custom field that returned a non-finite force), kept until `takeWarnings()`.
    @exclusivity(unchecked) var warnings: [String] = []
    /// Changes whenever a body is created, destroyed or changes type (invalidates fields' `coversAll`).
    @exclusivity(unchecked) var bodySetVersion = 0
    @exclusivity(unchecked) var dynamicBodyCount = 0

    // MARK: - Events and the step's record

    /// Contact events of the last step (cleared at the start of each step).
    @exclusivity(unchecked) public internal(set) var contactBeganEvents: [ContactBeganEvent] = []
    @exclusivity(unchecked) public internal(set) var contactEndedEvents: [ContactEndedEvent] = []
    /// Ended events of contacts removed between steps (a body destroyed), reported by the next step.
    @exclusivity(unchecked) var pendingEnded: [ContactEndedEvent] = []
    /// Bodies that fell asleep in the last step (their final state should be written back once).
    @exclusivity(unchecked) public internal(set) var bodiesFallenAsleep: [BodyID] = []
    /// Timings of the last step.
    @exclusivity(unchecked) public internal(set) var profile = StepProfile()
    /// Number of steps taken.
    @exclusivity(unchecked) public internal(set) var stepCount = 0
    /// The substep length (s) the stored contact and joint impulses were accumulated over, 0 before the first step:
    /// a step of another substep length scales them to its own before warm starting (`rescaleWarmStart`).
    var impulseSubstep: Float = 0

    /// A world with the default settings.
    public init() {
        self.settings = WorldSettings()
    }

    /// A world with `settings`; throws a `DynamicsError` naming the first rule they break.
    public convenience init(settings: WorldSettings) throws {
        try settings.validate()
        self.init()
        self.settings = settings
    }

    deinit {
        scratchPolygons.deallocate()
        dk_stage_progress_destroy(workers.progress)
        dk_stage_progress_destroy(workers.blockProgress)
        workers.blockCounts.deallocate()
        contactStore.chunks?.free()
        freeMotion.fields.free(count: freeMotion.fieldCount)
        rodSolver.velocity.free(count: 0)
        rodSolver.pose.free(count: 0)
        contactSolver.velocity.free(count: 0)
        contactStore.referencePose.free(count: 0)
        contactStore.referenceMoved.free(count: 0)
        stackDepth.free()
        contactSolver.pose.free(count: 0)
        broadphase.fatBoxes.free(count: 0)
        contactSolver.scalar.free()
        contactSolver.wide.free()
    }

    // MARK: - Counts

    public var bodyCount: Int { bodies.count }
    public var awakeBodyCount: Int { bodies.awakeCount }
    /// Contacts between awake bodies (touching or speculative), the ones the next step solves.
    public var contactCount: Int { contactStore.contacts.count }
    /// Touching contacts between awake bodies.
    public var touchingContactCount: Int { contactStore.contacts.reduce(0) { $0 + ($1.touching ? 1 : 0) } }
    /// Every touching contact, awake or kept by a sleeping island (items resting on a floor touch it).
    public var allTouchingContactCount: Int {
        islandStore.sleeping.reduce(touchingContactCount) { sum, island in
            island.inUse ? island.contacts.reduce(sum) { $0 + ($1.touching ? 1 : 0) } : sum
        }
    }
    public var jointCount: Int { jointStore.alive.reduce(0) { $0 + ($1 ? 1 : 0) } }
    public var sleepingIslandCount: Int { islandStore.sleeping.reduce(0) { $0 + ($1.inUse ? 1 : 0) } }


    // MARK: - Collision filtering

    /// Sets which pairs of collision classes collide. `rule(a, b)` is asked for a ≤ b and mirrored. Class 0 is
    /// reserved for bodies that collide with nothing, whatever `rule` says.
    public func setCollisionMatrix(classCount: Int, rule: (Int, Int) -> Bool) {
        precondition(classCount >= 1 && classCount <= 65536, "collision class count must be 1 ... 65536, got \(classCount)")
        self.collisionFilter.classCount = classCount
        collisionFilter.collides = [Bool](repeating: false, count: classCount * classCount)
        collisionFilter.classActive = [Bool](repeating: false, count: classCount)
        for a in 1..<max(classCount, 1) {
            for b in a..<classCount where rule(a, b) {
                collisionFilter.collides[a * classCount + b] = true
                collisionFilter.collides[b * classCount + a] = true
                collisionFilter.classActive[a] = true
                collisionFilter.classActive[b] = true
            }
        }
        broadphase.pairCacheVersion &+= 1
        // Filtering changed: pairs that no longer collide are dropped by the next narrowphase; sleeping bodies
        // may now meet new partners, so wake everything.
        wakeAll()
    }

    // MARK: - Bodies

    /// Makes room for `bodies` more bodies with `shapes` more shapes of `vertices` more polygon vertices in all, sized
    /// exactly: call it before creating many bodies at once (the object layer does, per compile), so the tables do
    /// not grow by doubling and keep up to half their memory unused. Count only distinct polygon vertices: equal
    /// polygons created one after another share one copy (`storePolygon`).
    public func reserveCapacity(bodies more: Int, shapes moreShapes: Int, vertices moreVertices: Int) throws {
        for (name, v) in [("bodies", more), ("shapes", moreShapes), ("vertices", moreVertices)] where v < 0 {
            throw DynamicsError("reserveCapacity: the number of \(name) must not be negative, got \(v)")
        }
        bodies.reserveCapacity(bodies.count + more)
        shapeStore.records.reserveCapacity(shapeStore.records.count + moreShapes)
        shapeStore.polygonVertices.reserveCapacity(shapeStore.polygonVertices.count + moreVertices)
        shapeStore.polygonNormals.reserveCapacity(shapeStore.polygonNormals.count + moreVertices)
    }

    /// Creates a body. Refuses non-finite values, missing shapes, negative masses and damping, and unknown
    /// collision classes.
    @discardableResult
    public func createBody(_ def: BodyDefinition) throws -> BodyID {
        try validate(def)
        let id: Int32
        if let reused = bodies.freeIDs.popLast() {
            id = reused
        } else {
            id = Int32(bodies.idCapacity)
            bodies.slot.append(-1); bodies.generation.append(0)
            bodies.flags.append(0); bodies.shapeStart.append(0); bodies.shapeCount.append(0)
            bodies.localCenter.appendID(); bodies.mass.append(0); bodies.inertia.append(0)
            bodies.material.append(-1); bodies.charge.appendID()
            bodies.linearDamping.appendID(); bodies.angularDamping.appendID()
            bodies.collisionClass.append(0); bodies.userTag.append(-1); bodies.sleepingIsland.append(-1)
            bodies.jointHead.appendID()
        }
        let i = Int(id)
        bodies.generation[i] &+= 1
        bodies.setType(i, def.type)
        bodies.setAllowsRotation(i, def.allowsRotation)
        bodies.setMaterial(i, restitution: def.restitution, friction: def.friction)
        bodies.charge.set(i, def.charge, ids: bodies.idCapacity)
        setDampingRates(i, linear: def.linearDamping, angular: def.angularDamping)
        bodies.collisionClass[i] = UInt16(def.collisionClass)
        bodies.userTag[i] = def.userTag
        bodies.sleepingIsland[i] = -1
        bodies.setBinned(i, false)
        bodies.jointHead.set(i, -1, ids: bodies.idCapacity)

        let s = bodies.appendSlot(id: id)
        setShapesUnchecked(id: i, slot: s, shapes: def.shapes)
        let q = Rotation(angle: def.angle)
        bodies.rotation[s] = q
        bodies.position[s] = def.position + q.rotate(bodies.localCenter[i])
        bodies.gravity[s] = def.gravity
        if def.gravity != .zero { freeMotion.gravityInUse = true }
        updateDampingFactors(slot: s, id: i)
        if def.type == .dynamic {
            bodies.velocity[s] = def.linearVelocity
            bodies.angularVelocity[s] = def.allowsRotation ? def.angularVelocity : 0
            bodies.makeAwake(slot: s)
        } else {
            bin(id: i)
        }
        bodySetVersion += 1
        if def.type == .dynamic { dynamicBodyCount += 1 }
        return BodyID(index: id, generation: bodies.generation[i])
    }


    func validate(_ def: BodyDefinition) throws {
        try requireFinite(def.position, "body position")
        try requireFinite(def.angle, "body angle")
        try requireFinite(def.linearVelocity, "body velocity")
        try requireFinite(def.angularVelocity, "body angular velocity")
        try requireFinite(def.gravity, "body gravity")
        for (name, v) in [("linear damping", def.linearDamping), ("angular damping", def.angularDamping),
                          ("restitution", def.restitution), ("friction", def.friction)] {
            if !(v.isFinite && v >= 0) { throw DynamicsError("body \(name) must be finite and not negative, got \(v)") }
        }
        try requireFinite(def.charge, "body charge")
        try World.validateShapes(def.shapes, dynamic: def.type == .dynamic, "a body")
        if def.collisionClass < 0 || Int(def.collisionClass) >= collisionFilter.classCount {
            throw DynamicsError("collision class \(def.collisionClass) is not in the collision matrix (0..<\(collisionFilter.classCount))")
        }
    }






    /// The index of a body a query names. Queries take valid ids (`isValid(_:)` tells): a stale id stops the program
    /// with this message, as reading freed memory would be worse.
    @inline(__always) func checkedIndex(_ id: BodyID, _ what: String = "body") -> Int {
        precondition(bodies.isValid(id), "\(id) is stale or was never created (\(what))")
        return Int(id.index)
    }

    /// The index of a body a change names; throws for a stale id.
    @inline(__always) func validIndex(_ id: BodyID, _ what: String) throws -> Int {
        guard bodies.isValid(id) else { throw DynamicsError("\(what): \(id) is stale or was never created") }
        return Int(id.index)
    }

    public func isValid(_ id: BodyID) -> Bool { bodies.isValid(id) }

    /// Destroys a body, its joints and its contacts (touching contacts report an ended event at the next step).
    public func destroyBody(_ id: BodyID) throws {
        guard bodies.isValid(id) else { throw DynamicsError("cannot destroy \(id): it is stale or was never created") }
        let i = Int(id.index)
        wakeBody(i)
        if bodies.type(i) == .static { wakeIslandsTouching(body: Int32(i)) }
        for j in jointsAttached(to: i) { destroyJointUnchecked(Int(j)) }
        removeContacts(ofBody: Int32(i))
        if bodies.isBinned(i) { unbin(id: i) }
        var s = Int(bodies.slot[i])
        if s < bodies.awakeCount { bodies.makeNotAwake(slot: s); s = Int(bodies.slot[i]) }
        bodies.removeSlot(s)
        shapeStore.deadCount += Int(bodies.shapeCount[i])
        bodies.shapeCount[i] = 0
        bodies.slot[i] = -1
        bodies.releaseMaterial(i)
        bodies.freeIDs.append(Int32(i))
        bodySetVersion += 1
        if bodies.type(i) == .dynamic { dynamicBodyCount -= 1 }
    }



    // MARK: - Body state

    /// The body origin (the item's center), points.
    public func origin(of id: BodyID) -> Vec2 {
        let i = checkedIndex(id), s = Int(bodies.slot[i])
        return bodies.position[s] - bodies.rotation[s].rotate(bodies.localCenter[i])
    }
    /// The center of mass, points.
    public func centerOfMass(of id: BodyID) -> Vec2 { bodies.position[Int(bodies.slot[checkedIndex(id)])] }
    public func rotation(of id: BodyID) -> Rotation { bodies.rotation[Int(bodies.slot[checkedIndex(id)])] }
    public func angle(of id: BodyID) -> Float { rotation(of: id).angle }
    /// Velocity of the center of mass, points/s.
    public func velocity(of id: BodyID) -> Vec2 { bodies.velocity[Int(bodies.slot[checkedIndex(id)])] }
    public func angularVelocity(of id: BodyID) -> Float { bodies.angularVelocity[Int(bodies.slot[checkedIndex(id)])] }
    public func mass(of id: BodyID) -> Float { bodies.mass[checkedIndex(id)] }
    public func inertia(of id: BodyID) -> Float { bodies.inertia[checkedIndex(id)] }
    public func charge(of id: BodyID) -> Float { bodies.charge[checkedIndex(id)] }
    public func isAwake(_ id: BodyID) -> Bool { Int(bodies.slot[checkedIndex(id)]) < bodies.awakeCount }
    public func userTag(of id: BodyID) -> Int32 { bodies.userTag[checkedIndex(id)] }
    public func type(of id: BodyID) -> BodyType { bodies.type(checkedIndex(id)) }

    /// Moves the body origin to `origin` with rotation `angle`; wakes it.
    public func setTransform(_ id: BodyID, origin: Vec2, angle: Float) throws {
        try requireFinite(origin, "\(id) position"); try requireFinite(angle, "\(id) angle")
        let i = try validIndex(id, "setTransform")
        wakeBody(i)
        let s = Int(bodies.slot[i])
        let q = Rotation(angle: angle)
        bodies.slotVersion &+= 1
        bodies.rotation[s] = q
        bodies.position[s] = origin + q.rotate(bodies.localCenter[i])
        if bodies.isBinned(i) { unbin(id: i); bin(id: i) }
        if bodies.type(i) == .static { wakeIslandsTouching(body: Int32(i)) }
    }

    public func setVelocity(_ id: BodyID, _ v: Vec2) throws {
        try requireFinite(v, "\(id) velocity")
        let i = try validIndex(id, "setVelocity")
        guard bodies.type(i) == .dynamic else { return }
        wakeBody(i)
        bodies.velocity[Int(bodies.slot[i])] = v
    }

    public func setAngularVelocity(_ id: BodyID, _ w: Float) throws {
        try requireFinite(w, "\(id) angular velocity")
        let i = try validIndex(id, "setAngularVelocity")
        guard bodies.type(i) == .dynamic, bodies.allowsRotation(i) else { return }
        wakeBody(i)
        bodies.angularVelocity[Int(bodies.slot[i])] = w
    }

    /// Applies an impulse (mass·points/s) at a body-local offset from the body origin; wakes the body.
    public func applyImpulse(_ id: BodyID, _ impulse: Vec2, atLocalOffset offset: Vec2 = .zero) throws {
        try requireFinite(impulse, "\(id) impulse"); try requireFinite(offset, "\(id) impulse offset")
        let i = try validIndex(id, "applyImpulse")
        guard bodies.type(i) == .dynamic else { return }
        wakeBody(i)
        let s = Int(bodies.slot[i])
        let r = bodies.rotation[s].rotate(offset - bodies.localCenter[i])
        bodies.velocity[s] += bodies.invMass[s] * impulse
        bodies.angularVelocity[s] += bodies.invInertia[s] * cross(r, impulse)
    }

    /// Sets the constant acceleration (points/s²) applied every step; wakes the body when it changes.
    public func setGravity(_ id: BodyID, _ g: Vec2) throws {
        try requireFinite(g, "\(id) gravity")
        let i = try validIndex(id, "setGravity")
        if bodies.gravity[Int(bodies.slot[i])] == g { return }
        wakeBody(i)
        bodies.gravity[Int(bodies.slot[i])] = g
        if g != .zero { freeMotion.gravityInUse = true }
    }

    /// Sets the constant force (mass·points/s²) applied every step, with its torque given by two body-frame
    /// moments: torque = cos(angle)·torqueA − sin(angle)·torqueB, where for forces F_k applied at body-local offsets
    /// o_k (from the center of mass), torqueA = Σ cross(o_k, F_k) and torqueB = Σ dot(o_k, F_k).
    public func setConstantForce(_ id: BodyID, force: Vec2, torqueA: Float, torqueB: Float) throws {
        try requireFinite(force, "\(id) force"); try requireFinite(torqueA, "\(id) torque"); try requireFinite(torqueB, "\(id) torque")
        let i = try validIndex(id, "setConstantForce")
        let s = Int(bodies.slot[i])
        if bodies.force[s] == force && bodies.torqueA[s] == torqueA && bodies.torqueB[s] == torqueB { return }
        wakeBody(i)
        let s2 = Int(bodies.slot[i])
        if force != .zero { bodies.materializeForce() }
        if torqueA != 0 || torqueB != 0 { bodies.materializeTorque() }
        if bodies.force.isPresent { bodies.force[s2] = force }
        if bodies.torqueA.isPresent { bodies.torqueA[s2] = torqueA; bodies.torqueB[s2] = torqueB }
    }

    /// The local center of mass relative to the body origin.
    public func localCenter(of id: BodyID) -> Vec2 { bodies.localCenter[checkedIndex(id)] }

    /// Sets material and damping; wakes the body when anything changes.
    public func setMaterial(_ id: BodyID, restitution: Float, friction: Float, linearDamping: Float,
                            angularDamping: Float, charge: Float) throws {
        for (name, v) in [("elasticity", restitution), ("friction", friction), ("resistance", linearDamping),
                          ("angular resistance", angularDamping)] {
            if !(v.isFinite && v >= 0) { throw DynamicsError("\(id) \(name) must be finite and not negative, got \(v)") }
        }
        try requireFinite(charge, "\(id) charge")
        let i = checkedIndex(id)
        if bodies.restitution(i) == restitution && bodies.friction(i) == friction
            && bodies.linearDamping[i] == linearDamping && bodies.angularDamping[i] == angularDamping
            && bodies.charge[i] == charge { return }
        wakeBody(i)
        bodies.setMaterial(i, restitution: restitution, friction: friction)
        bodies.charge.set(i, charge, ids: bodies.idCapacity)
        setDampingRates(i, linear: linearDamping, angular: angularDamping)
        updateDampingFactors(slot: Int(bodies.slot[i]), id: i)
    }






    /// Replaces the body's shapes (and so its mass); keeps the origin where it is.
    public func setShapes(_ id: BodyID, _ defs: [ShapeDefinition]) throws {
        let i = try validIndex(id, "setShapes")
        try World.validateShapes(defs, dynamic: bodies.type(i) == .dynamic, "\(id)")
        let o = origin(of: id)
        wakeBody(i)
        let s = Int(bodies.slot[i])
        let wasBinned = bodies.isBinned(i)
        if wasBinned { unbin(id: i) }
        removeContacts(ofBody: Int32(i))
        setShapesUnchecked(id: i, slot: s, shapes: defs)
        bodies.position[s] = o + bodies.rotation[s].rotate(bodies.localCenter[i])
        if wasBinned { bin(id: i) }
    }

    /// Sets whether the body may rotate; wakes it.
    public func setAllowsRotation(_ id: BodyID, _ allows: Bool) throws {
        let i = try validIndex(id, "setAllowsRotation")
        if bodies.allowsRotation(i) == allows { return }
        wakeBody(i)
        bodies.setAllowsRotation(i, allows)
        let s = Int(bodies.slot[i])
        updateMass(id: i, slot: s)
        if !allows { bodies.angularVelocity[s] = 0 }
    }

    /// Changes the mass of a dynamic body, keeping its shapes (inertia scales with it).
    public func setMass(_ id: BodyID, _ mass: Float) throws {
        if !(mass.isFinite && mass > 0) { throw DynamicsError("\(id) mass must be positive and finite, got \(mass)") }
        let i = try validIndex(id, "setMass")
        let old = bodies.mass[i]
        if old == mass { return }
        wakeBody(i)
        bodies.inertia[i] = old > 0 ? bodies.inertia[i] * mass / old : bodies.inertia[i]
        bodies.mass[i] = mass
        updateMass(id: i, slot: Int(bodies.slot[i]))
    }

    /// Makes the body static (anchored: fixed in place, still collides) or dynamic again.
    public func setType(_ id: BodyID, _ type: BodyType) throws {
        let i = try validIndex(id, "setType")
        if bodies.type(i) == type { return }
        wakeBody(i)
        bodySetVersion += 1
        dynamicBodyCount += type == .dynamic ? 1 : -1
        let s = Int(bodies.slot[i])
        if type == .static {
            wakeIslandsTouching(body: Int32(i))
            bodies.setType(i, .static)
            bodies.velocity[s] = .zero; bodies.angularVelocity[s] = 0
            updateMass(id: i, slot: s)
            bodies.makeNotAwake(slot: s)
            bin(id: i)
        } else {
            bodies.setType(i, .dynamic)
            if bodies.isBinned(i) { unbin(id: i) }
            updateMass(id: i, slot: s)
            bodies.sleepTime[s] = 0
            bodies.makeAwake(slot: s)
            wakeIslandsTouching(body: Int32(i))
        }
        // Contacts with a static body are kept by the dynamic side; re-evaluate from scratch.
        removeContacts(ofBody: Int32(i))
    }

    public func setCollisionClass(_ id: BodyID, _ cls: Int32) throws {
        if cls < 0 || Int(cls) >= collisionFilter.classCount {
            throw DynamicsError("collision class \(cls) is not in the collision matrix (0..<\(collisionFilter.classCount))")
        }
        let i = try validIndex(id, "setCollisionClass")
        if bodies.collisionClass[i] == UInt16(cls) { return }
        wakeBody(i)
        if bodies.type(i) == .static { wakeIslandsTouching(body: Int32(i)) }
        bodies.collisionClass[i] = UInt16(cls)
        broadphase.pairCacheVersion &+= 1
    }

    /// Wakes the body's island (and the body) if it sleeps.
    public func wake(_ id: BodyID) throws { wakeBody(try validIndex(id, "wake")) }

    /// Wakes every sleeping island.
    public func wakeAll() {
        for k in 0..<islandStore.sleeping.count where islandStore.sleeping[k].inUse { wakeIsland(Int32(k)) }
    }
}
