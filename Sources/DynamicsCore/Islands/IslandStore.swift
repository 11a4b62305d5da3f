import DynamicsSIMD

/// A sleeping island: its bodies sit outside the awake range and its contacts wait here, untouched, until
/// something wakes it.
struct SleepingIsland {
    var bodies: [Int32] = []
    var contacts: [Contact] = []
    var inUse = false
}

/// The sleeping islands, and the scratch of the union-find that groups awake bodies into islands.
struct IslandStore {
    var sleeping: [SleepingIsland] = []
    var freeIndices: [Int32] = []
    var wakeList: [Int32] = []
    var unionParent: [Int32] = []
    /// Whether `unionParent` holds the islands of the awake bodies as their joints alone join them (no contact was
    /// awake), for the slots, awake joints and awake bodies as they were: `bodies.slotVersion`,
    /// `JointStore.awakeVersion` and the awake count then. A joint grid or a chain that swings without touching
    /// anything keeps its islands from step to step.
    var jointIslands: (valid: Bool, slots: UInt64, joints: UInt64, count: Int) = (false, 0, 0, 0)
    /// Each awake body's position and rotation (by slot) before the step's substeps, and whether this step recorded
    /// them (`integratePositions`, in the step's first substep): the rest test judges a body by how far it moved over
    /// the step as well. The velocity a body ends a step with is not always one it moves by: an item jammed between
    /// its neighbors can end every step with one that the next step's solve takes back before the move (the relax
    /// pass, after the move, leaves it).
    var stepStartPosition: [Vec2] = []
    var stepStartRotation: [Rotation] = []
    var stepStartRecorded = false
    /// `bodies.slotVersion` when they were recorded: a body woken or put to sleep since (a swap of slots) leaves them
    /// unused for that step.
    var stepStartSlots: UInt64 = 0
    /// Scratch of `putRestingIslandsToSleep`: per root slot, whether every member of its island has rested long enough.
    var rootReady: [Bool] = []
    /// Scratch of `putRestingIslandsToSleep`: per root slot, its index in `islandRoots` (−1 between calls).
    var rootIndex: [Int32] = []
    var roots: [(root: Int32, start: Int, count: Int)] = []
    var members: [Int32] = []
    /// The islands of `unionParent` while the joints alone make them (`jointIslands`): their awake slots grouped by
    /// island, and per island its root and its range of them (`World.groupSlotsByIsland`); made for the versions in
    /// `jointGroupsOf`. The rest test's question, whether some island has every member at rest, then stops at each
    /// island's first member still moving, instead of passing over every awake body three times (a swinging joint
    /// grid asks it every step).
    var jointGroupSlots: [Int32] = []
    var jointGroups: [(root: Int32, start: Int, count: Int)] = []
    var jointGroupsOf: (slots: UInt64, joints: UInt64, count: Int)? = nil

    init() {}

    /// Grows the union-find's per-slot tables to `n` awake bodies: at the start of a step, with the step's other
    /// per-body tables, so that the rest test does not allocate them the first time it runs, steps later in a scene
    /// already steady.
    mutating func reserveSlots(_ n: Int) {
        if unionParent.count < n { unionParent.append(contentsOf: repeatElement(0, count: n - unionParent.count)) }
        if rootReady.count < n { rootReady.append(contentsOf: repeatElement(false, count: n - rootReady.count)) }
    }
}
