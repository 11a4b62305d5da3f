/// Item → tag, as an open-addressing table of tags alone (4 bytes a bucket, at most four fifths full): an item's
/// identity is read from its record, which the table's user passes in. A dictionary would hold the identity a
/// second time, at 20 bytes an item. Linear probing from a multiplicative hash of the object's address, scaled to
/// any table size (no power of two needed, so the table is sized to its items), with backward-shift removal, so
/// there are no tombstones. Lookups only: nothing iterates the table, so its order (which follows addresses) never
/// shows.
struct TagMap {
    private var buckets: [Int32] = []
    private(set) var count = 0

    var capacity: Int { buckets.count * 4 / 5 }

    @inline(__always) private static func key(_ records: [ItemRecord?], _ tag: Int32) -> ObjectIdentifier {
        ObjectIdentifier(records[Int(tag)]!.item)
    }

    /// The bucket a probe for `id` starts at: 32 bits of the address's product with 2⁶⁴/φ, scaled to the size.
    @inline(__always) private func home(_ id: ObjectIdentifier) -> Int {
        let mixed = (UInt64(UInt(bitPattern: id)) &* 0x9E37_79B9_7F4A_7C15) >> 32
        return Int((mixed * UInt64(buckets.count)) >> 32)
    }

    @inline(__always) private func next(_ b: Int) -> Int { b + 1 == buckets.count ? 0 : b + 1 }

    /// How far bucket `b` lies past bucket `from`, going forward around the table.
    @inline(__always) private func distance(from: Int, to b: Int) -> Int { b >= from ? b - from : b + buckets.count - from }

    /// The tag of the item with this identity, if it has one.
    func tag(_ id: ObjectIdentifier, _ records: [ItemRecord?]) -> Int? {
        guard count > 0 else { return nil }
        var b = home(id)
        while true {
            let t = buckets[b]
            if t < 0 { return nil }
            if Self.key(records, t) == id { return Int(t) }
            b = next(b)
        }
    }

    /// Adds an item that has no tag yet; its record must be in `records` at `tag`.
    mutating func insert(_ id: ObjectIdentifier, tag: Int, _ records: [ItemRecord?]) {
        if count + 1 > capacity { rehash(to: Swift.max(count + 1, 2 * count), records) }
        var b = home(id)
        while buckets[b] >= 0 { b = next(b) }
        buckets[b] = Int32(tag)
        count += 1
    }

    /// Removes the item with this identity and tag (the records of the others must be in `records`).
    mutating func remove(_ id: ObjectIdentifier, tag: Int, _ records: [ItemRecord?]) {
        guard count > 0 else { return }
        var b = home(id)
        while buckets[b] != Int32(tag) {
            if buckets[b] < 0 { return }
            b = next(b)
        }
        // Backward shift: move later entries of the run into the hole when their home allows it.
        var hole = b
        var later = next(b)
        while buckets[later] >= 0 {
            let h = home(Self.key(records, buckets[later]))
            // The entry may move back to the hole unless its home lies in (hole, later], going forward.
            if distance(from: h, to: hole) < distance(from: h, to: later) {
                buckets[hole] = buckets[later]
                hole = later
            }
            later = next(later)
        }
        buckets[hole] = -1
        count -= 1
    }

    /// Room for `n` items without growing.
    mutating func reserveCapacity(_ n: Int, _ records: [ItemRecord?]) {
        if n > capacity { rehash(to: n, records) }
    }

    private mutating func rehash(to n: Int, _ records: [ItemRecord?]) {
        let size = Swift.max(8, (n * 5 + 3) / 4 + 1)
        let old = buckets
        buckets = Array(repeating: -1, count: size)
        for t in old where t >= 0 {
            var b = home(Self.key(records, t))
            while buckets[b] >= 0 { b = next(b) }
            buckets[b] = t
        }
    }
}
