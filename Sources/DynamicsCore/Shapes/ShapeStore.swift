import DynamicsSIMD

/// A shape as stored: geometry relative to the body's center of mass, in the body's frame. 24 bytes: a polygon's
/// vertex run is kept in the place of a segment's end point.
struct ShapeRecord {
    enum Kind: UInt8 { case circle, polygon, segment }
    var kind: Kind
    var radius: Float          // circles
    var p0: Vec2               // circle center, or segment start
    /// Segment end; for a polygon, the bit patterns of `vertexStart` and `vertexCount` (never used as numbers).
    var p1: Vec2

    @inline(__always) init(kind: Kind, vertexStart: Int32, vertexCount: Int32, radius: Float, p0: Vec2, p1: Vec2) {
        self.kind = kind; self.radius = radius; self.p0 = p0
        self.p1 = kind == .polygon ? Vec2(Float(bitPattern: UInt32(bitPattern: vertexStart)),
                                          Float(bitPattern: UInt32(bitPattern: vertexCount))) : p1
    }

    /// Polygons: the first of the shape's vertices in `polygonVertices` / `polygonNormals`.
    var vertexStart: Int32 {
        @inline(__always) get { Int32(bitPattern: p1.x.bitPattern) }
        @inline(__always) set { p1.x = Float(bitPattern: UInt32(bitPattern: newValue)) }
    }

    /// Polygons: how many vertices.
    var vertexCount: Int32 {
        @inline(__always) get { Int32(bitPattern: p1.y.bitPattern) }
    }
}

/// Every body's shapes, as stored: each body's run of `ShapeRecord`s (see `BodyStore.shapeStart`) and the
/// polygons' vertices and edge normals, which equal polygons created one after another share.
struct ShapeStore {
    var records: [ShapeRecord] = []
    var polygonVertices: [Vec2] = []
    var polygonNormals: [Vec2] = []
    var deadCount = 0
    /// The last polygon run stored (`storePolygon`), which an equal polygon shares.
    var lastPolygonRun: (start: Int32, count: Int32)?

    init() {}
}
