// Compiling the behavior tree into the world's tables.
//
// The tree is walked pre-order, depth first (top-level behaviors in the order added, each followed by its
// children). From that walk come: the set of items (bodies are created for newcomers and destroyed for items no
// behavior holds any more), each item's resolved properties (the last item behavior that set a property wins),
// summed gravity and continuous pushes (per-body columns in the engine, so the step needs no per-behavior loop),
// collision classes and the class matrix, boundaries, joints for attachments and snaps, and the list of
// `action` blocks. Values are sent to the world only when they changed, so recompiling does not wake resting items.

struct ResolvedProperties {
    var elasticity: CGFloat = 0.2
    var friction: CGFloat = 0.2
    var density: CGFloat = 1
    var resistance: CGFloat = 0.1
    var angularResistance: CGFloat = 0.1
    var allowsRotation = true
    var charge: CGFloat = 0
    var anchored = false
}

extension DynamicAnimator {
    func compileIfNeeded() {
        if needsCompile { compile() }
    }

    /// Turns the behavior tree into the world's bodies, shapes, materials, forces, collision classes, boundaries,
    /// joints and fields, sending only what changed, in nine stages (each a function below).
    func compile() {
        needsCompile = false
        departureCandidates.removeAll()
        departureCandidateIDs.removeAll()
        var order: [DynamicBehavior] = []
        for b in behaviors { b.appendPreOrder(to: &order) }
        let inputs = gatherCompileInputs(order)
        let (classOfItem, itemClassCount) = compileCollisionClasses(inputs)
        compileBodies(inputs)
        compileItemValues(inputs, classOfItem: classOfItem)
        compileBoundariesAndMemberships(inputs, itemClassCount: itemClassCount)
        compileJoints(inputs)
        applyOneShotVelocities(inputs)
        // The instantaneous pushes' `active = false` re-marked the tree dirty; nothing else changed.
        needsCompile = false
        compileFields(inputs)
        compiledActions = order.filter { $0.action != nil }
    }

    /// Stages 1 and 2 of `compile`: the items, in order of first appearance in the tree; then each item's resolved
    /// properties, gravity, pushes and collision memberships.
    func gatherCompileInputs(_ order: [DynamicBehavior]) -> CompileInputs {
        var itemOrder: [DynamicItem] = []
        var seen = Set<ObjectIdentifier>()
        for b in order {
            for item in b.memberItems where seen.insert(ObjectIdentifier(item)).inserted { itemOrder.append(item) }
        }

        var props: [ObjectIdentifier: ResolvedProperties] = [:]
        var gravity: [ObjectIdentifier: Vec2] = [:]
        var pushes: [ObjectIdentifier: [(force: Vec2, offset: UIOffset)]] = [:]
        var itemMemberships: [ObjectIdentifier: [Int]] = [:]
        var boundaryMemberships: [ObjectIdentifier: [Int]] = [:]
        var collisions: [CollisionBehavior] = []
        var instantaneous: [PushBehavior] = []
        for b in order {
            switch b {
            case let g as GravityBehavior:
                let a = g.acceleration
                for item in g.items { gravity[ObjectIdentifier(item), default: .zero] += a }
            case let p as PushBehavior:
                if p.mode == .continuous {
                    guard p.active else { break }
                    for item in p.items { pushes[ObjectIdentifier(item), default: []].append((p.engineVector, p.targetOffsetFromCenter(for: item))) }
                } else if p.active {
                    instantaneous.append(p)
                }
            case let d as DynamicItemBehavior:
                for item in d.items {
                    var r = props[ObjectIdentifier(item)] ?? ResolvedProperties()
                    for property in d.setProperties {
                        switch property {
                        case .elasticity: r.elasticity = d.elasticity
                        case .friction: r.friction = d.friction
                        case .density: r.density = d.density
                        case .resistance: r.resistance = d.resistance
                        case .angularResistance: r.angularResistance = d.angularResistance
                        case .allowsRotation: r.allowsRotation = d.allowsRotation
                        case .charge: r.charge = d.charge
                        case .anchored: r.anchored = d.isAnchored
                        }
                    }
                    props[ObjectIdentifier(item)] = r
                }
            case let c as CollisionBehavior:
                let k = collisions.count
                collisions.append(c)
                if c.collisionMode.contains(.items) {
                    for item in c.items {
                        itemMemberships[ObjectIdentifier(item), default: []].append(k)
                    }
                }
                if c.collisionMode.contains(.boundaries) { for item in c.items { boundaryMemberships[ObjectIdentifier(item), default: []].append(k) } }
            default: break
            }
        }
        return CompileInputs(order: order, itemOrder: itemOrder, seen: seen, props: props, gravity: gravity, pushes: pushes,
                             itemMemberships: itemMemberships, boundaryMemberships: boundaryMemberships,
                             collisions: collisions, instantaneous: instantaneous)
    }

