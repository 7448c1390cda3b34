import CGStreamer
import Localization
import ThreadKit

/// A thread's wait on a pipeline's bus, which another thread can cut short: what the remux's
/// watcher and the thumbnailer's probes wait with (the player's own pipelines are watched from
/// the main loop instead). `cancel()` posts a wake on the bus, so a wait in progress returns at
/// once, and every wait after it returns at once too.
final class BusWaiter: @unchecked Sendable {
    /// How a wait ended.
    enum Next {
        /// A message of the kinds waited for; freed when the value goes.
        case message(BusMessage)
        case timedOut
        case cancelled
    }

    private let bus: UnsafeMutablePointer<GstBus>
    private let cancelled = Locked(false)

    init(_ pipeline: UnsafeMutablePointer<GstElement>) throws(PlayerError) {
        guard let bus = gst_element_get_bus(pipeline) else { throw .other(tr("GStreamer could not watch the pipeline")) }
        self.bus = bus
    }

    deinit { gst_object_unref(bus) }

    /// Waits for the next message of `types` until `deadline` (nil: for as long as it takes).
    func next(_ types: GstMessageType, until deadline: ContinuousClock.Instant? = nil) -> Next {
        let waited = GstMessageType(rawValue: types.rawValue | GST_MESSAGE_APPLICATION.rawValue)
        while true {
            if cancelled.withLock({ $0 }) { return .cancelled }
            let timeout = deadline.map(Self.nanoseconds(until:)) ?? GStreamer.clockTimeNone
            guard let message = gst_bus_timed_pop_filtered(bus, timeout, waited) else { return .timedOut }
            // A wake (or an application message of nobody's): the flag says which.
            if message.pointee.type == GST_MESSAGE_APPLICATION, types.rawValue & GST_MESSAGE_APPLICATION.rawValue == 0 {
                gst_message_unref(message)
                continue
            }
            return .message(BusMessage(message))
        }
    }

    /// Ends the wait in progress and every later one, from any thread.
    func cancel() {
        let first = cancelled.withLock { cancelled in
            defer { cancelled = true }
            return !cancelled
        }
        guard first, let wake = gst_message_new_application(nil, gst_structure_new_empty("fetchplay-wake")) else { return }
        gst_bus_post(bus, wake)
    }

    /// Nanoseconds left before `deadline`, zero when it has passed.
    static func nanoseconds(until deadline: ContinuousClock.Instant) -> GstClockTime {
        let left = ContinuousClock.now.duration(to: deadline).components
        guard left.seconds >= 0 else { return 0 }
        return GstClockTime(left.seconds) * 1_000_000_000 + GstClockTime(left.attoseconds / 1_000_000_000)
    }
}

/// A bus message owned by Swift: unreferenced when it goes.
final class BusMessage {
    let pointer: UnsafeMutablePointer<GstMessage>

    init(_ pointer: UnsafeMutablePointer<GstMessage>) { self.pointer = pointer }

    deinit { gst_message_unref(pointer) }

    var type: GstMessageType { pointer.pointee.type }
}
