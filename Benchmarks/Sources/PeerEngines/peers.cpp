// The peer engines on the Benchmarks/SCENES.md scenes. Each adapter builds the scene from the description it is given,
// with Benchmarks/SCENES.md's units, materials, sleeping and iteration counts, times every step, and reports the final state.
#include "dk_peers.h"
#include "dk_benchmark.h"

#include <box2d/box2d.h>
#include <chipmunk/chipmunk.h>

#include <chrono>
#include <cmath>
#include <vector>

namespace {

void pause(const dk_scene *scene) { if (scene->benchmark_state) dk_benchmark_pause(scene->benchmark_state); }
void resume(const dk_scene *scene) { if (scene->benchmark_state) dk_benchmark_resume(scene->benchmark_state); }

double elapsed_ms(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

// Benchmarks/SCENES.md field_swarm: radial gravity K / max(r, 50)² toward (1000, 1000) plus the vortex 0.1 · (−dy, dx),
// in points/s², at position (x, y) in points.
void swarm_acceleration(double x, double y, double *ax, double *ay) {
    const double dx = x - 1000, dy = y - 1000;
    const double r = std::sqrt(dx * dx + dy * dy);
    const double m = std::fmax(r, 50.0);
    const double a = 4e7 / (m * m);
    const double ux = r > 0 ? dx / r : 0, uy = r > 0 ? dy / r : 0;
    *ax = -a * ux + 0.1 * -dy;
    *ay = -a * uy + 0.1 * dx;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Box2D 2.4.1: metres (100 points = 1 m), y down as in the scene, 8 velocity and 3 position iterations,
// sleeping with Box2D's own rule (0.5 s below 0.01 m/s and 2°/s).

int dk_box2d_run(const dk_scene *scene, dk_result *result) {
    pause(scene);
    const float toM = 0.01f;
    b2World world(b2Vec2(0.0f, scene->gravity ? 10.0f : 0.0f));
    world.SetAllowSleeping(true);

    std::vector<b2Body *> bodies;
    bodies.reserve(scene->item_count);
    for (int i = 0; i < scene->item_count; ++i) {
        const double *it = scene->items + 3 * i;
        b2BodyDef def;
        def.type = b2_dynamicBody;
        def.position.Set(float(it[0]) * toM, float(it[1]) * toM);
        b2Body *body = world.CreateBody(&def);
        b2PolygonShape box;
        const float half = float(it[2]) * 0.5f * toM;
        box.SetAsBox(half, half);
        b2FixtureDef fd;
        fd.shape = &box;
        fd.density = 1.0f;        // kg/m²: a 100x100-point item has mass 1
        fd.friction = 0.2f;       // sqrt(0.2 · 0.2) = 0.2
        fd.restitution = 0.0f;
        if (!scene->collisions) fd.filter.maskBits = 0;
        body->CreateFixture(&fd);
        bodies.push_back(body);
    }
    b2BodyDef groundDef;
    b2Body *ground = world.CreateBody(&groundDef);
    for (int w = 0; w < scene->wall_count; ++w) {
        const double *wl = scene->walls + 6 * w;
        b2EdgeShape edge;
        edge.SetTwoSided(b2Vec2(float(wl[0]) * toM, float(wl[1]) * toM), b2Vec2(float(wl[2]) * toM, float(wl[3]) * toM));
        b2FixtureDef fd;
        fd.shape = &edge;
        fd.friction = 0.2f;
        fd.restitution = 0.0f;
        ground->CreateFixture(&fd);
    }
    struct LinkEnds { b2Body *a; b2Body *b; b2Vec2 anchor; };
    std::vector<LinkEnds> links;
    for (int l = 0; l < scene->link_count; ++l) {
        const double *lk = scene->links + 4 * l;
        b2Body *a = bodies[int(lk[0])];
        b2Body *b = lk[1] >= 0 ? bodies[int(lk[1])] : ground;
        const b2Vec2 anchorB = lk[1] >= 0 ? b->GetPosition() : b2Vec2(float(lk[2]) * toM, float(lk[3]) * toM);
        b2DistanceJointDef jd;
        jd.Initialize(a, b, a->GetPosition(), anchorB);
        jd.minLength = jd.length;
        jd.maxLength = jd.length;
        jd.stiffness = 0.0f;
        jd.damping = 0.0f;
        world.CreateJoint(&jd);
        links.push_back({a, lk[1] >= 0 ? b : nullptr, anchorB});
    }

    const float dt = float(scene->dt);
    resume(scene);
    for (int s = 0; s < scene->steps; ++s) {
        const auto t0 = std::chrono::steady_clock::now();
        if (scene->kind == 3) {
            for (b2Body *body : bodies) {
                const b2Vec2 p = body->GetPosition();
                double ax, ay;
                swarm_acceleration(p.x * 100.0, p.y * 100.0, &ax, &ay);
                const float m = body->GetMass();
                body->ApplyForceToCenter(b2Vec2(m * float(ax) * toM, m * float(ay) * toM), true);
            }
        }
        world.Step(dt, 8, 3);
        result->step_ms[s] = elapsed_ms(t0);
    }
    pause(scene);

    int awake = 0;
    for (int i = 0; i < scene->item_count; ++i) {
        const b2Vec2 p = bodies[i]->GetPosition();
        result->centers[2 * i] = p.x * 100.0;
        result->centers[2 * i + 1] = p.y * 100.0;
        if (bodies[i]->IsAwake()) ++awake;
    }
    for (size_t l = 0; l < links.size(); ++l) {
        const b2Vec2 a = links[l].a->GetPosition();
        const b2Vec2 b = links[l].b ? links[l].b->GetPosition() : links[l].anchor;
        result->link_lengths[l] = b2Distance(a, b) * 100.0;
    }
    result->awake = awake;
    resume(scene);
    return 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Chipmunk 7: points as units, 10 iterations, sleeping after 0.5 s below |g|·dt = 16.7 points/s (never in the
// field swarm). Friction sqrt(0.2) per shape, since Chipmunk multiplies the two.

namespace {
void swarm_velocity(cpBody *body, cpVect, cpFloat damping, cpFloat dt) {
    const cpVect p = cpBodyGetPosition(body);
    double ax, ay;
    swarm_acceleration(p.x, p.y, &ax, &ay);
    cpBodyUpdateVelocity(body, cpv(ax, ay), damping, dt);
}
}  // namespace

int dk_chipmunk_run(const dk_scene *scene, dk_result *result) {
    pause(scene);
    cpSpace *space = cpSpaceNew();
    cpSpaceSetIterations(space, 10);
    cpSpaceSetGravity(space, cpv(0, scene->gravity ? 1000 : 0));
    if (scene->kind != 3) {
        cpSpaceSetSleepTimeThreshold(space, 0.5);
        cpSpaceSetIdleSpeedThreshold(space, 1000.0 / 60.0);
    }
    const cpFloat friction = std::sqrt(0.2);
    std::vector<cpShape *> shapes;
    std::vector<cpConstraint *> constraints;
    std::vector<cpBody *> bodies;
    bodies.reserve(scene->item_count);
    for (int i = 0; i < scene->item_count; ++i) {
        const double *it = scene->items + 3 * i;
        const cpFloat side = it[2];
        const cpFloat mass = side * side / 10000.0;
        cpBody *body = cpSpaceAddBody(space, cpBodyNew(mass, cpMomentForBox(mass, side, side)));
        cpBodySetPosition(body, cpv(it[0], it[1]));
        if (scene->kind == 3) cpBodySetVelocityUpdateFunc(body, swarm_velocity);
        if (scene->collisions) {
            cpShape *shape = cpSpaceAddShape(space, cpBoxShapeNew(body, side, side, 0));
            cpShapeSetFriction(shape, friction);
            cpShapeSetElasticity(shape, 0);
            shapes.push_back(shape);
        }
        bodies.push_back(body);
    }
    cpBody *staticBody = cpSpaceGetStaticBody(space);
    for (int w = 0; w < scene->wall_count; ++w) {
        const double *wl = scene->walls + 6 * w;
        const cpFloat t = 1000;
        const cpVect quad[4] = {cpv(wl[0], wl[1]), cpv(wl[2], wl[3]), cpv(wl[2] + t * wl[4], wl[3] + t * wl[5]),
                                cpv(wl[0] + t * wl[4], wl[1] + t * wl[5])};
        cpShape *shape = cpSpaceAddShape(space, cpPolyShapeNew(staticBody, 4, quad, cpTransformIdentity, 0));
        cpShapeSetFriction(shape, friction);
        cpShapeSetElasticity(shape, 0);
        shapes.push_back(shape);
    }
    struct LinkEnds { cpBody *a; cpBody *b; cpVect anchor; };
    std::vector<LinkEnds> links;
    for (int l = 0; l < scene->link_count; ++l) {
        const double *lk = scene->links + 4 * l;
        cpBody *a = bodies[int(lk[0])];
        cpBody *b = lk[1] >= 0 ? bodies[int(lk[1])] : staticBody;
        const cpVect anchorB = lk[1] >= 0 ? cpvzero : cpv(lk[2], lk[3]);
        constraints.push_back(cpSpaceAddConstraint(space, cpPinJointNew(a, b, cpvzero, anchorB)));
        links.push_back({a, lk[1] >= 0 ? b : nullptr, cpv(lk[2], lk[3])});
    }

    resume(scene);
    for (int s = 0; s < scene->steps; ++s) {
        const auto t0 = std::chrono::steady_clock::now();
        cpSpaceStep(space, scene->dt);
        result->step_ms[s] = elapsed_ms(t0);
    }
    pause(scene);

    int awake = 0;
    for (int i = 0; i < scene->item_count; ++i) {
        const cpVect p = cpBodyGetPosition(bodies[i]);
        result->centers[2 * i] = p.x;
        result->centers[2 * i + 1] = p.y;
        if (!cpBodyIsSleeping(bodies[i])) ++awake;
    }
    for (size_t l = 0; l < links.size(); ++l) {
        const cpVect a = cpBodyGetPosition(links[l].a);
        const cpVect b = links[l].b ? cpBodyGetPosition(links[l].b) : links[l].anchor;
        result->link_lengths[l] = cpvdist(a, b);
    }
    result->awake = awake;
    cpSpaceFree(space);
    for (cpShape *shape : shapes) cpShapeFree(shape);
    for (cpConstraint *c : constraints) cpConstraintFree(c);
    for (cpBody *body : bodies) cpBodyFree(body);
    resume(scene);
    return 0;
}
