import CGtk
import GLibSupport

/// Signal handlers of the video view whose C signatures carry numbers (pointer motion, clicks,
/// scale changes), which the shared one-pointer helpers in GLibSupport cannot express.
extension GObjectPointer {
    /// `motion` of a `GtkEventControllerMotion`: the pointer's position.
    func connectPoint(_ signal: String, _ body: @escaping @MainActor (Double, Double) -> Void) -> SignalConnection {
        typealias Handler = @convention(c) (UnsafeMutableRawPointer?, Double, Double, UnsafeMutableRawPointer?) -> Void
        let handler: Handler = { _, x, y, data in
            let box = CallbackBox<@MainActor (Double, Double) -> Void>.from(data)
            MainActor.assumeIsolated { box.body(x, y) }
        }
        return connection(signal, box: CallbackBox(body), handler: unsafeBitCast(handler, to: GCallback.self))
    }

    /// `pressed` / `released` of a `GtkGestureClick`: the number of presses and the position.
    func connectPress(_ signal: String, _ body: @escaping @MainActor (Int32) -> Void) -> SignalConnection {
        typealias Handler = @convention(c) (UnsafeMutableRawPointer?, Int32, Double, Double, UnsafeMutableRawPointer?) -> Void
        let handler: Handler = { _, presses, _, _, data in
            let box = CallbackBox<@MainActor (Int32) -> Void>.from(data)
            MainActor.assumeIsolated { box.body(presses) }
        }
        return connection(signal, box: CallbackBox(body), handler: unsafeBitCast(handler, to: GCallback.self))
    }

    /// `change-value` of a `GtkRange`: a change the person made (never a programmatic one).
    /// The range then takes the value as usual.
    func connectChangeValue(_ body: @escaping @MainActor (Double) -> Void) -> SignalConnection {
        typealias Handler = @convention(c) (UnsafeMutableRawPointer?, GtkScrollType, Double, UnsafeMutableRawPointer?) -> gboolean
        let handler: Handler = { _, _, value, data in
            let box = CallbackBox<@MainActor (Double) -> Void>.from(data)
            MainActor.assumeIsolated { box.body(value) }
            return 0 // not handled: the range still moves to the value
        }
        return connection("change-value", box: CallbackBox(body), handler: unsafeBitCast(handler, to: GCallback.self))
    }
}