    /// Stage 3 of `compile`: collision classes: 0 = none; then one class per distinct (item memberships, boundary
    /// memberships); then one boundary class per collision behavior. Returns each item's class and the number of item
    /// classes.
    func compileCollisionClasses(_ inputs: CompileInputs) -> (classOfItem: [ObjectIdentifier: Int32], itemClassCount: Int) {
        let itemOrder = inputs.itemOrder, itemMemberships = inputs.itemMemberships,
            boundaryMemberships = inputs.boundaryMemberships, collisions = inputs.collisions
        var signatures: [[Int]] = [[]]
        var signatureIndex: [[Int]: Int32] = [[]: 0]
        var classOfItem: [ObjectIdentifier: Int32] = [:]
        for item in itemOrder {
            let id = ObjectIdentifier(item)
            let itemList = itemMemberships[id] ?? [], boundaryList = boundaryMemberships[id] ?? []
            if itemList.isEmpty && boundaryList.isEmpty { classOfItem[id] = 0; continue }
            let signature = itemList + [-1] + boundaryList
            if let c = signatureIndex[signature] { classOfItem[id] = c } else {
                let c = Int32(signatures.count)
                signatures.append(signature); signatureIndex[signature] = c; classOfItem[id] = c
            }
        }
        let itemClassCount = signatures.count
        let classCount = itemClassCount + collisions.count
        var allSignatures = signatures
        for k in 0..<collisions.count { allSignatures.append([-2, k]) }
        if allSignatures != classSignatures {
            classSignatures = allSignatures
            func parts(_ signature: [Int]) -> (items: Set<Int>, boundaries: Set<Int>) {
                guard let split = signature.firstIndex(of: -1) else { return ([], []) }
                return (Set(signature[..<split]), Set(signature[(split + 1)...]))
            }
            world.setCollisionMatrix(classCount: classCount) { a, b in
                if a < itemClassCount && b < itemClassCount {
                    return !parts(signatures[a]).items.isDisjoint(with: parts(signatures[b]).items)
                }
                if a < itemClassCount && b >= itemClassCount { return parts(signatures[a]).boundaries.contains(b - itemClassCount) }
                return false
            }
        }
        return (classOfItem, itemClassCount)
    }

    /// Stage 4 of `compile`: bodies: destroy those of items no behavior holds; create newcomers.
    func compileBodies(_ inputs: CompileInputs) {
        let itemOrder = inputs.itemOrder, seen = inputs.seen, props = inputs.props, collisions = inputs.collisions
        removedCollisionLists.removeAll()
        leftCollisionLists.removeAll()
        for tag in 0..<records.count {
            guard let r = records[tag], !seen.contains(ObjectIdentifier(r.item)) else { continue }
            destroyRecord(tag)
        }
        // Newcomers are sized for at once (one shape each), so the engine's tables are
        // not left up to half empty by growing one body at a time.
        // The boundary walls built in stage 6 are counted in.
        var newcomers = itemOrder.reduce(0) { $0 + (tagOf.tag(ObjectIdentifier($1), records) == nil ? 1 : 0) }
        for c in collisions { newcomers += boundaryWallsToBuild(of: c) }
        // (Vertices are not reserved: equal outlines share one copy in the engine.)
        if newcomers > 0 {
            try? world.reserveCapacity(bodies: newcomers, shapes: newcomers, vertices: 0)
            // Exactly for a first batch; at least half again when adding to many (amortised growth).
            let newTags = Swift.max(0, newcomers - freeTags.count)
            if records.count + newTags > records.capacity {
                records.reserveCapacity(Swift.max(records.count + newTags, records.count + records.count / 2))
            }
            if tagOf.count + newcomers > tagOf.capacity {
                tagOf.reserveCapacity(Swift.max(tagOf.count + newcomers, tagOf.count + tagOf.count / 2), records)
            }
        }
        for item in itemOrder where tagOf.tag(ObjectIdentifier(item), records) == nil {
            let p = props[ObjectIdentifier(item)] ?? ResolvedProperties()
            createRecord(for: item, properties: p)
        }
    }

