import CGLib
import CGtk
import GLibSupport
import Testing

/// A signal connection is a token: its handler runs while the token lives and never after it
/// is dropped, and dropping it after its instance is gone (finalized, or disposed by GTK while
/// still referenced) neither crashes nor makes GLib complain.
@Suite(.serialized) @MainActor
struct SignalConnectionTests {
    /// Calls `body` while counting GObject's warnings and criticals (a disconnect of a handler
    /// id the instance no longer has is one).
    func countingComplaints(_ body: () -> Void) -> Int {
        nonisolated(unsafe) var complaints = 0
        let handler = withUnsafeMutablePointer(to: &complaints) { counter in
            g_log_set_handler("GLib-GObject", GLogLevelFlags(rawValue: G_LOG_LEVEL_CRITICAL.rawValue | G_LOG_LEVEL_WARNING.rawValue),
                              { _, _, _, data in data!.assumingMemoryBound(to: Int.self).pointee += 1 },
                              UnsafeMutableRawPointer(counter))
        }
        body()
        g_log_remove_handler("GLib-GObject", handler)
        return complaints
    }

    @Test func theHandlerRunsWhileTheTokenLivesAndNotAfter() {
        let action = g_simple_action_new("test", nil)!
        defer { g_object_unref(action.rawObject) }
        var runs = 0
        var token: SignalConnection? = action.connect("activate") { (_: UnsafeMutableRawPointer?) in runs += 1 }
        g_action_activate(action, nil)
        #expect(runs == 1)
        #expect(token != nil)
        token = nil
        g_action_activate(action, nil)
        #expect(runs == 1, "the handler ran after its token was dropped")
    }

    @Test func storedTokensGoWithTheirOwner() {
        let action = g_simple_action_new("test", nil)!
        defer { g_object_unref(action.rawObject) }
        final class Owner { var connections: [SignalConnection] = [] }
        var owner: Owner? = Owner()
        var runs = 0
        action.connect("activate") { (_: UnsafeMutableRawPointer?) in runs += 1 }.store(in: &owner!.connections)
        g_action_activate(action, nil)
        owner = nil
        g_action_activate(action, nil)
        #expect(runs == 1, "the handler outlived the object that stored its token")
    }

    @Test func droppingATokenAfterItsObjectWasFinalizedIsHarmless() {
        var runs = 0
        var token: SignalConnection?
        let complaints = countingComplaints {
            let action = g_simple_action_new("test", nil)!
            token = action.connect("activate") { (_: UnsafeMutableRawPointer?) in runs += 1 }
            g_action_activate(action, nil)
            g_object_unref(action.rawObject) // finalized here: the token's weak reference clears
            token?.disconnect()
            token = nil
        }
        #expect(runs == 1)
        #expect(complaints == 0, "GLib complained about a disconnect of a finalized instance")
    }

    @Test func droppingATokenAfterItsObjectWasDisposedIsHarmless() {
        // GTK disposes a destroyed widget while references remain; dispose drops its handlers.
        let adjustment = gtk_adjustment_new(0, 0, 10, 1, 1, 0)!
        g_object_ref_sink(adjustment.rawObject)
        defer { g_object_unref(adjustment.rawObject) }
        var runs = 0
        var token: SignalConnection? = adjustment.connect("value-changed") { runs += 1 }
        gtk_adjustment_set_value(adjustment, 3)
        #expect(runs == 1)
        let complaints = countingComplaints {
            g_object_run_dispose(adjustment.as(GObject.self))
            token = nil
        }
        #expect(token == nil)
        #expect(complaints == 0, "GLib complained about a disconnect of a disposed instance")
    }

    @Test func droppingATokenWhoseHandlerIsAlreadyGoneIsHarmless() {
        // The instance lives on, but its handlers were destroyed (as GObject's dispose does).
        let action = g_simple_action_new("test", nil)!
        defer { g_object_unref(action.rawObject) }
        var token: SignalConnection? = action.connect("activate") { (_: UnsafeMutableRawPointer?) in }
        let complaints = countingComplaints {
            g_signal_handlers_destroy(action.rawObject)
            token = nil
        }
        #expect(token == nil)
        #expect(complaints == 0, "GLib complained about a disconnect of a handler already gone")
    }

    @Test func aConnectionKeptForTheObjectsLifeStays() {
        let action = g_simple_action_new("test", nil)!
        defer { g_object_unref(action.rawObject) }
        var runs = 0
        action.connect("activate") { (_: UnsafeMutableRawPointer?) in runs += 1 }.keepForObjectLife()
        g_action_activate(action, nil)
        g_action_activate(action, nil)
        #expect(runs == 2)
    }
}
