/// A reference that does not keep its object alive, for C callbacks and closures that outlive it.
///
/// GLib keeps the box (user data, a destroy notify) or a queue keeps a closure holding it; the
/// owner may go first, and then `object` reads nil. Sendable so such closures can carry it to
/// the main thread: it is set once before it is handed on (or later on the one thread that
/// reads it), never raced.
public final class Weak<Object: AnyObject>: @unchecked Sendable {
    public weak var object: Object?
    public init(_ object: Object? = nil) { self.object = object }
}