    /// Stage 5 of `compile`: per-item values, sent only when changed.
    func compileItemValues(_ inputs: CompileInputs, classOfItem: [ObjectIdentifier: Int32]) {
        let itemOrder = inputs.itemOrder, props = inputs.props, gravity = inputs.gravity, pushes = inputs.pushes
        for item in itemOrder {
            let id = ObjectIdentifier(item)
            guard let tag = tagOf.tag(id, records), let r = records[tag] else { continue }
            let p = props[id] ?? ResolvedProperties()
            // The world ignores a value equal to the one it holds, so sending every value wakes nothing.
            do {
                try world.setType(r.body, p.anchored ? .static : .dynamic)
                if Float(p.density) != r.density {
                    let (shapes, _) = try makeShapes(for: item, density: p.density,
                                                     accepted: (CGSize(width: CGFloat(r.width), height: CGFloat(r.height)), r.boundsType))
                    try world.setShapes(r.body, shapes)
                    records[tag]!.density = Float(p.density)
                }
                try world.setAllowsRotation(r.body, p.allowsRotation)
                try world.setMaterial(r.body, restitution: Float(p.elasticity), friction: Float(p.friction),
                                      linearDamping: Float(p.resistance), angularDamping: Float(p.angularResistance),
                                      charge: Float(p.charge))
                let g = gravity[id] ?? .zero
                try world.setGravity(r.body, g)
                var force = Vec2.zero, tA: Float = 0, tB: Float = 0
                let com = world.localCenter(of: r.body)
                for push in pushes[id] ?? [] {
                    let o = push.offset.vec - com
                    force += push.force
                    tA += cross(o, push.force)
                    tB += dot(o, push.force)
                }
                try world.setConstantForce(r.body, force: force, torqueA: tA, torqueB: tB)
                try world.setCollisionClass(r.body, classOfItem[id] ?? 0)
            } catch {
                ContractViolation.report("\(describe(item)): \(error)")
            }
        }
    }

    /// Stage 6 of `compile`: boundaries of collision behaviors still in the tree (those of behaviors that left are
    /// dropped), and each item's collision behaviors, as lists shared by the items the same behaviors hold.
    func compileBoundariesAndMemberships(_ inputs: CompileInputs, itemClassCount: Int) {
        let itemOrder = inputs.itemOrder, itemMemberships = inputs.itemMemberships, collisions = inputs.collisions
        for old in compiledCollisions where !collisions.contains(where: { $0 === old }) { removeBoundaryBodies(of: old) }
        for (k, c) in collisions.enumerated() { compileBoundaries(of: c, boundaryClass: Int32(itemClassCount + k)) }
        compiledCollisions = collisions
        // Each item's collision behaviors, as an index into lists shared by the items held by the same behaviors
        // (one list per distinct membership, not one array per item).
        previousCollisionLists = collisionLists
        var previousList: [Int32] = []
        previousList.reserveCapacity(records.count)
        for tag in 0..<records.count {
            previousList.append(records[tag]?.collisionList ?? -1)
            if records[tag] != nil { records[tag]!.collisionList = -1 }
        }
        var listOf: [[Int]: Int32] = [:]
        var lists: [[CollisionBehavior]] = []
        for item in itemOrder {
            let id = ObjectIdentifier(item)
            guard let ks = itemMemberships[id], let tag = tagOf.tag(id, records), records[tag] != nil else { continue }
            if let k = listOf[ks] { records[tag]!.collisionList = k; continue }
            let k = Int32(lists.count)
            lists.append(ks.map { collisions[$0] })
            listOf[ks] = k
            records[tag]!.collisionList = k
        }
        collisionLists = lists
        for tag in 0..<records.count where previousList[tag] >= 0 && (records[tag]?.collisionList ?? 0) < 0 {
            leftCollisionLists[tag] = previousList[tag]
        }
    }

