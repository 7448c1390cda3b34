import CGtk
import FetchCore
import FetchPlayer
import GLibSupport
import ThreadKit

/// MPRIS on the session bus (`org.mpris.MediaPlayer2.fetchplay`): media keys and GNOME's media
/// controls play, pause and seek the video the window shows, and show its title.
///
/// One per process, on the application's own bus connection (none when the application has no
/// session bus: then there is no MPRIS). It follows the window that opened a video last. The
/// object at `/org/mpris/MediaPlayer2` implements `org.mpris.MediaPlayer2` (Raise, Quit, the
/// identity) and `org.mpris.MediaPlayer2.Player` (PlayPause, Play, Pause, Stop, Seek,
/// SetPosition; PlaybackStatus, Metadata, Position, Rate, Volume), and announces its changes
/// with `PropertiesChanged`.
@MainActor
final class MediaPlayer2 {
    static let busName = "org.mpris.MediaPlayer2.fetchplay"
    static let objectPath = "/org/mpris/MediaPlayer2"
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"

    /// The process's service, made by the first window on a bus.
    private static var shared: MediaPlayer2?

    /// The `GDBusConnection *` (the application's; not owned).
    private let connection: OpaquePointer
    private var ownerID: UInt32 = 0
    private var registrations: [UInt32] = []
    /// The controller whose video the bus sees.
    private weak var controller: PlaybackController?
    /// Counts opened videos, for the track id.
    private var track = 0

    /// The service for `application`, made on first use; nil without a session bus.
    static func service(for application: UnsafeMutablePointer<GtkApplication>) -> MediaPlayer2? {
        if let shared { return shared }
        guard let connection = g_application_get_dbus_connection(application.as(GApplication.self)) else { return nil }
        let service = MediaPlayer2(connection: connection)
        guard service.register() else { return nil }
        shared = service
        return service
    }

    private init(connection: OpaquePointer) {
        self.connection = connection
    }

    // MARK: What the controller tells

    /// `controller` opened a video: the bus now sees it.
    func opened(by controller: PlaybackController) {
        self.controller = controller
        track += 1
        changed(["Metadata", "PlaybackStatus", "CanPlay", "CanPause", "CanSeek"])
    }

    /// Something the bus shows changed in `controller`'s player.
    func playerChanged(_ change: Player.Change, in controller: PlaybackController) {
        guard controller === self.controller else { return }
        switch change {
        case .state: changed(["PlaybackStatus", "CanPlay", "CanPause", "CanSeek"])
        case .duration: changed(["Metadata"])
        case .volume: changed(["Volume"])
        case .rate: changed(["Rate"])
        case .audioTracks, .subtitles: break
        }
    }

    // MARK: The bus side

    private var player: Player? { controller?.player }

    private var trackID: String { "/io/github/fetchplay/Fetchplay/Video/\(track)" }

