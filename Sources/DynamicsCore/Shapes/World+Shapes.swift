import DynamicsSIMD

extension World {
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

    /// Stores the shapes, computes mass, inertia and center of mass. Shapes are kept relative to the COM.
    func setShapesUnchecked(id i: Int, slot s: Int, shapes defs: [ShapeDefinition]) {
        if bodies.shapeCount[i] > 0 { shapeStore.deadCount += Int(bodies.shapeCount[i]) }
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
        bodies.shapeStart[i] = Int32(shapeStore.records.count)
        bodies.shapeCount[i] = UInt16(defs.count)
        for d in defs {
            switch d.geometry {
            case let .circle(c, r):
                shapeStore.records.append(ShapeRecord(kind: .circle, vertexStart: 0, vertexCount: 0, radius: r, p0: c - com, p1: .zero))
            case let .segment(a, b):
                shapeStore.records.append(ShapeRecord(kind: .segment, vertexStart: 0, vertexCount: 2, radius: 0, p0: a - com, p1: b - com))
            case let .polygon(p):
                let local = p.vertices.map { $0 - com }
                let start = storePolygon(local, p.normals)
                shapeStore.records.append(ShapeRecord(kind: .polygon, vertexStart: start,
                                          vertexCount: Int32(p.vertices.count), radius: 0, p0: .zero, p1: .zero))
            }
        }
        bodies.localCenter.set(i, com, ids: bodies.idCapacity)
        bodies.mass[i] = totalMass
        bodies.inertia[i] = inertia
        bodies.extent[s] = ext
        updateMass(id: i, slot: s)
        if shapeStore.deadCount > 1024 && shapeStore.deadCount > shapeStore.records.count / 2 { compactShapes() }
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
        if let last = shapeStore.lastPolygonRun, Int(last.count) == v.count,
           World.sameRun(shapeStore.polygonVertices, shapeStore.polygonNormals, at: Int(last.start), v, n) {
            return last.start
        }
        let start = Int32(shapeStore.polygonVertices.count)
        shapeStore.polygonVertices.append(contentsOf: v)
        shapeStore.polygonNormals.append(contentsOf: n)
        shapeStore.lastPolygonRun = (start, Int32(v.count))
        return start
    }

    func compactShapes() {
        var newShapes: [ShapeRecord] = []
        var newVertices: [Vec2] = [], newNormals: [Vec2] = []
        newShapes.reserveCapacity(shapeStore.records.count - shapeStore.deadCount)
        // Runs shared before stay shared: a run equal to the last one copied reuses it.
        var last: (old: Int32, new: Int32, count: Int32)?
        for i in 0..<bodies.idCapacity where bodies.slot[i] >= 0 {
            let start = Int(bodies.shapeStart[i]), n = Int(bodies.shapeCount[i])
            bodies.shapeStart[i] = Int32(newShapes.count)
            for k in start..<(start + n) {
                var sh = shapeStore.records[k]
                if sh.kind == .polygon {
                    let vs = Int(sh.vertexStart), vc = Int(sh.vertexCount)
                    if let l = last, l.old == sh.vertexStart, l.count == sh.vertexCount {
                        sh.vertexStart = l.new
                    } else {
                        let fresh = Int32(newVertices.count)
                        newVertices.append(contentsOf: shapeStore.polygonVertices[vs..<(vs + vc)])
                        newNormals.append(contentsOf: shapeStore.polygonNormals[vs..<(vs + vc)])
                        last = (sh.vertexStart, fresh, sh.vertexCount)
                        sh.vertexStart = fresh
                    }
                }
                newShapes.append(sh)
            }
        }
        shapeStore.records = newShapes; shapeStore.polygonVertices = newVertices; shapeStore.polygonNormals = newNormals
        shapeStore.lastPolygonRun = last.map { ($0.new, $0.count) }
        shapeStore.deadCount = 0
    }
}