    /// Stage 7 of `compile`: joints for attachments and snaps.
    func compileJoints(_ inputs: CompileInputs) {
        let order = inputs.order
        let jointOwners = order.filter { $0 is AttachmentBehavior || $0 is SnapBehavior }
        for old in compiledJointOwners where !jointOwners.contains(where: { $0 === old }) { destroyJoint(of: old) }
        for owner in jointOwners { compileJoint(owner) }
        compiledJointOwners = jointOwners
    }

    /// Stage 8 of `compile`: one-shot velocity changes: instantaneous pushes and item-behavior velocities set
    /// before joining.
    func applyOneShotVelocities(_ inputs: CompileInputs) {
        let order = inputs.order, instantaneous = inputs.instantaneous
        for p in instantaneous {
            let impulse = p.engineVector
            for item in p.items {
                guard let tag = tagOf.tag(ObjectIdentifier(item), records), let r = records[tag] else { continue }
                try? world.applyImpulse(r.body, impulse, atLocalOffset: p.targetOffsetFromCenter(for: item).vec)
            }
            p.active = false
        }
        for b in order {
            guard let d = b as? DynamicItemBehavior, !d.pending.isEmpty else { continue }
            for (id, v, w) in d.pending {
                guard let tag = tagOf.tag(id, records), let r = records[tag] else { continue }
                try? world.setVelocity(r.body, world.velocity(of: r.body) + v)
                try? world.setAngularVelocity(r.body, world.angularVelocity(of: r.body) + w)
            }
            d.pending.removeAll()
        }
        // `p.active = false` above re-marked the tree dirty; nothing else changed.
        needsCompile = false
    }

    /// Stage 9 of `compile`: fields, in tree order; re-sent only when a field, its items or the item set changed.
    func compileFields(_ inputs: CompileInputs) {
        let order = inputs.order
        let fieldBehaviors = order.compactMap { $0 as? FieldBehavior }
        let signature = fieldBehaviors.map { f in [Int(bitPattern: UInt(bitPattern: ObjectIdentifier(f))), f.version] + f.items.map { item in body(of: item).map { Int($0.index) << 32 | Int($0.generation) } ?? -1 } }
        if signature != compiledFieldSignature {
            compiledFieldSignature = signature
            var list: [(FieldDefinition, [BodyID])] = []
            for (k, f) in fieldBehaviors.enumerated() {
                list.append((f.definition(seed: UInt32(k) &* 2_654_435_761 &+ 12345), f.items.compactMap { body(of: $0) }))
            }
            do { try world.setFields(list) } catch { ContractViolation.report("\(error)") }
        }
    }

    // MARK: - Bodies

    /// The engine shapes of an item (or of a group's members), with UIKit's mass rule. `accepted` gives the size
    /// and bounds type the animator last accepted for an item already in it (a later change to the item's bounds
    /// counts only once `updateItem(usingCurrentState:)` accepts it).
    func makeShapes(for item: DynamicItem, density: CGFloat,
                    accepted: (size: CGSize, type: DynamicItemCollisionBoundsType)? = nil) throws -> ([ShapeDefinition], [GroupMember]) {
        func shape(of member: DynamicItem, center: Vec2, angle: Float) throws -> ShapeDefinition {
            let size = member === item ? accepted?.size ?? member.bounds.size : member.bounds.size
            let w = Float(size.width), h = Float(size.height)
            let mass = Float(density) * w * h / 10_000
            let q = Rotation(angle: angle)
            switch member === item ? accepted?.type ?? member.collisionBoundsType : member.collisionBoundsType {
            case .rectangle:
                return ShapeDefinition(.box(width: w, height: h, center: center, angle: angle), mass: mass)
            case .ellipse:
                if w == h { return ShapeDefinition(.circle(center: center, radius: w / 2), mass: mass) }
                let e = ConvexPolygon.ellipse(width: w, height: h)
                return ShapeDefinition(.polygon(try ConvexPolygon(vertices: e.vertices.map { center + q.rotate($0) })), mass: mass)
            case .path:
                let p = try member.collisionBoundingPath.convexPolygon()
                return ShapeDefinition(.polygon(try ConvexPolygon(vertices: p.vertices.map { center + q.rotate($0) })), mass: mass)
            }
        }
        if let group = item as? DynamicItemGroup {
            var shapes: [ShapeDefinition] = []
            var members: [GroupMember] = []
            let origin = group.center.vec
            for m in group.items {
                let offset = m.center.vec - origin
                let angle = Float(m.transform.rotationAngle)
                shapes.append(try shape(of: m, center: offset, angle: angle))
                members.append((m, offset, angle))
            }
            return (shapes, members)
        }
        return ([try shape(of: item, center: .zero, angle: 0)], [])
    }

