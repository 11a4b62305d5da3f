// Uniform-grid broadphase.
//
// While bodies move, awake bodies are binned afresh every step: each emits (cell, slot) entries for the cells its
// swept box covers, the entries are placed by cell (or radix-sorted), and every run of equal cells is tested
// pairwise. Once a scene is calm the cells of one such search, made with fat boxes, are kept with its candidate
// pairs, and later steps search only for the bodies that left their fat boxes (`FatGrid`, World+BroadPhase.swift);
// items falling together are calm in their common frame, and their fat boxes are kept in that frame.
// Static and sleeping bodies live in a persistent hash grid that changes only when a body is added, removed, falls
// asleep or wakes. A pair of boxes
// can share several cells; it is reported only from the cell that holds the corner (max of the two lower corners),
// which every box of the pair covers, so no de-duplication pass is needed. Cell coordinates wrap at 2^16, which
// aliases far-away cells (harmless: the box test rejects them) and keeps keys 32-bit.
//
// The output is the list of body pairs (id index pairs, lower id first) sorted, so nothing depends on hash order.

struct GridCoord {
    var x0: Int32, y0: Int32, x1: Int32, y1: Int32
    @inline(__always) var cellCount: Int { Int(x1 - x0 + 1) * Int(y1 - y0 + 1) }
}

@inline(__always) func cellKey(_ x: Int32, _ y: Int32) -> UInt32 {
    (UInt32(truncatingIfNeeded: y) & 0xFFFF) << 16 | (UInt32(truncatingIfNeeded: x) & 0xFFFF)
}

/// The incremental broadphase's record of its last full search (World+BroadPhase.swift): the awake bodies' fat
/// boxes placed by cell over the rectangle of cells in use, what the search assumed of the world, and the bodies
/// given fresh fat boxes since, whose cell entries are stale.
struct FatGrid {
    /// Whether the candidates and fat boxes hold for the world as it was when the search ran (`slotVersion`,
    /// `version`, the slot counts and the cell size still those of the world) and can be kept up incrementally.
    var valid = false
    /// How many steps in a row have been calm (few bodies fast).
    var calmSteps = 0
    /// How many steps in a row have been calm in the awake bodies' common frame: few bodies move against the others
    /// (a formation falling together), however fast they all move.
    var calmFrameSteps = 0
    /// Whether the fat boxes are kept in the awake bodies' common frame rather than in the world: then they hold the
    /// boxes swept in that frame, as placed at the full search, and a later step compares each body's box moved back
    /// by how far the awake bodies' mean position has gone since (`anchor`, that mean at the search). Such a grid holds
    /// no pairs with static and sleeping bodies (they do not move with the frame); every step searches those.
    var moving = false
    var anchor = SIMD2<Double>.zero
    var slotVersion: UInt64 = 0, version: UInt64 = 0
    var awakeCount = 0, count = 0
    var cellSize: Float = 0
    /// The rectangle of cells: its corner (cell coordinates modulo 2¹⁶) and size.
    var x0: UInt16 = 0, y0: UInt16 = 0, width = 0, height = 0
    /// Per cell of the rectangle, row-major: where its run of slots in `slots` ends (the run starts where the
    /// previous cell's ends).
    var ends: [Int32] = []
    var slots: [UInt32] = []
    /// Awake slots whose fat box covers too many cells to be placed in them.
    var oversize: [Int32] = []
    /// Slots given fresh fat boxes since the search, and the same as a flag per slot.
    var moved: [Int32] = []
    var movedFlag: [Bool] = []

    init() {}
}

/// A hash grid of static and sleeping bodies: open addressing from cell key to a singly linked list of entries.
struct StaticGrid {
    var keys: [UInt32] = []
    var heads: [Int32] = []       // -1 = empty slot
    var used = 0
    var entryBody: [Int32] = []
    var entryNext: [Int32] = []
    var freeEntry: Int32 = -1
    /// Bodies whose box covers too many cells: tested against every awake body instead.
    var oversize: [Int32] = []

    init() { rehash(capacity: 16) }

    mutating func removeAll() {
        self = StaticGrid()
    }

    @inline(__always) static func hash(_ k: UInt32) -> Int {
        var h = k &* 0x9E37_79B1
        h ^= h >> 15
        return Int(h)
    }

    mutating func rehash(capacity: Int) {
        let oldKeys = keys, oldHeads = heads
        keys = [UInt32](repeating: 0, count: capacity)
        heads = [Int32](repeating: -1, count: capacity)
        used = 0
        for i in 0..<oldKeys.count where oldHeads[i] >= 0 {
            let s = findSlot(oldKeys[i])
            keys[s] = oldKeys[i]; heads[s] = oldHeads[i]; used += 1
        }
    }

