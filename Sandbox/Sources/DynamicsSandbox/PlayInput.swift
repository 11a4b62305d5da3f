import DynamicsKit
import DynamicsReplay
import Foundation

/// One message a page sends: a pointer gesture, a toolbar action or a spawn. Pages send JSON objects with a `kind`;
/// the session applies them at step boundaries, in the order they arrived, and logs each with the step it was
/// applied before, so that a session re-simulates bit for bit.
public enum PlayInput: Equatable, Sendable {
    /// A pointer went down at a point (points, scene coordinates): the item under it is dragged.
    case down(pointer: Int, x: Double, y: Double)
    /// The pointer moved: the drag's anchor follows.
    case move(pointer: Int, x: Double, y: Double)
    /// The pointer went up, moving at `velocity` (points/s, measured by the page over the pointer's last moves, as
    /// `UIPanGestureRecognizer.velocity(in:)` is): the item flies off at that velocity (without one, at the
    /// velocity the drag gave it) or, with `snapBack`, snaps back to where it was picked up.
    case up(pointer: Int, snapBack: Bool, velocity: CGVector? = nil)
    case pause
    case play
    /// One step while paused.
    case step
    /// The scene as it started.
    case reset
    /// Steps per real-time step: 0.25 … 4.
    case speed(Double)
    /// Gravity's direction, radians from +x (π/2 is down, UIKit's default).
    case tilt(angle: Double)
    /// A new item at a point, falling and colliding like the scene's items.
    case spawn(x: Double, y: Double, ball: Bool)

    /// The pointers a page may use at once (a hand's fingers and a mouse).
    public static let pointers = 0..<16
    public static let speeds: ClosedRange<Double> = 0.25...4
    /// The largest message a page may send (bytes); the longest valid one is under 120.
    public static let maximumMessageBytes = 1024

    /// Reads one message. The error names the message kind and the rule it broke.
    public init(json text: String) throws {
        guard text.utf8.count <= Self.maximumMessageBytes else {
            throw PlayInputError("message of \(text.utf8.count) bytes refused: the limit is \(Self.maximumMessageBytes)")
        }
        let m: Fields
        do { m = try JSONDecoder().decode(Fields.self, from: Data(text.utf8)) } catch let e as PlayInputError {
            throw e
        } catch {
            throw PlayInputError("malformed message: expected a JSON object with a 'kind' (\(Self.excerpt(text)))")
        }
        let kind = m.kind
        func number(_ key: String) throws -> Double {
            guard let v = m.values[key] else { throw PlayInputError("\(kind): missing '\(key)'") }
            guard case let .number(d) = v else { throw PlayInputError("\(kind): '\(key)' must be a number") }
            return d
        }
        func coordinate(_ key: String) throws -> Double {
            let d = try number(key)
            guard abs(d) <= Double(SupportedRange.coordinate) else {
                throw PlayInputError("\(kind): '\(key)' must be within ±1,000,000 points, got \(d)")
            }
            return d
        }
        func pointer() throws -> Int {
            let d = try number("pointer")
            guard d == d.rounded(), d >= 0, d < Double(Self.pointers.upperBound) else {
                throw PlayInputError("\(kind): 'pointer' must be a whole number from 0 to \(Self.pointers.upperBound - 1), got \(d)")
            }
            return Int(d)
        }
        func flag(_ key: String) throws -> Bool {
            guard let v = m.values[key] else { return false }
            guard case let .flag(b) = v else { throw PlayInputError("\(kind): '\(key)' must be true or false") }
            return b
        }
        let allowed: Set<String>
        switch kind {
        case "down": allowed = ["kind", "pointer", "x", "y"]; self = .down(pointer: try pointer(), x: try coordinate("x"), y: try coordinate("y"))
        case "move": allowed = ["kind", "pointer", "x", "y"]; self = .move(pointer: try pointer(), x: try coordinate("x"), y: try coordinate("y"))
        case "up":
            allowed = ["kind", "pointer", "snapBack", "vx", "vy"]
            func speed(_ key: String) throws -> Double {
                let v = try number(key)
                guard abs(v) <= Double(SupportedRange.speed) else {
                    throw PlayInputError("up: '\(key)' must be within ±100,000 points/s, got \(v)")
                }
                return v
            }
            let hasVelocity = m.values["vx"] != nil || m.values["vy"] != nil
            self = .up(pointer: try pointer(), snapBack: try flag("snapBack"),
                       velocity: hasVelocity ? CGVector(dx: try speed("vx"), dy: try speed("vy")) : nil)
        case "pause": allowed = ["kind"]; self = .pause
        case "play": allowed = ["kind"]; self = .play
        case "step": allowed = ["kind"]; self = .step
        case "reset": allowed = ["kind"]; self = .reset
        case "speed":
            allowed = ["kind", "value"]
            let v = try number("value")
            guard Self.speeds.contains(v) else { throw PlayInputError("speed: 'value' must be from 0.25 to 4, got \(v)") }
            self = .speed(v)
        case "tilt":
            allowed = ["kind", "angle"]
            let a = try number("angle")
            guard abs(a) <= 8 else { throw PlayInputError("tilt: 'angle' must be radians within ±8, got \(a)") }
            self = .tilt(angle: a)
        case "spawn":
            allowed = ["kind", "x", "y", "ball"]
            self = .spawn(x: try coordinate("x"), y: try coordinate("y"), ball: try flag("ball"))
        default:
            throw PlayInputError("unknown message kind '\(Self.excerpt(kind))'; the kinds are: down, move, up, pause, play, step, reset, speed, tilt, spawn")
        }
        if let extra = m.values.keys.filter({ !allowed.contains($0) }).sorted().first {
            throw PlayInputError("\(kind): unknown field '\(Self.excerpt(extra))'; expected: \(allowed.sorted().joined(separator: ", "))")
        }
    }