    func createRecord(for item: DynamicItem, properties p: ResolvedProperties) {
        do {
            let (shapes, members) = try makeShapes(for: item, density: p.density)
            var def = BodyDefinition()
            def.type = p.anchored ? .static : .dynamic
            def.position = item.center.vec
            def.angle = item is DynamicItemGroup ? 0 : Float(item.transform.rotationAngle)
            def.shapes = shapes
            def.allowsRotation = p.allowsRotation
            def.restitution = Float(p.elasticity); def.friction = Float(p.friction)
            def.linearDamping = Float(p.resistance); def.angularDamping = Float(p.angularResistance)
            def.charge = Float(p.charge)
            let tag = freeTags.popLast() ?? records.count
            if tag == records.count { records.append(nil) }
            def.userTag = Int32(tag)
            let body = try world.createBody(def)
            let isGroup = item is DynamicItemGroup
            records[tag] = ItemRecord(item: item, body: body, size: item.bounds.size, boundsType: item.collisionBoundsType,
                                      density: p.density, isGroup: isGroup)
            if isGroup { groupMembers[tag] = members }
            tagOf.insert(ObjectIdentifier(item), tag: tag, records)
        } catch {
            ContractViolation.report("\(describe(item)): \(error)")
        }
    }

    func destroyRecord(_ tag: Int) {
        guard let r = records[tag] else { return }
        retired[r.body] = .item(r.item)
        try? world.destroyBody(r.body)
        if r.collisionList >= 0 { removedCollisionLists[ObjectIdentifier(r.item)] = r.collisionList }
        tagOf.remove(ObjectIdentifier(r.item), tag: tag, records)
        records[tag] = nil
        groupMembers[tag] = nil
        freeTags.append(tag)
    }

    // MARK: - Boundaries

    func removeBoundaryBodies(of c: CollisionBehavior) {
        for b in c.boundaryBodies {
            if let owner = boundaryOwner[b] { retired[b] = .boundary(owner.0, owner.1) }
            boundaryOwner[b] = nil
            try? world.destroyBody(b)
        }
        c.boundaryBodies = []
        c.compiledBoundaryVersion = -1
        c.compiledReferenceBounds = nil
    }

    /// How many wall bodies `compileBoundaries` will create for a collision behavior (0 when its walls are kept).
    func boundaryWallsToBuild(of c: CollisionBehavior) -> Int {
        let reference = boundaryReference(of: c)
        if boundariesAreCompiled(c, reference: reference) { return 0 }
        var walls = reference == nil ? 0 : 4
        for (_, path) in c.boundaries { for polyline in path.polylines() { walls += Swift.max(polyline.count - 1, 0) } }
        return walls
    }

    /// The rectangle a collision behavior turns into walls (the inset reference bounds), if it does.
    func boundaryReference(of c: CollisionBehavior) -> CGRect? {
        c.translatesReferenceBoundsIntoBoundary ? referenceBounds.map { $0.inset(by: c.referenceBoundsInsets) } : nil
    }

    /// Whether a collision behavior's wall bodies already match its boundaries and reference rectangle.
    func boundariesAreCompiled(_ c: CollisionBehavior, reference: CGRect?) -> Bool {
        c.compiledBoundaryVersion == c.boundaryVersion && c.compiledReferenceBounds == reference
    }

