import CGLib

/// One signal handler, connected for as long as this token lives: dropping it disconnects.
///
/// The owner of a widget stores the tokens of the handlers it connected (`connections`), so no
/// handler outlives the Swift object it calls into. The instance is held weakly (a `GWeakRef`):
/// it may be finalized before the token goes, and then there is nothing left to disconnect.
/// Where a handler is meant to last as long as its instance (a widget's own child's `clicked`),
/// `keepForObjectLife()` says so in so many words.
public final class SignalConnection: @unchecked Sendable {
    // Sendable: the token may be released off the main thread (its owner's last reference);
    // GLib's weak references and handler disconnection are thread-safe.
    private let instance: UnsafeMutablePointer<GWeakRef>
    private let handlerID: gulong
    private var disconnectsOnDrop = true

    /// Connects a handler written in C shape: `handler` receives the instance, the signal's own
    /// arguments and last the box's pointer. The box lives until the handler is disconnected.
    public init<Body>(_ object: some GObjectPointer, _ signal: String, after: Bool = false,
                      box: CallbackBox<Body>, handler: GCallback) {
        handlerID = g_signal_connect_data(object.rawObject, signal, handler, box.retainedPointer(),
                                          { data, _ in releaseBox(data) },
                                          after ? G_CONNECT_AFTER : GConnectFlags(rawValue: 0))
        instance = .allocate(capacity: 1)
        instance.initialize(to: GWeakRef())
        g_weak_ref_init(instance, object.rawObject)
    }

    /// Leaves the handler connected for the rest of the instance's life: dropping the token no
    /// longer disconnects it. For handlers that belong to the instance itself.
    public func keepForObjectLife() {
        disconnectsOnDrop = false
    }

    /// Disconnects now, if the instance still exists and the handler is still connected.
    public func disconnect() {
        guard let object = g_weak_ref_get(instance) else { return }
        // Dispose destroys an instance's handlers before it is finalized: by then the id is gone.
        if g_signal_handler_is_connected(object, handlerID) != 0 {
            g_signal_handler_disconnect(object, handlerID)
        }
        g_object_unref(object)
    }

    deinit {
        if disconnectsOnDrop { disconnect() }
        g_weak_ref_clear(instance)
        instance.deallocate()
    }
}

extension SignalConnection {
    /// Keeps the token in its owner's list, so the handler lasts as long as the owner.
    public func store(in connections: inout [SignalConnection]) {
        connections.append(self)
    }
}
