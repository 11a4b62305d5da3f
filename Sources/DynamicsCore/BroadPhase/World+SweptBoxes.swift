import DynamicsSIMD

// The awake bodies' tight and swept boxes.
extension World {
    /// The tight box of a body's shapes at its current transform.
    @inline(__always) func bodyBox(id i: Int, slot s: Int) -> AABB {
        shapeStore.records.withUnsafeBufferPointer { sh in
            shapeStore.polygonVertices.withUnsafeBufferPointer { pv in
                bodyBox(id: i, slot: s, shapes: sh.baseAddress!, vertices: pv.baseAddress)
            }
        }
    }

    /// `bodyBox(id:slot:)` over the shape and vertex tables' storage (a loop over many bodies takes them once).
    @inline(__always) func bodyBox(id i: Int, slot s: Int, shapes sh: UnsafePointer<ShapeRecord>,
                                   vertices pv: UnsafePointer<Vec2>?) -> AABB {
        World.tightBox(position: bodies.position[s], rotation: bodies.rotation[s], shapes: sh + Int(bodies.shapeStart[i]),
                       count: Int(bodies.shapeCount[i]), vertices: pv)
    }

    /// The tight box of the `count` shapes at `shapes` placed at (p, q).
    @inline(__always) static func tightBox(position p: Vec2, rotation q: Rotation, shapes sh: UnsafePointer<ShapeRecord>,
                                           count n: Int, vertices pv: UnsafePointer<Vec2>?) -> AABB {
        var lo = Vec2(repeating: .greatestFiniteMagnitude), hi = Vec2(repeating: -.greatestFiniteMagnitude)
        for k in 0..<n {
            let shape = sh[k]
            switch shape.kind {
            case .circle:
                let c = p + q.rotate(shape.p0)
                lo = minimum(lo, c - shape.radius); hi = maximum(hi, c + shape.radius)
            case .segment:
                let a = p + q.rotate(shape.p0), b = p + q.rotate(shape.p1)
                lo = minimum(lo, minimum(a, b)); hi = maximum(hi, maximum(a, b))
            case .polygon:
                let vs = Int(shape.vertexStart)
                for v in vs..<(vs + Int(shape.vertexCount)) {
                    let w = p + q.rotate(pv![v])
                    lo = minimum(lo, w); hi = maximum(hi, w)
                }
            }
        }
        return AABB(lower: lo, upper: hi)
    }

    /// The awake bodies' tight boxes (into `tight`) and their boxes swept in the frame of `sweep.shift` (into the
    /// box column), by slot; a body whose class collides with nothing gets an empty swept box. Returns how many of
    /// the others are fast: their speed squared at least `slowSpeed2`, and how many are fast in the frame: their
    /// displacement against it squared at least `slowShift2`. (A loop over local buffers: the tables are read once.)
    /// Body by body, so in blocks of bodies on the workers.
    func sweepBoxes(n: Int, tight: UnsafeMutablePointer<AABB>, sweep: SweepTerms, slowSpeed2: Float,
                    slowShift2: Float) -> (fast: Int, fastInFrame: Int) {
        return bodies.withColumns { columns in
            let bodyIndex = columns.bodyIndex, pos = columns.position, rot = columns.rotation
            let box = columns.box
            let dt2 = sweep.dt * sweep.dt
            // Both counts in one sum: the frame's in the upper half.
            let counts = bodies.collisionClass.withUnsafeBufferPointer { classOf in
            collisionFilter.classActive.withUnsafeBufferPointer { active in
            bodies.shapeStart.withUnsafeBufferPointer { shapeStart in
            bodies.shapeCount.withUnsafeBufferPointer { shapeCount in
            shapeStore.records.withUnsafeBufferPointer { sh in
            shapeStore.polygonVertices.withUnsafeBufferPointer { pv in
                sumOverBlocks(count: n, minimumBlock: workers.sweepBlock, parallelMinimum: workers.parallelSweep) { range in
                    var fast = 0
                    for s in range {
                        let i = Int(bodyIndex[s])
                        if !active[Int(classOf[i])] {
                            box[s] = AABB(lower: Vec2(1, 1), upper: Vec2(-1, -1))
                            continue
                        }
                        let tightBox = World.tightBox(position: pos[s], rotation: rot[s], shapes: sh.baseAddress! + Int(shapeStart[i]),
                                                      count: Int(shapeCount[i]), vertices: pv.baseAddress)
                        tight[s] = tightBox
                        box[s] = sweep.swept(tightBox, slot: s, shift: sweep.shift)
                        if lengthSquared(sweep.vel[s]) >= slowSpeed2 { fast += 1 }
                        let d = (sweep.dt * sweep.vel[s] + dt2 * sweep.grav[s]) - sweep.shift
                        if lengthSquared(d) >= slowShift2 { fast += 1 << 32 }
                    }
                    return fast
                }
            }
            }
            }
            }
            }
            }
            return (counts & 0xFFFF_FFFF, counts >> 32)
        }
    }
}