    func compileBoundaries(of c: CollisionBehavior, boundaryClass: Int32) {
        let reference = boundaryReference(of: c)
        if boundariesAreCompiled(c, reference: reference) {
            for b in c.boundaryBodies { try? world.setCollisionClass(b, boundaryClass) }
            return
        }
        removeBoundaryBodies(of: c)
        var lines: [(BoundaryIdentifier?, [CGPoint])] = []
        if let r = reference {
            // The reference bounds are solid outside: walls reaching outward, so a crowd pressing an item into an
            // edge cannot squeeze it out.
            let corners = [CGPoint(x: r.minX, y: r.minY), CGPoint(x: r.maxX, y: r.minY), CGPoint(x: r.maxX, y: r.maxY),
                           CGPoint(x: r.minX, y: r.maxY)]
            let center = Vec2(Float(r.midX), Float(r.midY))
            for k in 0..<4 {
                let a = corners[k].vec, b = corners[(k + 1) % 4].vec
                guard DynamicsCore.length(b - a) > 1e-3 else { continue }
                var def = BodyDefinition()
                def.type = .static
                guard let wall = try? ShapeGeometry.wall(from: a, to: b, outward: (a + b) / 2 - center) else { continue }
                def.shapes = [ShapeDefinition(wall, mass: 0)]
                def.restitution = Float(c.boundaryElasticity); def.friction = Float(c.boundaryFriction)
                def.linearDamping = 0; def.angularDamping = 0   // a wall does not move
                def.collisionClass = boundaryClass
                if let body = try? world.createBody(def) {
                    c.boundaryBodies.append(body)
                    boundaryOwner[body] = (c, nil)
                }
            }
        }
        for (id, path) in c.boundaries {
            for polyline in path.polylines() { lines.append((id, polyline)) }
        }
        for (id, polyline) in lines {
            for k in 0..<(polyline.count - 1) {
                let a = polyline[k].vec, b = polyline[k + 1].vec
                guard DynamicsCore.length(b - a) > 1e-3 else { continue }
                var def = BodyDefinition()
                def.type = .static
                def.shapes = [ShapeDefinition(.segment(a, b), mass: 0)]
                def.restitution = Float(c.boundaryElasticity); def.friction = Float(c.boundaryFriction)
                def.linearDamping = 0; def.angularDamping = 0   // a wall does not move
                def.collisionClass = boundaryClass
                if let body = try? world.createBody(def) {
                    c.boundaryBodies.append(body)
                    boundaryOwner[body] = (c, id)
                }
            }
        }
        c.compiledBoundaryVersion = c.boundaryVersion
        c.compiledReferenceBounds = reference
    }

    // MARK: - Joints

    func destroyJoint(of owner: DynamicBehavior) {
        if let a = owner as? AttachmentBehavior, let j = a.jointID { try? world.destroyJoint(j); a.jointID = nil; a.jointBodies = [] }
        if let s = owner as? SnapBehavior, let j = s.jointID { try? world.destroyJoint(j); s.jointID = nil }
    }

    func body(of item: DynamicItem) -> BodyID? {
        guard let tag = tagOf.tag(ObjectIdentifier(item), records) else { return nil }
        return records[tag]?.body
    }

