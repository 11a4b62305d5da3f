/// How DynamicsKit reports misuse that UIKit reports with an exception: a zero-size item, an invalid path, a
/// behavior in two animators, a sliding range without 0, a negative density, NaN or infinite input.
///
/// The API keeps UIKit's non-throwing signatures, so a violation is a precondition failure whose message names
/// the item or behavior and the rule. The offending call changes nothing. Tests (and hosts that would rather log
/// than stop) can install a `handler`; when it returns, the call returns without effect.
public enum ContractViolation {
    /// Called with the message of each violation. The default writes the message to standard error and stops the
    /// program, in every build configuration (an optimized build drops the text of a failed precondition, so the
    /// message is written first).
    nonisolated(unsafe) public static var handler: (String) -> Void = { message in
        FileHandle.standardError.write(Data("DynamicsKit: contract violation: \(message)\n".utf8))
        fatalError("DynamicsKit: \(message)")
    }

    /// Reports a violation.
    static func report(_ message: String) { handler(message) }

    /// Runs `body` with a handler that records each violation instead of stopping, then restores the handler.
    /// Returns `body`'s result and the messages, in order. (Tools that build animators from data, such as the
    /// profile loader, turn them into errors.)
    public static func collecting<T>(_ body: () throws -> T) rethrows -> (result: T, violations: [String]) {
        let previous = handler
        var messages: [String] = []
        handler = { messages.append($0) }
        defer { handler = previous }
        let result = try body()
        return (result, messages)
    }
}

/// Checks a rule; reports a violation and returns false when it does not hold.
@inline(__always)
func require(_ condition: Bool, _ message: @autoclosure () -> String) -> Bool {
    if condition { return true }
    ContractViolation.report(message())
    return false
}

/// Describes an object for error messages: its type and, for named items, the name.
func describe(_ object: AnyObject) -> String {
    if let named = object as? HeadlessItem, let name = named.name { return "\(type(of: object)) '\(name)'" }
    if let b = object as? DynamicBehavior, let name = b.name { return "\(type(of: object)) '\(name)'" }
    return "\(type(of: object))"
}
