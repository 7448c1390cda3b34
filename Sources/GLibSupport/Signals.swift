import CGLib

/// A Swift value kept alive for as long as a C callback may use it.
///
/// Handed to GLib with `Unmanaged.passRetained` as user data and released by the destroy notify
/// GLib calls when the handler, source or draw function goes away. Only the main thread reads it.
public final class CallbackBox<Body>: @unchecked Sendable {
    public let body: Body
    public init(_ body: Body) { self.body = body }

    /// The box behind a user-data pointer handed out by `retainedPointer()`.
    public static func from(_ data: UnsafeMutableRawPointer?) -> CallbackBox<Body> {
        Unmanaged<CallbackBox<Body>>.fromOpaque(data!).takeUnretainedValue()
    }

    /// A +1 pointer to the box, for C user data; `releaseBox` balances it.
    public func retainedPointer() -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(self).toOpaque()
    }
}

/// The destroy notify for every `CallbackBox` handed to C (`GDestroyNotify`).
public func releaseBox(_ data: UnsafeMutableRawPointer?) {
    guard let data else { return }
    Unmanaged<AnyObject>.fromOpaque(data).release()
}

extension GObjectPointer {
    /// Connects a handler written in C shape and returns only its id: the handler stays for the
    /// instance's whole life unless the id is disconnected by hand. The lower layers (the
    /// player's pipeline, whose handlers live exactly as long as its playbin) use it; code that
    /// owns widgets keeps a `SignalConnection` instead.
    @discardableResult
    public func connect<Body>(_ signal: String, after: Bool = false,
                              box: CallbackBox<Body>, handler: GCallback) -> UInt {
        UInt(g_signal_connect_data(rawObject, signal, handler, box.retainedPointer(),
                                   { data, _ in releaseBox(data) },
                                   after ? G_CONNECT_AFTER : GConnectFlags(rawValue: 0)))
    }

    /// Connects a handler written in C shape for as long as the returned token lives.
    public func connection<Body>(_ signal: String, after: Bool = false,
                                 box: CallbackBox<Body>, handler: GCallback) -> SignalConnection {
        SignalConnection(self, signal, after: after, box: box, handler: handler)
    }

    /// Connects `body` to a signal with no arguments and no return value (`clicked`, `destroy`).
    public func connect(_ signal: String, after: Bool = false,
                        _ body: @escaping @MainActor () -> Void) -> SignalConnection {
        let handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
            let box = CallbackBox<@MainActor () -> Void>.from(data)
            MainActor.assumeIsolated { box.body() }
        }
        return connection(signal, after: after, box: CallbackBox(body), handler: unsafeBitCast(handler, to: GCallback.self))
    }

    /// Connects `body` to a signal whose handler returns a `gboolean` (`close-request`).
    public func connectReturningBool(_ signal: String, after: Bool = false,
                                     _ body: @escaping @MainActor () -> Bool) -> SignalConnection {
        let handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
            let box = CallbackBox<@MainActor () -> Bool>.from(data)
            return MainActor.assumeIsolated { box.body() } ? 1 : 0
        }
        return connection(signal, after: after, box: CallbackBox(body), handler: unsafeBitCast(handler, to: GCallback.self))
    }

    /// Connects `body` to a signal with one pointer argument (`activate` of a `GSimpleAction`
    /// gets its parameter, `response` gets an int, passed here as a pointer-sized value).
    public func connect(_ signal: String, after: Bool = false,
                        _ body: @escaping @MainActor (UnsafeMutableRawPointer?) -> Void) -> SignalConnection {
        let handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, argument, data in
            let box = CallbackBox<@MainActor (UnsafeMutableRawPointer?) -> Void>.from(data)
            nonisolated(unsafe) let argument = argument
            MainActor.assumeIsolated { box.body(argument) }
        }
        return connection(signal, after: after, box: CallbackBox(body), handler: unsafeBitCast(handler, to: GCallback.self))
    }

    /// Connects `body` to a signal with one pointer argument that returns a `gint`
    /// (`handle-local-options` gets its `GVariantDict`).
    public func connect(_ signal: String, after: Bool = false,
                        _ body: @escaping @MainActor (UnsafeMutableRawPointer?) -> Int32) -> SignalConnection {
        let handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 = { _, argument, data in
            let box = CallbackBox<@MainActor (UnsafeMutableRawPointer?) -> Int32>.from(data)
            nonisolated(unsafe) let argument = argument
            return MainActor.assumeIsolated { box.body(argument) }
        }
        return connection(signal, after: after, box: CallbackBox(body), handler: unsafeBitCast(handler, to: GCallback.self))
    }
}
