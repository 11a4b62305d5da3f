/// Union-find over a table of parent indices (a root is its own parent), shared by the islands and the restitution
/// guard. Roots are found with full path compression, and of two groups joined the smaller root stays root, so the
/// groups and their roots depend only on which pairs were joined, not on the order of the calls.
enum UnionFind {
    /// The root of `x`'s group; every index on the way is pointed at it.
    @inline(__always) static func root(_ parent: UnsafeMutablePointer<Int32>, _ x: Int32) -> Int32 {
        var r = x
        while parent[Int(r)] != r { r = parent[Int(r)] }
        var c = x
        while parent[Int(c)] != r { let next = parent[Int(c)]; parent[Int(c)] = r; c = next }
        return r
    }

    /// Joins the groups of `a` and `b`.
    @inline(__always) static func join(_ parent: UnsafeMutablePointer<Int32>, _ a: Int32, _ b: Int32) {
        let ra = root(parent, a), rb = root(parent, b)
        if ra < rb { parent[Int(rb)] = ra } else if rb < ra { parent[Int(ra)] = rb }
    }
}
