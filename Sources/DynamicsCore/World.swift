import DynamicsSIMD

/// A shape as stored: geometry relative to the body's center of mass, in the body's frame. 24 bytes: a polygon's
/// vertex run is kept in the place of a segment's end point.
@usableFromInline
struct ShapeRecord {
    @usableFromInline enum Kind: UInt8 { case circle, polygon, segment }
    @usableFromInline var kind: Kind
    @usableFromInline var radius: Float          // circles
    @usableFromInline var p0: Vec2               // circle center, or segment start
    /// Segment end; for a polygon, the bit patterns of `vertexStart` and `vertexCount` (never used as numbers).
    @usableFromInline var p1: Vec2

    @inline(__always) init(kind: Kind, vertexStart: Int32, vertexCount: Int32, radius: Float, p0: Vec2, p1: Vec2) {
        self.kind = kind; self.radius = radius; self.p0 = p0
        self.p1 = kind == .polygon ? Vec2(Float(bitPattern: UInt32(bitPattern: vertexStart)),
                                          Float(bitPattern: UInt32(bitPattern: vertexCount))) : p1
    }

    /// Polygons: the first of the shape's vertices in `polygonVertices` / `polygonNormals`.
    @usableFromInline var vertexStart: Int32 {
        @inline(__always) get { Int32(bitPattern: p1.x.bitPattern) }
        @inline(__always) set { p1.x = Float(bitPattern: UInt32(bitPattern: newValue)) }
    }

    /// Polygons: how many vertices.
    @usableFromInline var vertexCount: Int32 {
        @inline(__always) get { Int32(bitPattern: p1.y.bitPattern) }
    }
}

/// A persistent contact between two shapes of two bodies; keyed by (bodies, shapes) so the contact list can be
/// kept sorted and merged with the new pairs each step, which gives warm starting and began/ended events without
/// a hash map.
@usableFromInline
struct Contact {
    // In this order the record is 112 bytes: the flag and the reach sit in the manifold's tail, after its one-byte
    // count.
    @usableFromInline var bodyPair: UInt64      // bodyA << 32 | bodyB (id indices, A < B)
    @usableFromInline var manifold: Manifold
    @usableFromInline var touching: Bool
    /// The reach the manifold was computed with, in steps of `World.reachUnit` beyond the speculative distance
    /// (`World.noReach`: a reach too long to step), so that the next step may reuse it while neither body leaves
    /// its reference and the pair needs no longer reach (World+Narrowphase.swift).
    @usableFromInline var reach: UInt8
    @usableFromInline var shapePair: UInt32      // local shape A << 16 | local shape B
    @usableFromInline var friction: Float
    @usableFromInline var restitution: Float

    @inline(__always) init(bodyPair: UInt64, shapePair: UInt32, manifold: Manifold, friction: Float, restitution: Float,
                           touching: Bool, reach: UInt8 = World.noReach) {
        self.bodyPair = bodyPair; self.manifold = manifold; self.touching = touching; self.reach = reach
        self.shapePair = shapePair; self.friction = friction; self.restitution = restitution
    }

    @inline(__always) var bodyA: Int32 { Int32(truncatingIfNeeded: bodyPair >> 32) }
    @inline(__always) var bodyB: Int32 { Int32(truncatingIfNeeded: bodyPair & 0xFFFF_FFFF) }
    @inline(__always) static func < (a: Contact, b: Contact) -> Bool {
        a.bodyPair != b.bodyPair ? a.bodyPair < b.bodyPair : a.shapePair < b.shapePair
    }
}

/// How far a pair of bodies can close this step (`World.reach`): the speculative distance and its spin part.
@usableFromInline
struct PairReach {
    @usableFromInline var spin: Float
    @usableFromInline var speculativeReach: Float
}

