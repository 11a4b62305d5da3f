import DynamicsReplay

/// One change to a profile before it is read: the field at `path` (`seed`, `behaviors[0].magnitude`,
/// `items[0].count`, `behaviors[1].boundaries[0].to[1]`) set to a JSON value. The changed profile is then checked as
/// a file would be, so a value out of range or a misspelled field is refused with its place.
///
/// `dynamics run --set path=value` and the sweeps (`SweepSpec`) are built on it.
public struct ProfileOverride: CustomStringConvertible {
    /// The field, as the profile errors name places: member names joined by `.`, array elements as `[k]`.
    public let path: String
    let components: [Component]
    let value: JSON

    enum Component: Equatable {
        case member(String)
        case element(Int)
    }

    /// `path` set to `json`, the text of a JSON value (`2`, `true`, `"ellipse"`, `[1, 2]`). A text that is not JSON
    /// is taken as a string, so `--set name=pile` needs no quotes.
    public init(path: String, json: String) throws {
        let value: JSON
        if let parsed = try? JSONParser.parse(json, file: "--set") { value = parsed } else { value = .string(json) }
        try self.init(path: path, value: value)
    }

    /// `path=value`, as `--set` takes it.
    public init(assignment: String) throws {
        guard let equals = assignment.firstIndex(of: "=") else {
            throw ProfileError(file: "--set", path: "", message: "expected path=value, found '\(assignment)'")
        }
        try self.init(path: String(assignment[..<equals]), json: String(assignment[assignment.index(after: equals)...]))
    }

    init(path: String, value: JSON) throws {
        self.path = path
        self.components = try ProfileOverride.parse(path)
        self.value = value
    }

    public var description: String { "\(path)=\(value.text)" }

    /// The value as JSON text.
    public var valueText: String { value.text }

    /// `a.b[2].c` → member a, member b, element 2, member c.
    static func parse(_ path: String) throws -> [Component] {
        func fail(_ why: String) -> ProfileError {
            ProfileError(file: "--set", path: "", message: "the field path '\(path)' \(why)")
        }
        var out: [Component] = []
        var chars = Substring(path)
        guard !chars.isEmpty else { throw fail("is empty; expected a field such as seed or behaviors[0].magnitude") }
        while !chars.isEmpty {
            if chars.first == "[" {
                guard let close = chars.firstIndex(of: "]") else { throw fail("has a '[' without its ']'") }
                let digits = chars[chars.index(after: chars.startIndex)..<close]
                guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let k = Int(digits), k >= 0 else {
                    throw fail("has '[\(digits)]' where an element number (0, 1, …) belongs")
                }
                out.append(.element(k))
                chars = chars[chars.index(after: close)...]
                guard chars.isEmpty || chars.first == "." || chars.first == "[" else {
                    throw fail("needs a '.' before '\(chars)'")
                }
                if chars.first == "." {
                    chars = chars.dropFirst()
                    guard !chars.isEmpty && chars.first != "[" && chars.first != "." else { throw fail("has an empty field name") }
                }
            } else {
                let end = chars.firstIndex { $0 == "." || $0 == "[" } ?? chars.endIndex
                let name = chars[..<end]
                guard !name.isEmpty else { throw fail("has an empty field name") }
                out.append(.member(String(name)))
                chars = chars[end...]
                if chars.first == "." {
                    chars = chars.dropFirst()
                    guard !chars.isEmpty && chars.first != "[" && chars.first != "." else { throw fail("has an empty field name") }
                }
            }
        }
        return out
    }

    /// `root` with this override applied. A member that is not there is added (the profile's checks then refuse
    /// one the profile does not have); an element must exist.
    func apply(to root: JSON, file: String) throws -> JSON {
        func set(_ node: JSON, _ rest: ArraySlice<Component>, _ place: String) throws -> JSON {
            guard let first = rest.first else { return value }
            func fail(_ why: String) -> ProfileError { ProfileError(file: file, path: place, message: "--set \(path): \(why)") }
            switch (first, node) {
            case let (.member(name), .object(members)):
                let here = place.isEmpty ? name : place + "." + name
                var members = members
                if let k = members.firstIndex(where: { $0.0 == name }) {
                    members[k].1 = try set(members[k].1, rest.dropFirst(), here)
                } else {
                    guard rest.count == 1 else { throw ProfileError(file: file, path: here, message: "--set \(path): there is no field '\(name)' here") }
                    members.append((name, value))
                }
                return .object(members)
            case let (.element(k), .array(elements)):
                guard k < elements.count else {
                    throw fail("there is no element [\(k)]: the array has \(elements.count)")
                }
                var elements = elements
                elements[k] = try set(elements[k], rest.dropFirst(), place + "[\(k)]")
                return .array(elements)
            case (.member(let name), _):
                throw fail("expected an object to hold '\(name)', found \(node.kindName)")
            case (.element(let k), _):
                throw fail("expected an array to hold [\(k)], found \(node.kindName)")
            }
        }
        return try set(root, components[...], "")
    }
}

extension JSON {
    /// The value as compact JSON text, members in their order; numbers as DynamicsReplay's `numberText` writes them (`3`,
    /// not `3.0`; otherwise Swift's shortest round-trip form, so the text reads back equal).
    var text: String {
        switch self {
        case .null: return "null"
        case let .bool(b): return b ? "true" : "false"
        case let .number(d): return numberText(d)
        case let .string(s): return JSON.quoted(s)
        case let .array(a): return "[" + a.map(\.text).joined(separator: ",") + "]"
        case let .object(m): return "{" + m.map { JSON.quoted($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    /// A JSON string literal (DynamicsReplay's, which also escapes `<` so the text can sit in a web page).
    static func quoted(_ s: String) -> String { jsonString(s) }
}
