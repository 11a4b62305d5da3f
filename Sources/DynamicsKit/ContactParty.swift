/// What a body in a contact event stands for: an item, or a boundary of a collision behavior. The animator keeps
/// it for the bodies removed during a step too, so that their ended events can still name them.
enum ContactParty {
    case item(DynamicItem)
    case boundary(CollisionBehavior, BoundaryIdentifier?)
}

/// A contact that began or ended in the animator's last step, as the collision delegates see it: between two items,
/// or an item and a boundary. A DynamicsKit addition, for recording and analysis; unlike the delegates it reports
/// every contact, whichever collision behaviors and delegates there are.
public struct ContactEvent {
    public enum Party {
        case item(DynamicItem)
        /// A boundary of a collision behavior: its identifier, or nil for the reference bounds.
        case boundary(CollisionBehavior, identifier: AnyHashable?)
    }
    public let first: Party
    public let second: Party
    /// True when the contact began in the step, false when it ended.
    public let began: Bool
    /// Where a contact began; nil for one that ended.
    public let point: CGPoint?
}

extension DynamicAnimator {
    /// The contacts that began in the last step, then those that ended, between items and between items and
    /// boundaries (in the engine's event order, so the same run lists them alike).
    public func lastStepContactEvents() -> [ContactEvent] {
        func party(_ p: ContactParty) -> ContactEvent.Party {
            switch p {
            case let .item(item): return .item(item)
            case let .boundary(c, id): return .boundary(c, identifier: id?.hashable)
            }
        }
        var out: [ContactEvent] = []
        for e in world.contactBeganEvents {
            guard let a = contactParty(of: e.bodyA), let b = contactParty(of: e.bodyB) else { continue }
            out.append(ContactEvent(first: party(a), second: party(b), began: true, point: CGPoint(e.point)))
        }
        for e in world.contactEndedEvents {
            guard let a = contactParty(of: e.bodyA), let b = contactParty(of: e.bodyB) else { continue }
            out.append(ContactEvent(first: party(a), second: party(b), began: false, point: nil))
        }
        return out
    }
}