    /// The slot for `key`: the one holding it or the empty one where it would go.
    @inline(__always) func findSlot(_ key: UInt32) -> Int {
        let mask = keys.count - 1
        var i = StaticGrid.hash(key) & mask
        while heads[i] >= 0 && keys[i] != key { i = (i + 1) & mask }
        return i
    }

    @inline(__always) func head(_ key: UInt32) -> Int32 {
        let s = findSlot(key)
        return heads[s]
    }

    mutating func insert(body: Int32, key: UInt32) {
        if (used + 1) * 2 > keys.count { rehash(capacity: keys.count * 2) }
        let s = findSlot(key)
        let e: Int32
        if freeEntry >= 0 {
            e = freeEntry; freeEntry = entryNext[Int(e)]
            entryBody[Int(e)] = body
        } else {
            e = Int32(entryBody.count); entryBody.append(body); entryNext.append(-1)
        }
        if heads[s] < 0 { keys[s] = key; used += 1; entryNext[Int(e)] = -1 } else { entryNext[Int(e)] = heads[s] }
        heads[s] = e
    }

    mutating func remove(body: Int32, key: UInt32) {
        let s = findSlot(key)
        var prev: Int32 = -1
        var e = heads[s]
        while e >= 0 {
            if entryBody[Int(e)] == body {
                let next = entryNext[Int(e)]
                if prev < 0 { heads[s] = next } else { entryNext[Int(prev)] = next }
                entryNext[Int(e)] = freeEntry; freeEntry = e
                if heads[s] < 0 { deleteSlot(s) }
                return
            }
            prev = e; e = entryNext[Int(e)]
        }
        assertionFailure("static grid lost body \(body)")
    }

    /// Backward-shift deletion keeps probe chains intact without tombstones.
    mutating func deleteSlot(_ start: Int) {
        let mask = keys.count - 1
        var hole = start
        var i = (start + 1) & mask
        while heads[i] >= 0 {
            let ideal = StaticGrid.hash(keys[i]) & mask
            // Move `i` into the hole if its ideal slot is not between the hole (exclusive) and i (inclusive).
            let between = hole <= i ? (ideal > hole && ideal <= i) : (ideal > hole || ideal <= i)
            if !between {
                keys[hole] = keys[i]; heads[hole] = heads[i]; heads[i] = -1
                hole = i
            }
            i = (i + 1) & mask
        }
        heads[hole] = -1
        used -= 1
    }
}

/// The broadphase's state and scratch (reused; the steady step allocates nothing): the grids, the pairs of this
/// step and how far each can close, the kept candidates and the awake bodies' fat boxes.
struct BroadPhaseState {
    var cellSize: Float = 0
    var staticGrid = StaticGrid()
    var cellEntries: [UInt64] = []
    var pairs: [UInt64] = []
    /// The pairs each block of cells found when the cells are searched on the workers (`searchGrid`), joined in block
    /// order afterwards; kept with their capacity.
    var blockPairs: [[UInt64]] = []
    /// The same for the candidates' filter (`filterCandidates`): each block's reaches, beside its pairs.
    var blockReaches: [[PairReach]] = []
    var sortScratch: [UInt64] = []
    var sortCounts: [Int] = []
    /// The counting sort's bucket counts (cells in use, or body ids).
    var bucketCounts: [Int32] = []
    /// The grid placement's counts per cell for each block of slots, when the workers place the entries.
    var placeCounts: [Int32] = []
    var awakeOversize: [Int32] = []
    /// The broadphase's kept candidates (World+BroadPhase.swift): each awake body's fat box, by slot (its boxes
    /// swept in the awake bodies' common frame and in the world, grown by a margin), the candidate pairs, sorted
    /// (every pair whose fat boxes overlap), the cells of the last full search and the bodies given new fat boxes
    /// since.
    var fatBoxes = Column<AABB>()
    var candidates: [UInt64] = []
    var freshCandidates: [UInt64] = []
    /// The reaches of a moving grid's pairs with static and sleeping bodies, before they are merged into `pairReach`.
    var staticReaches: [PairReach] = []
    /// Per pair of `pairs`, how far it can close this step (`World.reach`), for the narrowphase.
    var pairReach: [PairReach] = []
    var fatGrid = FatGrid()
    /// Bumped by whatever changes which pairs the candidates must hold besides the bodies' motion: the static grid
    /// (a body binned or unbinned), the collision classes and matrix, the settings. (Slots moving, bodies created or
    /// removed, masses set and bodies placed by hand bump `bodies.slotVersion`.)
    var pairCacheVersion: UInt64 = 0
    /// False: every step searches the grid in full (what the incremental broadphase is tested against).
    var incremental = true
    /// How many steps have searched the grid in full (the others kept up the candidates of an earlier search).
    var fullSearchCount = 0

    init() {}
}

/// How far a pair of bodies can close this step (`World.reach`): the speculative distance and its spin part.
struct PairReach {
    var spin: Float
    var speculativeReach: Float
}
