import DynamicsSIMD

/// A persistent contact between two shapes of two bodies; keyed by (bodies, shapes) so the contact list can be
/// kept sorted and merged with the new pairs each step, which gives warm starting and began/ended events without
/// a hash map.
struct Contact {
    // In this order the record is 112 bytes: the flag and the reach sit in the manifold's tail, after its one-byte
    // count.
    var bodyPair: UInt64      // bodyA << 32 | bodyB (id indices, A < B)
    var manifold: Manifold
    var touching: Bool
    /// The reach the manifold was computed with, in steps of `World.reachUnit` beyond the speculative distance
    /// (`World.noReach`: a reach too long to step), so that the next step may reuse it while neither body leaves
    /// its reference and the pair needs no longer reach (World+Narrowphase.swift).
    var reach: UInt8
    var shapePair: UInt32      // local shape A << 16 | local shape B
    var friction: Float
    var restitution: Float

    @inline(__always) init(bodyPair: UInt64, shapePair: UInt32, manifold: Manifold, friction: Float, restitution: Float,
                           touching: Bool, reach: UInt8 = World.noReach) {
        self.bodyPair = bodyPair; self.manifold = manifold; self.touching = touching; self.reach = reach
        self.shapePair = shapePair; self.friction = friction; self.restitution = restitution
    }

    /// A record that stands for no contact, where a list is grown before its records are written.
    static let unused = Contact(bodyPair: 0, shapePair: 0, manifold: Manifold(), friction: 0, restitution: 0, touching: false)

    @inline(__always) var bodyA: Int32 { Int32(truncatingIfNeeded: bodyPair >> 32) }
    @inline(__always) var bodyB: Int32 { Int32(truncatingIfNeeded: bodyPair & 0xFFFF_FFFF) }
    @inline(__always) static func < (a: Contact, b: Contact) -> Bool {
        a.bodyPair != b.bodyPair ? a.bodyPair < b.bodyPair : a.shapePair < b.shapePair
    }
}

/// The awake contacts, sorted by body pair and shape pair, last step's list that the narrowphase merges them
/// with, and the reference poses whose manifolds the narrowphase may reuse.
struct ContactStore {
    var contacts: [Contact] = []
    /// The narrowphase's per-chunk lists when it runs on several workers (World+Narrowphase.swift).
    var chunks: NarrowphaseChunks?

    /// The chunks' lists, allocated on first use.
    mutating func narrowphaseChunks() -> NarrowphaseChunks {
        if let chunks { return chunks }
        let made = NarrowphaseChunks()
        chunks = made
        return made
    }
    /// Last step's contacts, as the narrowphase reads them while it rebuilds `contacts` into this buffer's twin: the
    /// two swap every step (scratch kept between steps).
    var history: [Contact] = []
    /// The narrowphase's reference pose of each awake body, (x, y, cos, sin) by slot, and whether the body took its
    /// present pose as reference this step (1) or kept it (0); kept in calm scenes only, as the broadphase's fat
    /// boxes are (elsewhere a body's reference is its present pose). Manifolds are computed at the reference poses and
    /// reused while neither body of a pair leaves its reference by more than `manifoldTolerance` (see
    /// World+Narrowphase.swift). `referenceState`: the versions and awake count the references were kept under;
    /// when any changes, every body takes its pose as reference again and no manifold is reused.
    var referencePose = Column<SIMD4<Float>>()
    var referenceMoved = Column<UInt8>()
    var referenceState: (slots: UInt64, pairs: UInt64, awake: Int, valid: Bool) = (0, 0, 0, false)
    /// Tests turn reuse off to check that a reused manifold is the one computing it again gives, to the bit.
    var manifoldReuse = true
    /// How many of the last narrowphase's manifolds were last step's, reused.
    var reusedManifoldCount = 0
    var needsSort = false

    init() {}
}

extension World {
    /// Removes every active contact of a body, reporting touching ones as ended.
    func removeContacts(ofBody b: Int32) {
        var kept = 0
        for k in 0..<contactStore.contacts.count {
            let c = contactStore.contacts[k]
            if c.bodyA == b || c.bodyB == b {
                if c.touching { pendingEnded.append(endedEvent(c)) }
                continue
            }
            contactStore.contacts[kept] = c; kept += 1
        }
        contactStore.contacts.removeLast(contactStore.contacts.count - kept)
    }

    func endedEvent(_ c: Contact) -> ContactEndedEvent {
        let a = Int(c.bodyA), b = Int(c.bodyB)
        return ContactEndedEvent(bodyA: BodyID(index: c.bodyA, generation: bodies.generation[a]),
                                 bodyB: BodyID(index: c.bodyB, generation: bodies.generation[b]),
                                 shapeA: Int(c.shapePair >> 16), shapeB: Int(c.shapePair & 0xFFFF))
    }
}
