/// A list of observers of one value: every `add` is heard, none can silence another.
///
/// Replaces single `onChange` closure slots, where a second assignment silently dropped the
/// first. Observers run in the order they were added, on the main thread.
@MainActor
public final class Observers<Value> {
    private var bodies: [@MainActor (Value) -> Void] = []

    public init() {}

    /// Adds `body`; it hears every `notify` from now on, for the owner's lifetime.
    public func add(_ body: @escaping @MainActor (Value) -> Void) {
        bodies.append(body)
    }

    public func notify(_ value: Value) {
        for body in bodies { body(value) }
    }
}