/// A sleeping island: its bodies sit outside the awake range and its contacts wait here, untouched, until
/// something wakes it.
@usableFromInline
struct SleepingIsland {
    @usableFromInline var bodies: [Int32] = []
    @usableFromInline var contacts: [Contact] = []
    @usableFromInline var inUse = false
}

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
public final class World {
    /// The engine parameters; change them with `setSettings(_:)`, which refuses settings that break a rule of
    /// `WorldSettings.validate()`.
    public private(set) var settings: WorldSettings {
        didSet {
            pairCacheVersion &+= 1
            if settings.gridCellSize != oldValue.gridCellSize { cellSize = 0 }
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

    @usableFromInline let bodies = BodyStore()
    @exclusivity(unchecked) @usableFromInline var shapes: [ShapeRecord] = []
    @exclusivity(unchecked) @usableFromInline var polygonVertices: [Vec2] = []
    @exclusivity(unchecked) @usableFromInline var polygonNormals: [Vec2] = []
    @exclusivity(unchecked) @usableFromInline var deadShapeCount = 0
    /// The last polygon run stored (`storePolygon`), which an equal polygon shares.
    @exclusivity(unchecked) @usableFromInline var lastPolygonRun: (start: Int32, count: Int32)?

    @exclusivity(unchecked) @usableFromInline var joints: [JointRecord] = []
    @exclusivity(unchecked) @usableFromInline var jointGeneration: [UInt32] = []
    @exclusivity(unchecked) @usableFromInline var jointAlive: [Bool] = []
    @exclusivity(unchecked) @usableFromInline var freeJoints: [Int32] = []
    /// Per joint edge (see `BodyStore.jointHead`): the next edge of the same body's list, or −1.
    @exclusivity(unchecked) @usableFromInline var jointEdgeNext: [Int32] = []
    @exclusivity(unchecked) @usableFromInline var awakeJoints: [Int32] = []
    /// Joints whose world anchor was moved since the last step (`setWorldAnchor`), and those whose anchor moved
    /// during the last step: the solver gives the anchor the velocity of its move.
    @usableFromInline var movedAnchors: [Int32] = []
    @usableFromInline var anchorsInMotion: [Int32] = []
    /// Seconds of the step left at the current substep's positions (a moving anchor is that far behind its end).
    @usableFromInline var anchorTimeLeft: Float = 0
    /// This step's rigid distance joints in colored batches of four, and the awake joints solved one by one
    /// (WideJoints.swift); with the coloring's scratch: color and joint per rod, rods by color, color ends,
    /// and the colors taken at each awake body.
    @exclusivity(unchecked) @usableFromInline var wideRods: [WideRodBatch] = []
    @exclusivity(unchecked) @usableFromInline var centerRods: [CenterRodBatch] = []
    @exclusivity(unchecked) @usableFromInline var scalarJoints: [Int32] = []
    @exclusivity(unchecked) @usableFromInline var rodColored: [UInt64] = []
    @exclusivity(unchecked) @usableFromInline var rodSorted: [Int32] = []
    @exclusivity(unchecked) @usableFromInline var rodColorStart: [Int] = []
    @exclusivity(unchecked) @usableFromInline var rodBodyColors: [UInt64] = []
    /// The rods' awake bodies (slots) in packed-entry order, each awake body's entry (−1 if none), and the packed
    /// state: velocities (vx, vy, ω, 0) and poses (x, y, cos, sin), the bodies' entries then one per fixed side.
    @exclusivity(unchecked) @usableFromInline var rodBodies: [Int32] = []
    @exclusivity(unchecked) @usableFromInline var rodBodyEntry: [Int32] = []
    @exclusivity(unchecked) @usableFromInline var rodVelocity = Column<SIMD4<Float>>()
    @exclusivity(unchecked) @usableFromInline var rodPose = Column<SIMD4<Float>>()
    /// Below this many rigid distance joints the scalar path is cheaper than packing their bodies' state (tests set
    /// it to compare the two paths).
    @exclusivity(unchecked) @usableFromInline var wideRodMinimum = 16
    /// Positions have moved since the wide rods' geometry was computed.
    @exclusivity(unchecked) @usableFromInline var wideRodGeometryStale = true
    @exclusivity(unchecked) @usableFromInline var awakeJointsDirty = false
    /// The wide rods' batches (`buildWideRods`) must be rebuilt: the awake joints or a joint's parameters changed.
    @exclusivity(unchecked) @usableFromInline var rodLayoutDirty = true
    /// The wide rods' batches hold impulses the joint records do not have yet (`flushRodImpulses`).
    @exclusivity(unchecked) @usableFromInline var rodImpulsesPending = false
    /// What the joint records were last brought up to date with (`prepareJoints`): the bodies' slot version and
    /// the substep.
    @exclusivity(unchecked) @usableFromInline var preparedSlotVersion: UInt64 = .max
    @exclusivity(unchecked) @usableFromInline var preparedSubstep: Float = .nan
    /// This step's constraints are wide rods only (and warm starting is on): see `runWideRods`.
    @exclusivity(unchecked) @usableFromInline var rodsAlone = false
    /// This step's contact constraints in colored batches of four (WideContacts.swift; empty: the scalar path),
    /// with the coloring's scratch: color and contact per contact (after the build, each contact's batch << 2 |
    /// lane or overflow constraint, which restitution reads), contacts by color, color ends, the colors
    /// taken at each awake body (by entry); the bodies in packed-entry order (entry 0 is the padding lanes'), the body → entry
    /// map (−1 outside a build) and the packed state, (vx, vy, ω, 0) and (x, y, cos, sin) per entry.
    @exclusivity(unchecked) @usableFromInline var wideContacts = StepTable<WideContactBatch>()
    @exclusivity(unchecked) @usableFromInline var contactColored: [UInt64] = []
    @exclusivity(unchecked) @usableFromInline var contactSorted: [Int32] = []
    @exclusivity(unchecked) @usableFromInline var contactColorStart: [Int] = []
    /// Where each color's batches end in `wideContacts` (colors without constraints left out).
    @exclusivity(unchecked) @usableFromInline var wideContactColorEnds: [Int32] = []
    @exclusivity(unchecked) @usableFromInline var contactBodyColors: [UInt64] = []
    @exclusivity(unchecked) @usableFromInline var contactBodies: [Int32] = []
    @exclusivity(unchecked) @usableFromInline var contactBodyEntry: [Int32] = []
    @exclusivity(unchecked) @usableFromInline var contactVelocity = Column<SIMD4<Float>>()
    @exclusivity(unchecked) @usableFromInline var contactPose = Column<SIMD4<Float>>()
    /// Below this many contact constraints the scalar path is cheaper than coloring and packing (tests set it to
    /// compare the two paths).
    @exclusivity(unchecked) @usableFromInline var wideContactMinimum = 16
    /// Positions have moved since the packed poses were copied.
    @exclusivity(unchecked) @usableFromInline var wideContactPosesStale = true

    @exclusivity(unchecked) @usableFromInline var contacts: [Contact] = []
    /// Last step's contacts, as the narrowphase reads them while it rebuilds `contacts` into this buffer's twin: the
    /// two swap every step (scratch kept between steps).
    @exclusivity(unchecked) @usableFromInline var contactHistory: [Contact] = []
    /// The narrowphase's reference pose of each awake body, (x, y, cos, sin) by slot, and whether the body took its
    /// present pose as reference this step (1) or kept it (0); kept in calm scenes only, as the broadphase's fat
    /// boxes are (elsewhere a body's reference is its present pose). Manifolds are computed at the reference poses and
    /// reused while neither body of a pair leaves its reference by more than `manifoldTolerance` (see
    /// World+Narrowphase.swift). `referenceState`: the versions and awake count the references were kept under;
    /// when any changes, every body takes its pose as reference again and no manifold is reused.
    @exclusivity(unchecked) @usableFromInline var referencePose = Column<SIMD4<Float>>()
    @exclusivity(unchecked) @usableFromInline var referenceMoved = Column<UInt8>()
    @exclusivity(unchecked) @usableFromInline var referenceState: (slots: UInt64, pairs: UInt64, awake: Int, valid: Bool) = (0, 0, 0, false)
    /// Tests turn reuse off to check that a reused manifold is the one computing it again gives, to the bit.
    @exclusivity(unchecked) @usableFromInline var manifoldReuse = true
    /// How many of the last narrowphase's manifolds were last step's, reused.
    @exclusivity(unchecked) @usableFromInline var reusedManifoldCount = 0
    @exclusivity(unchecked) @usableFromInline var contactsNeedSort = false
    @exclusivity(unchecked) @usableFromInline var islands: [SleepingIsland] = []
    @exclusivity(unchecked) @usableFromInline var freeIslands: [Int32] = []

    // Collision filtering: `collides[a * classCount + b]`; `classActive[c]` when class c collides with anything.
    @exclusivity(unchecked) @usableFromInline var classCount = 1
    @exclusivity(unchecked) @usableFromInline var collides: [Bool] = [false]
    @exclusivity(unchecked) @usableFromInline var classActive: [Bool] = [false]

    // Broadphase state and scratch (reused; the steady step allocates nothing).
    @exclusivity(unchecked) @usableFromInline var cellSize: Float = 0
    @exclusivity(unchecked) @usableFromInline var staticGrid = StaticGrid()
    @exclusivity(unchecked) @usableFromInline var cellEntries: [UInt64] = []
    @exclusivity(unchecked) @usableFromInline var pairs: [UInt64] = []
    @exclusivity(unchecked) @usableFromInline var sortScratch: [UInt64] = []
    @exclusivity(unchecked) @usableFromInline var sortCounts: [Int] = []
    /// The counting sort's bucket counts (cells in use, or body ids).
    @exclusivity(unchecked) @usableFromInline var bucketCounts: [Int32] = []
    @exclusivity(unchecked) @usableFromInline var awakeOversize: [Int32] = []
    /// The continuous pass's scratch (World+Continuous.swift): per awake slot (the first `continuousCount`), its
    /// position at the step's start and where its start velocity would take it (x, y, predicted x, predicted y;
    /// infinite for a body near a static one); the slots to test; the static bodies near one path.
    @exclusivity(unchecked) @usableFromInline var continuousStart: [SIMD4<Float>] = []
    @exclusivity(unchecked) @usableFromInline var continuousCount = 0
    @exclusivity(unchecked) @usableFromInline var continuousTested: [Int32] = []
    @exclusivity(unchecked) @usableFromInline var continuousNear: [UInt64] = []
    /// The broadphase's kept candidates (World+BroadPhase.swift): each awake body's fat box, by slot (its boxes
    /// swept in the awake bodies' common frame and in the world, grown by a margin), the candidate pairs, sorted
    /// (every pair whose fat boxes overlap), the cells of the last full search and the bodies given new fat boxes
    /// since.
    @exclusivity(unchecked) @usableFromInline var fatBoxes = Column<AABB>()
    @exclusivity(unchecked) @usableFromInline var candidates: [UInt64] = []
    @exclusivity(unchecked) @usableFromInline var freshCandidates: [UInt64] = []
    /// Per pair of `pairs`, how far it can close this step (`World.reach`), for the narrowphase.
    @exclusivity(unchecked) @usableFromInline var pairReach: [PairReach] = []
    @exclusivity(unchecked) @usableFromInline var fatGrid = FatGrid()
    /// Bumped by whatever changes which pairs the candidates must hold besides the bodies' motion: the static grid
    /// (a body binned or unbinned), the collision classes and matrix, the settings. (Slots moving, bodies created or
    /// removed, masses set and bodies placed by hand bump `bodies.slotVersion`.)
    @exclusivity(unchecked) @usableFromInline var pairCacheVersion: UInt64 = 0
    /// False: every step searches the grid in full (what the incremental broadphase is tested against).
    @usableFromInline var incrementalBroadphase = true
    /// How many steps have searched the grid in full (the others kept up the candidates of an earlier search).
    @usableFromInline var fullSearchCount = 0
    @exclusivity(unchecked) @usableFromInline var wakeList: [Int32] = []
    /// Scratch for polygons in world coordinates (A's vertices, A's normals, B's vertices, B's normals). Immutable
    /// pointers, so the narrowphase reaches them without exclusivity checks.
    @usableFromInline let scratchPolygons = UnsafeMutablePointer<Vec2>.allocate(capacity: 4 * maxPolygonVertices)

    // Solver scratch.
    /// This step's scalar contact constraints: every contact on the scalar path; beside `wideContacts`, only the
    /// coloring's overflow.
    @exclusivity(unchecked) @usableFromInline var constraints = StepTable<ContactConstraint>()
    /// What the last broadphase borrowed of `wideContacts` (its cell slots) and `constraints` (its unswept
    /// boxes), in elements of each: their tables are kept at least this large.
    @exclusivity(unchecked) @usableFromInline var broadphaseBorrowed = (wide: 0, constraints: 0)
    @exclusivity(unchecked) @usableFromInline var unionParent: [Int32] = []
    @exclusivity(unchecked) @usableFromInline var islandMinSleep: [Float] = []
    /// Scratch of `putRestingIslandsToSleep`: per root slot, its index in `islandRoots` (−1 between calls).
    @exclusivity(unchecked) @usableFromInline var islandRootIndex: [Int32] = []
    @exclusivity(unchecked) @usableFromInline var islandRoots: [(root: Int32, start: Int, count: Int)] = []
    @exclusivity(unchecked) @usableFromInline var islandMembers: [Int32] = []
    @exclusivity(unchecked) @usableFromInline var dampingH: Float = 0
    @exclusivity(unchecked) @usableFromInline var dampingSubsteps = 0
    /// Set once any body has a non-zero gravity (never cleared): while false, the free-motion pass skips the column.
    @exclusivity(unchecked) @usableFromInline var gravityInUse = false
    /// Some body has (or had) a constant force, a torque, linear damping: their columns are present (never
    /// cleared). Until then every body shares the undamped free-motion terms.
    @usableFromInline var forceInUse: Bool { bodies.force.isPresent }
    @usableFromInline var torqueInUse: Bool { bodies.torqueA.isPresent }
    @usableFromInline var linearDampingInUse: Bool { bodies.linearDampingFactor.isPresent }
    /// The fields of the free-motion pass, compiled each step it runs (reused scratch; a raw column so the pass
    /// reads it without a closure).
    @exclusivity(unchecked) @usableFromInline var freeFields = Column<dk_free_field>()
    @exclusivity(unchecked) @usableFromInline var freeFieldCount = 0
    /// How the pass evaluates `freeFields`, and the combined coefficients of the central form (its `mask` is
    /// `freeProgram`'s, filled in when the pass runs).
    @exclusivity(unchecked) @usableFromInline var freeProgram = FreeProgram.none
    @exclusivity(unchecked) @usableFromInline var freeCentral = dk_free_central()

    // Fields (stage 2).
    @exclusivity(unchecked) @usableFromInline var fields: [FieldRecord] = []
    @exclusivity(unchecked) @usableFromInline var fieldWarned: [Bool] = []
    @exclusivity(unchecked) @usableFromInline var fieldForce: [Vec2] = []
    /// Field accelerations (points/s²) of the mass-proportional kinds, so their kernels need no mass.
    @exclusivity(unchecked) @usableFromInline var fieldAcceleration: [Vec2] = []
    @exclusivity(unchecked) @usableFromInline var velocityOverride: [Vec2] = []
    @exclusivity(unchecked) @usableFromInline var fieldsActive = false
    @exclusivity(unchecked) @usableFromInline var hasVelocityOverride = false
    @exclusivity(unchecked) @usableFromInline var velocityOverrideWritten = false
    @exclusivity(unchecked) @usableFromInline var fieldsCoveredCount = 0
    /// This step's field motion that is integrated exactly per substep rather than as a force (see
    /// `FieldMotion`), per awake slot; present only while some field needs it.
    @exclusivity(unchecked) @usableFromInline var fieldMotion = FieldMotion()
    /// The gravity of the first `foldedGravityCount` awake slots before this step's field accelerations were added
    /// to it (`foldFieldAcceleration`).
    @exclusivity(unchecked) @usableFromInline var savedGravity: [Vec2] = []
    @exclusivity(unchecked) @usableFromInline var foldedGravityCount = 0

    /// Simulated seconds of field time (drives animated noise).
    @exclusivity(unchecked) @usableFromInline var fieldTime: Float = 0
    @exclusivity(unchecked) @usableFromInline var warnings: [String] = []
    /// Indices of the fields that take the general path this step (reused scratch).
    @exclusivity(unchecked) @usableFromInline var generalFieldScratch: [Int] = []
    /// Changes whenever a body is created, destroyed or changes type (invalidates fields' `coversAll`).
    @exclusivity(unchecked) @usableFromInline var bodySetVersion = 0
    @exclusivity(unchecked) @usableFromInline var dynamicBodyCount = 0

    /// Contact events of the last step (cleared at the start of each step).
    @exclusivity(unchecked) public internal(set) var contactBeganEvents: [ContactBeganEvent] = []
    @exclusivity(unchecked) public internal(set) var contactEndedEvents: [ContactEndedEvent] = []
    /// Bodies that fell asleep in the last step (their final state should be written back once).
    @exclusivity(unchecked) public internal(set) var bodiesFallenAsleep: [BodyID] = []
    /// Timings of the last step.
    @exclusivity(unchecked) public internal(set) var profile = StepProfile()
    /// Number of steps taken.
    @exclusivity(unchecked) public internal(set) var stepCount = 0

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
        freeFields.free(count: freeFieldCount)
        rodVelocity.free(count: 0)
        rodPose.free(count: 0)
        contactVelocity.free(count: 0)
        referencePose.free(count: 0)
        referenceMoved.free(count: 0)
        contactPose.free(count: 0)
        fatBoxes.free(count: 0)
        constraints.free()
        wideContacts.free()
    }

    // MARK: - Counts

    public var bodyCount: Int { bodies.count }
    public var awakeBodyCount: Int { bodies.awakeCount }
    /// Contacts between awake bodies (touching or speculative), the ones the next step solves.
    public var contactCount: Int { contacts.count }
    /// Touching contacts between awake bodies.
    public var touchingContactCount: Int { contacts.reduce(0) { $0 + ($1.touching ? 1 : 0) } }
    /// Every touching contact, awake or kept by a sleeping island (items resting on a floor touch it).
    public var allTouchingContactCount: Int {
        islands.reduce(touchingContactCount) { sum, island in
            island.inUse ? island.contacts.reduce(sum) { $0 + ($1.touching ? 1 : 0) } : sum
        }
    }
    public var jointCount: Int { jointAlive.reduce(0) { $0 + ($1 ? 1 : 0) } }
    public var sleepingIslandCount: Int { islands.reduce(0) { $0 + ($1.inUse ? 1 : 0) } }


    // MARK: - Collision filtering

    /// Sets which pairs of collision classes collide. `rule(a, b)` is asked for a ≤ b and mirrored. Class 0 is
    /// reserved for bodies that collide with nothing, whatever `rule` says.
    public func setCollisionMatrix(classCount: Int, rule: (Int, Int) -> Bool) {
        precondition(classCount >= 1 && classCount <= 65536, "collision class count must be 1 ... 65536, got \(classCount)")
        self.classCount = classCount
        collides = [Bool](repeating: false, count: classCount * classCount)
        classActive = [Bool](repeating: false, count: classCount)
        for a in 1..<max(classCount, 1) {
            for b in a..<classCount where rule(a, b) {
                collides[a * classCount + b] = true
                collides[b * classCount + a] = true
                classActive[a] = true
                classActive[b] = true
            }
        }
        pairCacheVersion &+= 1
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
        shapes.reserveCapacity(shapes.count + moreShapes)
        polygonVertices.reserveCapacity(polygonVertices.count + moreVertices)
        polygonNormals.reserveCapacity(polygonNormals.count + moreVertices)
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
        let q = Rot(angle: def.angle)
        bodies.rotation[s] = q
        bodies.position[s] = def.position + q.rotate(bodies.localCenter[i])
        bodies.gravity[s] = def.gravity
        if def.gravity != .zero { gravityInUse = true }
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

    /// The rules for a body's shapes: one to 65,535 of them, each valid (`ShapeGeometry.validate`: finite, within
    /// ±`maximumShapeCoordinate` of the body's origin) with a finite mass that is not negative, a positive total
    /// mass for a dynamic body, and a total mass and moment of inertia a `Float` holds.
    static func validateShapes(_ defs: [ShapeDefinition], dynamic: Bool, _ what: String) throws {
        if defs.isEmpty { throw DynamicsError("\(what): a body needs at least one shape") }
        if defs.count > 0xFFFF { throw DynamicsError("\(what): a body may have at most 65535 shapes, got \(defs.count)") }
        var mass: Float = 0, inertia: Float = 0
        for (k, shape) in defs.enumerated() {
            try shape.geometry.validate("\(what) shape \(k)")
            if !(shape.mass.isFinite && shape.mass >= 0) {
                throw DynamicsError("\(what) shape \(k) mass must be finite and not negative, got \(shape.mass)")
            }
            let m = shape.geometry.massShape
            mass += shape.mass
            inertia += shape.mass * (m.inertiaPerMass + lengthSquared(m.centroid))
        }
        if dynamic && mass <= 0 { throw DynamicsError("\(what): a dynamic body needs a positive mass") }
        if !(mass.isFinite && inertia.isFinite) {
            throw DynamicsError("\(what): the shapes' mass (\(mass)) and moment of inertia (\(inertia)) must be finite: the shapes are too large or too dense")
        }
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
        if def.collisionClass < 0 || Int(def.collisionClass) >= classCount {
            throw DynamicsError("collision class \(def.collisionClass) is not in the collision matrix (0..<\(classCount))")
        }
    }

    /// Stores the shapes, computes mass, inertia and center of mass. Shapes are kept relative to the COM.
    func setShapesUnchecked(id i: Int, slot s: Int, shapes defs: [ShapeDefinition]) {
        if bodies.shapeCount[i] > 0 { deadShapeCount += Int(bodies.shapeCount[i]) }
        var totalMass: Float = 0
        var com = Vec2.zero
        for d in defs {
            totalMass += d.mass
            com += d.mass * d.geometry.massShape.centroid
        }
        if totalMass > 0 { com /= totalMass } else {
            com = defs.reduce(Vec2.zero) { $0 + $1.geometry.massShape.centroid } / Float(defs.count)
        }
        if bodies.type(i) == .static { com = .zero }
        var inertia: Float = 0
        var ext: Float = 0
        for d in defs {
            let ms = d.geometry.massShape
            inertia += d.mass * (ms.inertiaPerMass + lengthSquared(ms.centroid - com))
            ext = max(ext, d.geometry.maxExtent(from: com))
        }
        bodies.shapeStart[i] = Int32(shapes.count)
        bodies.shapeCount[i] = UInt16(defs.count)
        for d in defs {
            switch d.geometry {
            case let .circle(c, r):
                shapes.append(ShapeRecord(kind: .circle, vertexStart: 0, vertexCount: 0, radius: r, p0: c - com, p1: .zero))
            case let .segment(a, b):
                shapes.append(ShapeRecord(kind: .segment, vertexStart: 0, vertexCount: 2, radius: 0, p0: a - com, p1: b - com))
            case let .polygon(p):
                let local = p.vertices.map { $0 - com }
                let start = storePolygon(local, p.normals)
                shapes.append(ShapeRecord(kind: .polygon, vertexStart: start,
                                          vertexCount: Int32(p.vertices.count), radius: 0, p0: .zero, p1: .zero))
            }
        }
        bodies.localCenter.set(i, com, ids: bodies.idCapacity)
        bodies.mass[i] = totalMass
        bodies.inertia[i] = inertia
        bodies.extent[s] = ext
        updateMass(id: i, slot: s)
        if deadShapeCount > 1024 && deadShapeCount > shapes.count / 2 { compactShapes() }
    }

    func updateMass(id i: Int, slot s: Int) {
        bodies.slotVersion &+= 1
        if bodies.type(i) == .static {
            bodies.invMass[s] = 0; bodies.invInertia[s] = 0
        } else {
            let m = bodies.mass[i], I = bodies.inertia[i]
            bodies.invMass[s] = m > 0 ? 1 / m : 0
            bodies.invInertia[s] = (bodies.allowsRotation(i) && I > 0) ? 1 / I : 0
        }
    }

    /// Whether the vertex run at `start` holds exactly (bit for bit) these vertices and normals.
    static func sameRun(_ vertices: [Vec2], _ normals: [Vec2], at start: Int, _ v: [Vec2], _ n: [Vec2]) -> Bool {
        guard start + v.count <= vertices.count else { return false }
        for k in 0..<v.count {
            let a = vertices[start + k], b = v[k], c = normals[start + k], d = n[k]
            if a.x.bitPattern != b.x.bitPattern || a.y.bitPattern != b.y.bitPattern
                || c.x.bitPattern != d.x.bitPattern || c.y.bitPattern != d.y.bitPattern { return false }
        }
        return true
    }

    /// Stores a polygon's local vertices and normals and returns where they start. A polygon equal to the last one
    /// stored shares its run: bodies made one after another from the same outline (a crowd of equal items) keep
    /// one copy of it, not one per body. Runs are never written after they are stored, so sharing is safe.
    func storePolygon(_ v: [Vec2], _ n: [Vec2]) -> Int32 {
        if let last = lastPolygonRun, Int(last.count) == v.count,
           World.sameRun(polygonVertices, polygonNormals, at: Int(last.start), v, n) {
            return last.start
        }
        let start = Int32(polygonVertices.count)
        polygonVertices.append(contentsOf: v)
        polygonNormals.append(contentsOf: n)
        lastPolygonRun = (start, Int32(v.count))
        return start
    }

    func compactShapes() {
        var newShapes: [ShapeRecord] = []
        var newVertices: [Vec2] = [], newNormals: [Vec2] = []
        newShapes.reserveCapacity(shapes.count - deadShapeCount)
        // Runs shared before stay shared: a run equal to the last one copied reuses it.
        var last: (old: Int32, new: Int32, count: Int32)?
        for i in 0..<bodies.idCapacity where bodies.slot[i] >= 0 {
            let start = Int(bodies.shapeStart[i]), n = Int(bodies.shapeCount[i])
            bodies.shapeStart[i] = Int32(newShapes.count)
            for k in start..<(start + n) {
                var sh = shapes[k]
                if sh.kind == .polygon {
                    let vs = Int(sh.vertexStart), vc = Int(sh.vertexCount)
                    if let l = last, l.old == sh.vertexStart, l.count == sh.vertexCount {
                        sh.vertexStart = l.new
                    } else {
                        let fresh = Int32(newVertices.count)
                        newVertices.append(contentsOf: polygonVertices[vs..<(vs + vc)])
                        newNormals.append(contentsOf: polygonNormals[vs..<(vs + vc)])
                        last = (sh.vertexStart, fresh, sh.vertexCount)
                        sh.vertexStart = fresh
                    }
                }
                newShapes.append(sh)
            }
        }
        shapes = newShapes; polygonVertices = newVertices; polygonNormals = newNormals
        lastPolygonRun = last.map { ($0.new, $0.count) }
        deadShapeCount = 0
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
        deadShapeCount += Int(bodies.shapeCount[i])
        bodies.shapeCount[i] = 0
        bodies.slot[i] = -1
        bodies.releaseMaterial(i)
        bodies.freeIDs.append(Int32(i))
        bodySetVersion += 1
        if bodies.type(i) == .dynamic { dynamicBodyCount -= 1 }
    }

    /// Removes every active contact of a body, reporting touching ones as ended.
    func removeContacts(ofBody b: Int32) {
        var kept = 0
        for k in 0..<contacts.count {
            let c = contacts[k]
            if c.bodyA == b || c.bodyB == b {
                if c.touching { pendingEnded.append(endedEvent(c)) }
                continue
            }
            contacts[kept] = c; kept += 1
        }
        contacts.removeLast(contacts.count - kept)
    }

    @exclusivity(unchecked) @usableFromInline var pendingEnded: [ContactEndedEvent] = []

    func endedEvent(_ c: Contact) -> ContactEndedEvent {
        let a = Int(c.bodyA), b = Int(c.bodyB)
        return ContactEndedEvent(bodyA: BodyID(index: c.bodyA, generation: bodies.generation[a]),
                                 bodyB: BodyID(index: c.bodyB, generation: bodies.generation[b]),
                                 shapeA: Int(c.shapePair >> 16), shapeB: Int(c.shapePair & 0xFFFF))
    }

    // MARK: - Body state

    /// The body origin (the item's center), points.
    public func origin(of id: BodyID) -> Vec2 {
        let i = checkedIndex(id), s = Int(bodies.slot[i])
        return bodies.position[s] - bodies.rotation[s].rotate(bodies.localCenter[i])
    }
    /// The center of mass, points.
    public func centerOfMass(of id: BodyID) -> Vec2 { bodies.position[Int(bodies.slot[checkedIndex(id)])] }
    public func rotation(of id: BodyID) -> Rot { bodies.rotation[Int(bodies.slot[checkedIndex(id)])] }
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
        let q = Rot(angle: angle)
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
        if g != .zero { gravityInUse = true }
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
        if force != .zero { bodies.materialiseForce() }
        if torqueA != 0 || torqueB != 0 { bodies.materialiseTorque() }
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
            bodies.materialiseLinearDamping()
            updateAllDampingFactors()
        }
        if angular != 0 { bodies.materialiseAngularDamping() }
    }