    /// The message as JSON, fields in a fixed order (the input log's form; `init(json:)` reads it back).
    public var json: String {
        func n(_ d: Double) -> String { numberText(d) }
        switch self {
        case let .down(p, x, y): return "{\"kind\":\"down\",\"pointer\":\(p),\"x\":\(n(x)),\"y\":\(n(y))}"
        case let .move(p, x, y): return "{\"kind\":\"move\",\"pointer\":\(p),\"x\":\(n(x)),\"y\":\(n(y))}"
        case let .up(p, snap, v):
            let velocity = v.map { ",\"vx\":\(n(Double($0.dx))),\"vy\":\(n(Double($0.dy)))" } ?? ""
            return "{\"kind\":\"up\",\"pointer\":\(p),\"snapBack\":\(snap)\(velocity)}"
        case .pause: return "{\"kind\":\"pause\"}"
        case .play: return "{\"kind\":\"play\"}"
        case .step: return "{\"kind\":\"step\"}"
        case .reset: return "{\"kind\":\"reset\"}"
        case let .speed(v): return "{\"kind\":\"speed\",\"value\":\(n(v))}"
        case let .tilt(a): return "{\"kind\":\"tilt\",\"angle\":\(n(a))}"
        case let .spawn(x, y, ball): return "{\"kind\":\"spawn\",\"x\":\(n(x)),\"y\":\(n(y)),\"ball\":\(ball)}"
        }
    }

    static func excerpt(_ s: String) -> String {
        let clean = String(s.unicodeScalars.map { $0.value < 0x20 || $0 == "'" ? "?" : Character($0) })
        return clean.count <= 40 ? clean : String(clean.prefix(40)) + "…"
    }
}

/// A message's members: `kind` and the numbers and flags beside it (nothing else is valid in a message).
private struct Fields: Decodable {
    enum Value { case number(Double), flag(Bool), other }
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    var kind = ""
    var values: [String: Value] = [:]

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        guard let k = c.allKeys.first(where: { $0.stringValue == "kind" }), let kind = try? c.decode(String.self, forKey: k) else {
            throw PlayInputError("malformed message: no 'kind' string")
        }
        self.kind = kind
        for key in c.allKeys where key.stringValue != "kind" {
            if let b = try? c.decode(Bool.self, forKey: key) { values[key.stringValue] = .flag(b) }
            else if let d = try? c.decode(Double.self, forKey: key) { values[key.stringValue] = .number(d) }
            else { values[key.stringValue] = .other }
        }
    }
}

/// Why a message was refused; sent back to the page that sent it.
public struct PlayInputError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