    func compileJoint(_ owner: DynamicBehavior) {
        if let s = owner as? SnapBehavior {
            guard let body = body(of: s.item) else { return }
            if let j = s.jointID, world.isValid(j) {
                try? world.setWorldAnchor(j, s.snapPoint.vec)
                try? world.setJointParameters(j, length: 0, minLength: 0, maxLength: .infinity, hertz: s.springHertz,
                                              dampingRatio: s.springDampingRatio, maxFrictionTorque: 0)
                return
            }
            var def = JointDefinition(kind: .snap, bodyA: body, bodyB: nil)
            def.localAnchorB = s.snapPoint.vec
            def.hertz = s.springHertz
            def.dampingRatio = s.springDampingRatio
            s.jointID = try? world.createJoint(def)
            return
        }
        guard let a = owner as? AttachmentBehavior else { return }
        let bodies = a.items.compactMap { body(of: $0) }
        guard bodies.count == a.items.count else { return }
        let hertz = Float(a.frequency), zeta = Float(a.damping), len = Float(a.length)
        let rigid = hertz == 0
        let minLength: Float = a.kind == .limit ? 0 : (rigid ? len : 0)
        let maxLength: Float = a.kind == .limit ? len : (rigid ? len : .infinity)
        if let j = a.jointID, world.isValid(j), a.jointBodies == bodies {
            if a.attachedBehaviorType == .anchor { try? world.setWorldAnchor(j, a.anchorPoint.vec) }
            if a.kind == .distance || a.kind == .limit || a.kind == .pin {
                try? world.setJointParameters(j, length: len, minLength: minLength, maxLength: maxLength, hertz: hertz,
                                              dampingRatio: zeta, maxFrictionTorque: Float(a.frictionTorque) * 100)
            }
            // Other changes (range, kind-specific geometry) rebuild the joint below only when bodies change; a
            // range edit is applied by recreating.
            if a.compiledRange == a.attachmentRange { return }
            try? world.destroyJoint(j)
        } else if let j = a.jointID {
            try? world.destroyJoint(j)
        }
        // Anchors in each body's frame, from the bodies' current poses.
        func local(_ body: BodyID, worldPoint p: Vec2) -> Vec2 {
            world.rotation(of: body).inverseRotate(p - world.origin(of: body))
        }
        let kind: JointKind
        var def: JointDefinition
        switch a.kind {
        case .distance, .limit:
            kind = .distance
            def = JointDefinition(kind: kind, bodyA: bodies[0], bodyB: bodies.count > 1 ? bodies[1] : nil)
            def.localAnchorA = a.offsetA.vec
            def.localAnchorB = bodies.count > 1 ? a.offsetB.vec : a.anchorPoint.vec
            def.length = len; def.minLength = minLength; def.maxLength = maxLength
            def.hertz = hertz; def.dampingRatio = zeta
        case .fixed, .pin, .sliding:
            kind = a.kind == .fixed ? .weld : (a.kind == .pin ? .revolute : .prismatic)
            def = JointDefinition(kind: kind, bodyA: bodies[0], bodyB: bodies.count > 1 ? bodies[1] : nil)
            let anchor = a.anchorPoint.vec
            def.localAnchorA = local(bodies[0], worldPoint: anchor)
            def.localAnchorB = bodies.count > 1 ? local(bodies[1], worldPoint: anchor) : anchor
            if a.kind == .pin { def.maxFrictionTorque = Float(a.frictionTorque) * 100 }
            if a.kind == .sliding {
                let axis = normalized(a.axis.vec)
                def.localAxisA = world.rotation(of: bodies[0]).inverseRotate(axis)
            }
            if (a.kind == .pin || a.kind == .sliding) && !a.attachmentRange.isInfinite {
                def.enableLimit = true
                def.lowerLimit = Float(a.attachmentRange.minimum); def.upperLimit = Float(a.attachmentRange.maximum)
            }
        }
        if a.kind == .sliding && bodies.count == 1 {
            // An item sliding on a fixed line: the world is body A, with the axis in world coordinates.
            def = JointDefinition(kind: .prismatic, bodyA: bodies[0], bodyB: nil)
            def.localAnchorA = local(bodies[0], worldPoint: a.anchorPoint.vec)
            def.localAnchorB = a.anchorPoint.vec
            def.localAxisA = world.rotation(of: bodies[0]).inverseRotate(normalized(a.axis.vec))
            if !a.attachmentRange.isInfinite {
                def.enableLimit = true
                // Travel of the item relative to the line is the negative of the line's relative to the item.
                def.lowerLimit = -Float(a.attachmentRange.maximum); def.upperLimit = -Float(a.attachmentRange.minimum)
            }
        }
        do {
            a.jointID = try world.createJoint(def)
            a.jointBodies = bodies
            a.compiledRange = a.attachmentRange
        } catch {
            ContractViolation.report("\(describe(a)): \(error)")
        }
    }
}

/// What the behavior tree asks of the world, gathered in one walk of it (`gatherCompileInputs`) for the stages of
/// `compile` to read.
struct CompileInputs {
    /// The behaviors in pre-order.
    var order: [DynamicBehavior]
    /// The items, in order of first appearance, and the same as a set.
    var itemOrder: [DynamicItem]
    var seen: Set<ObjectIdentifier>
    var props: [ObjectIdentifier: ResolvedProperties]
    var gravity: [ObjectIdentifier: Vec2]
    var pushes: [ObjectIdentifier: [(force: Vec2, offset: UIOffset)]]
    /// Per item, the indices in `collisions` of the collision behaviors holding it for items and for boundaries.
    var itemMemberships: [ObjectIdentifier: [Int]]
    var boundaryMemberships: [ObjectIdentifier: [Int]]
    var collisions: [CollisionBehavior]
    var instantaneous: [PushBehavior]
}