    private func register() -> Bool {
        guard let node = try? GLibError.check({ g_dbus_node_info_new_for_xml(Self.introspection, $0) }) else { return false }
        defer { g_dbus_node_info_unref(node) }
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = { _, _, _, interface, method, parameters, invocation, data in
            let box = CallbackBox<Weak<MediaPlayer2>>.from(data)
            nonisolated(unsafe) let call = (interface!, method!, parameters!, invocation!)
            MainActor.assumeIsolated {
                guard let service = box.body.object else {
                    return g_dbus_method_invocation_return_dbus_error(call.3, "org.freedesktop.DBus.Error.Failed", "Gone")
                }
                service.call(String(cString: call.0), String(cString: call.1), call.2, call.3)
            }
        }
        vtable.get_property = { _, _, _, interface, name, error, data in
            let box = CallbackBox<Weak<MediaPlayer2>>.from(data)
            nonisolated(unsafe) let names = (interface!, name!)
            nonisolated(unsafe) var value: OpaquePointer?
            MainActor.assumeIsolated {
                value = box.body.object?.property(String(cString: names.0), String(cString: names.1))
            }
            if value == nil { g_set_error_literal(error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_UNKNOWN_PROPERTY.rawValue), "No such property") }
            return value
        }
        vtable.set_property = { _, _, _, _, name, value, error, data in
            let box = CallbackBox<Weak<MediaPlayer2>>.from(data)
            nonisolated(unsafe) let arguments = (name!, value!)
            nonisolated(unsafe) var done = false
            MainActor.assumeIsolated {
                done = box.body.object?.setProperty(String(cString: arguments.0), arguments.1) ?? false
            }
            if !done { g_set_error_literal(error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_PROPERTY_READ_ONLY.rawValue), "Read-only property") }
            return done ? 1 : 0
        }
        for index in 0..<2 {
            guard let interface = node.pointee.interfaces[index] else { return false }
            let box = CallbackBox(Weak(self))
            let id = try? GLibError.check {
                g_dbus_connection_register_object(connection, Self.objectPath, interface, &vtable, box.retainedPointer(), releaseBox, $0)
            }
            guard let id, id != 0 else {
                unregister()
                return false
            }
            registrations.append(id)
        }
        ownerID = g_bus_own_name_on_connection(connection, Self.busName, G_BUS_NAME_OWNER_FLAGS_NONE,
                                               nil, nil, nil, nil)
        return true
    }

    private func unregister() {
        for id in registrations { g_dbus_connection_unregister_object(connection, id) }
        registrations = []
        if ownerID != 0 { g_bus_unown_name(ownerID) }
        ownerID = 0
    }

    private func call(_ interface: String, _ method: String, _ parameters: OpaquePointer,
                      _ invocation: OpaquePointer) {
        switch (interface, method) {
        case (Self.rootInterface, "Raise"):
            controller?.raiseWindow()
        case (Self.rootInterface, "Quit"):
            controller?.quitApplication()
        case (Self.playerInterface, "PlayPause"):
            if player?.state == .playing { player?.pause() } else { player?.play() }
        case (Self.playerInterface, "Play"):
            player?.play()
        case (Self.playerInterface, "Pause"):
            player?.pause()
        case (Self.playerInterface, "Stop"):
            player?.pause()
            player?.seek(to: 0, accurate: true)
        case (Self.playerInterface, "Seek"):
            if let player, let position = player.position {
                seek(player, to: position + Double(Self.int64(parameters, 0)) / 1_000_000)
            }
        case (Self.playerInterface, "SetPosition"):
            if Self.string(parameters, 0) == trackID, let player { seek(player, to: Double(Self.int64(parameters, 1)) / 1_000_000) }
        case (Self.playerInterface, "Next"), (Self.playerInterface, "Previous"):
            break // one video, no list
        default:
            return g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.NotSupported",
                                                              "Fetchplay does not do \(method)")
        }
        g_dbus_method_invocation_return_value(invocation, nil)
    }

    private func seek(_ player: Player, to seconds: Double) {
        player.seek(to: seconds, accurate: true)
        let position = g_variant_new_int64(Self.microseconds(player.position ?? seconds))!
        var arguments: [OpaquePointer?] = [position]
        emit("Seeked", interface: Self.playerInterface, g_variant_new_tuple(&arguments, 1))
    }

    private func property(_ interface: String, _ name: String) -> OpaquePointer? {
        let ready = player?.state.isReady ?? false
        switch name {
        case "CanQuit", "CanRaise": return g_variant_new_boolean(1)
        case "HasTrackList", "CanGoNext", "CanGoPrevious": return g_variant_new_boolean(0)
        case "Identity": return g_variant_new_string("Fetchplay")
        case "DesktopEntry": return g_variant_new_string(AppInfo.id)
        case "SupportedUriSchemes", "SupportedMimeTypes": return g_variant_new_strv(nil, 0)
        case "PlaybackStatus":
            let status = switch player?.state ?? .idle {
            case .playing: "Playing"
            case .paused, .loading: "Paused"
            default: "Stopped"
            }
            return g_variant_new_string(status)
        case "Metadata": return metadata()
        case "Position": return g_variant_new_int64(Self.microseconds(player?.position ?? 0))
        case "Rate": return g_variant_new_double(player?.rate ?? 1)
        case "MinimumRate": return g_variant_new_double(Player.rates.lowerBound)
        case "MaximumRate": return g_variant_new_double(Player.rates.upperBound)
        case "Volume": return g_variant_new_double(player.map { $0.isMuted ? 0 : $0.volume } ?? 1)
        case "CanPlay", "CanPause", "CanSeek": return g_variant_new_boolean(ready ? 1 : 0)
        case "CanControl": return g_variant_new_boolean(1)
        default: return nil
        }
    }

    private func setProperty(_ name: String, _ value: OpaquePointer) -> Bool {
        guard let player else { return false }
        switch name {
        case "Rate": player.rate = g_variant_get_double(value)
        case "Volume":
            player.volume = g_variant_get_double(value)
            if player.volume > 0 { player.isMuted = false }
        default: return false
        }
        return true
    }

    /// `a{sv}`: the track id, the title, the length in microseconds once known.
    private func metadata() -> OpaquePointer {
        var entries: [(String, OpaquePointer)] = []
        if let controller, controller.player?.path != nil {
            entries.append(("mpris:trackid", g_variant_new_object_path(trackID)))
            entries.append(("xesam:title", g_variant_new_string(controller.title)))
            if let duration = controller.player?.duration {
                entries.append(("mpris:length", g_variant_new_int64(Self.microseconds(duration))))
            }
        }
        var children: [OpaquePointer?] = entries.map { g_variant_new_dict_entry(g_variant_new_string($0.0), g_variant_new_variant($0.1)) }
        let type = g_variant_type_new("{sv}")
        defer { g_variant_type_free(type) }
        return g_variant_new_array(type, &children, gsize(children.count))
    }

    /// `PropertiesChanged` for the player interface, with the new values.
    private func changed(_ names: [String]) {
        var children: [OpaquePointer?] = names.compactMap { name in
            property(Self.playerInterface, name).map { g_variant_new_dict_entry(g_variant_new_string(name), g_variant_new_variant($0)) }
        }
        let entryType = g_variant_type_new("{sv}")
        defer { g_variant_type_free(entryType) }
        var arguments: [OpaquePointer?] = [g_variant_new_string(Self.playerInterface)!,
                         g_variant_new_array(entryType, &children, gsize(children.count))!,
                         g_variant_new_strv(nil, 0)!]
        emit("PropertiesChanged", interface: "org.freedesktop.DBus.Properties", g_variant_new_tuple(&arguments, 3))
    }

    private func emit(_ signal: String, interface: String, _ parameters: OpaquePointer?) {
        // A bus gone away takes no signal, and wants none.
        _ = try? GLibError.check { g_dbus_connection_emit_signal(connection, nil, Self.objectPath, interface, signal, parameters, $0) }
    }

    private static func int64(_ tuple: OpaquePointer, _ index: Int) -> gint64 {
        let child = g_variant_get_child_value(tuple, gsize(index))!
        defer { g_variant_unref(child) }
        return g_variant_get_int64(child)
    }

    private static func string(_ tuple: OpaquePointer, _ index: Int) -> String? {
        let child = g_variant_get_child_value(tuple, gsize(index))!
        defer { g_variant_unref(child) }
        return g_variant_get_string(child, nil).map { String(cString: $0) }
    }

    private static func microseconds(_ seconds: Double) -> gint64 {
        seconds.isFinite ? gint64((seconds * 1_000_000).rounded()) : 0
    }

    private static let introspection = """
        <node>
          <interface name="org.mpris.MediaPlayer2">
            <method name="Raise"/>
            <method name="Quit"/>
            <property name="CanQuit" type="b" access="read"/>
            <property name="CanRaise" type="b" access="read"/>
            <property name="HasTrackList" type="b" access="read"/>
            <property name="Identity" type="s" access="read"/>
            <property name="DesktopEntry" type="s" access="read"/>
            <property name="SupportedUriSchemes" type="as" access="read"/>
            <property name="SupportedMimeTypes" type="as" access="read"/>
          </interface>
          <interface name="org.mpris.MediaPlayer2.Player">
            <method name="Next"/>
            <method name="Previous"/>
            <method name="Pause"/>
            <method name="PlayPause"/>
            <method name="Stop"/>
            <method name="Play"/>
            <method name="Seek"><arg direction="in" name="Offset" type="x"/></method>
            <method name="SetPosition">
              <arg direction="in" name="TrackId" type="o"/>
              <arg direction="in" name="Position" type="x"/>
            </method>
            <method name="OpenUri"><arg direction="in" name="Uri" type="s"/></method>
            <signal name="Seeked"><arg name="Position" type="x"/></signal>
            <property name="PlaybackStatus" type="s" access="read"/>
            <property name="Rate" type="d" access="readwrite"/>
            <property name="Metadata" type="a{sv}" access="read"/>
            <property name="Volume" type="d" access="readwrite"/>
            <property name="Position" type="x" access="read"/>
            <property name="MinimumRate" type="d" access="read"/>
            <property name="MaximumRate" type="d" access="read"/>
            <property name="CanGoNext" type="b" access="read"/>
            <property name="CanGoPrevious" type="b" access="read"/>
            <property name="CanPlay" type="b" access="read"/>
            <property name="CanPause" type="b" access="read"/>
            <property name="CanSeek" type="b" access="read"/>
            <property name="CanControl" type="b" access="read"/>
          </interface>
        </node>
        """
}
