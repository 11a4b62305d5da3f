import XCTest
@testable import DynamicsCore
import DynamicsSIMD

/// A world whose class-1 bodies collide with each other, with a static floor of class 1 along y from x0 to x1
/// (solid below).
func floorWorld(y: Float, from x0: Float, to x1: Float) throws -> World {
    let world = World()
    world.setCollisionMatrix(classCount: 2) { a, b in a == 1 && b == 1 }
    var floor = BodyDefinition(); floor.type = .static; floor.collisionClass = 1
    floor.shapes = [ShapeDefinition(try .wall(from: Vec2(x0, y), to: Vec2(x1, y), outward: Vec2(0, 1)), mass: 0)]
    try world.createBody(floor)
    return world
}