    var dampingStep: (h: Float, n: Int) {
        (dampingH > 0 ? dampingH : Float(1.0 / 240.0), dampingSubsteps > 0 ? dampingSubsteps : 4)
    }

    /// `updateDampingFactors(slot:id:)` for every body, when the substep length or count changes: over raw
    /// columns, and reusing the terms of the previous body when its damping is the same (the common case), so
    /// ten thousand bodies cost well under a millisecond on the first step.
    func updateAllDampingFactors() {
        let (h, n) = dampingStep
        let index = bodies.bodyIndex.base
        if let linearFactor = bodies.linearDampingFactor.base, let decay = bodies.freeDecay.base,
           let gain = bodies.freeGain.base, let positionGain = bodies.freePositionGain.base {
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
        if let angularFactor = bodies.angularDampingFactor.base {
            let angular = bodies.angularDamping
            var last = Float.nan, da: Float = 1
            for s in 0..<bodies.count {
                let a = angular[Int(index[s])]
                if a != last { last = a; da = _exp(-a * h) }
                angularFactor[s] = da
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
        if cls < 0 || Int(cls) >= classCount {
            throw DynamicsError("collision class \(cls) is not in the collision matrix (0..<\(classCount))")
        }
        let i = try validIndex(id, "setCollisionClass")
        if bodies.collisionClass[i] == UInt16(cls) { return }
        wakeBody(i)
        if bodies.type(i) == .static { wakeIslandsTouching(body: Int32(i)) }
        bodies.collisionClass[i] = UInt16(cls)
        pairCacheVersion &+= 1
    }

    /// Wakes the body's island (and the body) if it sleeps.
    public func wake(_ id: BodyID) throws { wakeBody(try validIndex(id, "wake")) }

    /// Wakes every sleeping island.
    public func wakeAll() {
        for k in 0..<islands.count where islands[k].inUse { wakeIsland(Int32(k)) }
    }
}
