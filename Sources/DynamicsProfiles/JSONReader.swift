/// A profile that cannot be used: which file, where in it (`behaviors[2].items[5]`), and what was expected.
public struct ProfileError: Error, CustomStringConvertible, Equatable {
    public var file: String
    public var path: String
    public var message: String

    public init(file: String, path: String, message: String) {
        self.file = file
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? "\(file): \(message)" : "\(file): \(path): \(message)" }
}

/// A parsed JSON value. Objects keep their members in file order.
enum JSON {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "true or false"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A small strict JSON parser (RFC 8259) that reports line and column.
///
/// Foundation's `JSONSerialization` would do the parsing but not the reporting a profile needs: on Linux its errors
/// name a character offset ("Invalid value around character 12.") with no line or column, it accepts a member
/// given twice (the last wins, so a pasted duplicate is silently ignored), and its objects are dictionaries, so
/// "the first unknown field" would depend on hash order and change from run to run. `JSONDecoder` says only "The
/// given data was not valid JSON." and keeps one of two equal members. This parser refuses duplicates, keeps
/// members in file order and says where a mistake is.
struct JSONParser {
    private let bytes: [UInt8]
    private var i = 0
    private let file: String

    init(_ text: String, file: String) {
        bytes = Array(text.utf8)
        self.file = file
    }

    static func parse(_ text: String, file: String) throws -> JSON {
        var p = JSONParser(text, file: file)
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == p.bytes.count else { throw p.fail("unexpected text after the JSON value") }
        return v
    }

    private func fail(_ message: String) -> ProfileError {
        var line = 1, column = 1
        for b in bytes[0..<Swift.min(i, bytes.count)] { if b == 10 { line += 1; column = 1 } else { column += 1 } }
        return ProfileError(file: file, path: "", message: "malformed JSON at line \(line), column \(column): \(message)")
    }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 32 || bytes[i] == 9 || bytes[i] == 10 || bytes[i] == 13 { i += 1 }
    }

    private mutating func expect(_ word: String) throws {
        for b in word.utf8 {
            guard i < bytes.count, bytes[i] == b else { throw fail("expected '\(word)'") }
            i += 1
        }
    }

    private mutating func value(depth: Int) throws -> JSON {
        guard depth < 256 else { throw fail("nested too deeply") }
        guard i < bytes.count else { throw fail("unexpected end of the file") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            var members: [(String, JSON)] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
                let key = try string()
                if members.contains(where: { $0.0 == key }) { throw fail("member '\(key)' appears twice") }
                skipSpace()
                try expect(":")
                skipSpace()
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end of the file in an object") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                throw fail("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            i += 1
            var elements: [JSON] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(elements) }
            while true {
                skipSpace()
                elements.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end of the file in an array") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(elements) }
                throw fail("expected ',' or ']'")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        default:
            return .number(try number())
        }
    }

    private mutating func string() throws -> String {
        i += 1 // opening quote
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let b = bytes[i]
            i += 1
            if b == UInt8(ascii: "\"") { break }
            if b < 0x20 { throw fail("control character in a string") }
            if b != UInt8(ascii: "\\") { out.append(b); continue }
            guard i < bytes.count else { throw fail("unterminated escape") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(8)
            case UInt8(ascii: "f"): out.append(12)
            case UInt8(ascii: "n"): out.append(10)
            case UInt8(ascii: "r"): out.append(13)
            case UInt8(ascii: "t"): out.append(9)
            case UInt8(ascii: "u"):
                guard i + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16) else {
                    throw fail("bad \\u escape")
                }
                i += 4
                guard let scalar = Unicode.Scalar(code) else { throw fail("\\u escape is not a character (surrogates are not supported)") }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default: throw fail("unknown escape '\\\(Character(Unicode.Scalar(e)))'")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func number() throws -> Double {
        let start = i
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        var digits = 0
        while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) || bytes[i] == UInt8(ascii: ".")
                || bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")
                || ((bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) && (bytes[i - 1] == UInt8(ascii: "e") || bytes[i - 1] == UInt8(ascii: "E"))) {
            i += 1
            digits += 1
        }
        guard digits > 0, let d = Double(String(decoding: bytes[start..<i], as: UTF8.self)), d.isFinite else {
            i = start
            throw fail("expected a value (object, array, string, number, true, false or null)")
        }
        return d
    }
}

