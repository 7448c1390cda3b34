/// A list of observers of one value: every one added is heard, none can silence another.
///
/// Replaces single `onChange` closure slots, where a second assignment silently dropped the
/// first. Observers run in the order they were added, on the main thread. `observe` hands back
/// a token that removes its observer when dropped; `add` is for an observer that lasts as long
/// as the list's owner.
@MainActor
public final class Observers<Value> {
    private var bodies: [(id: Int, body: @MainActor (Value) -> Void)] = []
    private var nextID = 0

    public init() {}

    /// Adds `body`; it hears every `notify` from now on, for the owner's lifetime.
    public func add(_ body: @escaping @MainActor (Value) -> Void) {
        _ = insert(body)
    }

    /// Adds `body` until the returned token is dropped.
    public func observe(_ body: @escaping @MainActor (Value) -> Void) -> ObserverToken {
        let id = insert(body)
        return ObserverToken { [weak self] in self?.bodies.removeAll { $0.id == id } }
    }

    public func notify(_ value: Value) {
        for (_, body) in bodies { body(value) }
    }

    private func insert(_ body: @escaping @MainActor (Value) -> Void) -> Int {
        nextID += 1
        bodies.append((nextID, body))
        return nextID
    }
}

/// One observer in an `Observers` list, heard for as long as this token lives.
@MainActor
public final class ObserverToken {
    private let remove: @MainActor () -> Void

    init(remove: @escaping @MainActor () -> Void) { self.remove = remove }

    isolated deinit { remove() }

    /// Keeps the token in its owner's list, so the observer lasts as long as the owner.
    public func store(in tokens: inout [ObserverToken]) {
        tokens.append(self)
    }
}