/// A JSON value with the path that reached it, so every error names its place.
struct Node {
    let value: JSON
    let path: String
    let file: String

    func fail(_ message: String) -> ProfileError { ProfileError(file: file, path: path, message: message) }

    private func child(_ value: JSON, _ component: String) -> Node {
        let sep = path.isEmpty || component.hasPrefix("[") ? "" : "."
        return Node(value: value, path: path + sep + component, file: file)
    }

    func members() throws -> [(String, JSON)] {
        guard case let .object(m) = value else { throw fail("expected an object, found \(value.kindName)") }
        return m
    }

    func array() throws -> [Node] {
        guard case let .array(a) = value else { throw fail("expected an array, found \(value.kindName)") }
        return a.enumerated().map { child($1, "[\($0)]") }
    }

    var isString: Bool { if case .string = value { return true } else { return false } }

    /// A member that must be present.
    func required(_ key: String) throws -> Node {
        guard let v = try members().first(where: { $0.0 == key })?.1 else { throw fail("missing field '\(key)'") }
        return child(v, key)
    }

    func optional(_ key: String) throws -> Node? {
        try members().first(where: { $0.0 == key }).map { child($0.1, key) }
    }

    /// Refuses members this kind of object does not have (a misspelled property would otherwise be ignored).
    func allowOnly(_ keys: Set<String>) throws {
        for (key, _) in try members() where !keys.contains(key) {
            throw fail("unknown field '\(key)'; expected one of: \(keys.sorted().joined(separator: ", "))")
        }
    }

    /// A number within DynamicsKit's supported range (±1,000,000; README "Supported range"): a value the library
    /// would refuse is refused here, with its place in the file.
    func number() throws -> Double {
        let d = try anyNumber()
        guard abs(d) <= 1_000_000 else { throw fail("expected a number within ±1,000,000 (DynamicsKit's supported range), found \(d)") }
        return d
    }

    /// Any JSON number (counts and seeds have their own bounds).
    func anyNumber() throws -> Double {
        guard case let .number(d) = value else { throw fail("expected a number, found \(value.kindName)") }
        return d
    }

    /// A number within `range`, described by `what` in the message.
    func number(in range: ClosedRange<Double>, _ what: String) throws -> Double {
        let d = try anyNumber()
        guard range.contains(d) else { throw fail("expected \(what), found \(d)") }
        return d
    }

    func nonNegative() throws -> Double {
        let d = try number()
        guard d >= 0 else { throw fail("expected a number ≥ 0, found \(d)") }
        return d
    }

    func positive() throws -> Double {
        let d = try number()
        guard d > 0 else { throw fail("expected a number > 0, found \(d)") }
        return d
    }

    func integer(min: Int = Int.min, max: Int = Int.max) throws -> Int {
        let d = try anyNumber()
        guard d == d.rounded(), abs(d) < 1e15 else { throw fail("expected a whole number, found \(d)") }
        guard Int(d) >= min else { throw fail("expected a whole number ≥ \(min), found \(Int(d))") }
        guard Int(d) <= max else { throw fail("expected a whole number ≤ \(max), found \(Int(d))") }
        return Int(d)
    }

    func string() throws -> String {
        guard case let .string(s) = value else { throw fail("expected a string, found \(value.kindName)") }
        return s
    }

    func bool() throws -> Bool {
        guard case let .bool(b) = value else { throw fail("expected true or false, found \(value.kindName)") }
        return b
    }

    /// `[x, y]`.
    func pair() throws -> (Double, Double) {
        let a = try array()
        guard a.count == 2 else { throw fail("expected [x, y] (two numbers), found \(a.count) values") }
        return (try a[0].number(), try a[1].number())
    }
}
