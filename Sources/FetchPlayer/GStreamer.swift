import CGLib
import CGStreamer
import GLibSupport

/// The few GStreamer helpers every part of the player shares: initialisation, elements,
/// properties and time units.
enum GStreamer {
    /// Nanoseconds in one second (`GST_SECOND`).
    static let second: Double = 1_000_000_000

    /// `GST_CLOCK_TIME_NONE`.
    static let clockTimeNone = GstClockTime.max

    private static let initialized: Void = { gst_init(nil, nil) }()

    /// Initialises GStreamer once per process; later calls do nothing.
    static func initialize() { _ = initialized }

    /// A new element from `factory`, or nil when the plug-in providing it is not installed.
    static func make(_ factory: String, name: String? = nil) -> UnsafeMutablePointer<GstElement>? {
        initialize()
        return gst_element_factory_make(factory, name)
    }

    /// A value for `setProperty`, converted to the property's own type (int, uint, enum, flags…).
    enum PropertyValue {
        case bool(Bool)
        case int(Int64)
        case double(Double)
        case string(String)
        /// A GObject (an element, for `video-sink`); the property takes its own reference.
        case object(UnsafeMutableRawPointer?)
        /// A boxed value such as `GstCaps`.
        case boxed(UnsafeRawPointer?)
    }

    /// Sets a GObject property through a `GValue` of the property's declared type.
    ///
    /// `g_object_set` is variadic and unavailable in Swift; this is the one place that replaces it.
    /// A name the object lacks, or a value its type cannot hold, is thrown (and logged) instead
    /// of ending the process: the caller decides whether playback can go on without it.
    static func setProperty(_ object: some GObjectPointer, _ name: String, _ value: PropertyValue) throws(GStreamerError) {
        let gobject = object.as(GObject.self)
        let objectClass = fetchplay_object_get_class(gobject)
        let typeName = { String(cString: g_type_name(objectClass!.pointee.g_type_class.g_type)) }
        guard let spec = g_object_class_find_property(objectClass, name) else {
            throw GStreamerError.noSuchProperty(type: typeName(), name: name).logged()
        }
        let valueType = spec.pointee.value_type
        guard spec.pointee.flags.rawValue & G_PARAM_WRITABLE.rawValue != 0,
              spec.pointee.flags.rawValue & G_PARAM_CONSTRUCT_ONLY.rawValue == 0 else {
            throw GStreamerError.wrongValue(type: typeName(), name: name).logged()
        }
        var gvalue = GValue()
        g_value_init(&gvalue, valueType)
        defer { g_value_unset(&gvalue) }
        let fundamental = g_type_fundamental(valueType)
        let taken: Bool
        switch value {
        case .bool(let flag):
            taken = fetchplay_value_set_number(&gvalue, flag ? 1 : 0, 0, 0) != 0
        case .int(let number):
            taken = fetchplay_value_set_number(&gvalue, gint64(number), 0, 0) != 0
        case .double(let number):
            taken = fetchplay_value_set_number(&gvalue, 0, number, 1) != 0
        case .string(let text):
            taken = fundamental == Self.stringType
            if taken { g_value_set_string(&gvalue, text) }
        case .object(let pointer):
            // NULL clears an object property; anything else must be of the property's type.
            taken = fundamental == Self.objectType
                && (pointer.map { g_type_check_instance_is_a($0.assumingMemoryBound(to: GTypeInstance.self), valueType) != 0 } ?? true)
            if taken { g_value_set_object(&gvalue, pointer) }
        case .boxed(let pointer):
            taken = fundamental == Self.boxedType
            if taken { g_value_set_boxed(&gvalue, pointer) }
        }
        guard taken else { throw GStreamerError.wrongValue(type: typeName(), name: name).logged() }
        g_object_set_property(gobject, name, &gvalue)
    }

    /// `G_TYPE_STRING`, `G_TYPE_BOXED`, `G_TYPE_OBJECT` (macros Swift does not import).
    private static let stringType = GType(16 << 2), boxedType = GType(18 << 2), objectType = GType(20 << 2)

    /// Puts `element` into `bin`, which then owns it. On failure the element is not the
    /// caller's either: GStreamer keeps it with its old parent, or frees a floating one.
    static func add(_ element: UnsafeMutablePointer<GstElement>, to bin: some GObjectPointer) throws(GStreamerError) {
        let names = (name(of: element), name(of: bin.as(GstElement.self)))
        guard gst_bin_add(bin.as(GstBin.self), element) != 0 else {
            throw GStreamerError.notAdded(element: names.0, bin: names.1).logged()
        }
    }

    /// Calls `body` with each pad `element` adds (a demuxer's streams), on the streaming thread
    /// that adds it, for as long as the element lives.
    static func onPadAdded(_ element: UnsafeMutablePointer<GstElement>,
                           _ body: @escaping @Sendable (UnsafeMutablePointer<GstPad>) -> Void) {
        let handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GstPad>?, UnsafeMutableRawPointer?) -> Void = { _, pad, data in
            guard let pad else { return }
            CallbackBox<@Sendable (UnsafeMutablePointer<GstPad>) -> Void>.from(data).body(pad)
        }
        element.connect("pad-added", box: CallbackBox(body), handler: unsafeBitCast(handler, to: GCallback.self))
    }

    /// Consumes and drops what `pad` gives (a stream nobody takes), in a fakesink added to `bin`:
    /// unlinked, the stream would stop its demuxer with not-linked, and the whole input with it.
    static func discard(_ pad: UnsafeMutablePointer<GstPad>, in bin: some GObjectPointer) throws(GStreamerError) {
        guard let sink = make("fakesink") else { return }
        do {
            // A fakesink that syncs would hold the stream, and so the whole input, to the clock.
            try setProperty(sink, "sync", .bool(false))
        } catch {
            gst_object_unref(gst_object_ref_sink(sink)) // still floating: sink it to free it
            throw error
        }
        try add(sink, to: bin)
        gst_element_sync_state_with_parent(sink)
        guard let sinkPad = gst_element_get_static_pad(sink, "sink") else { return }
        defer { gst_object_unref(sinkPad) }
        guard gst_pad_link(pad, sinkPad) == GST_PAD_LINK_OK else {
            throw GStreamerError.notLinked(from: name(of: pad), to: name(of: sink)).logged()
        }
    }

    /// Links `from`'s source pad to `to`'s sink pad.
    static func link(_ from: UnsafeMutablePointer<GstElement>, _ to: UnsafeMutablePointer<GstElement>) throws(GStreamerError) {
        guard gst_element_link(from, to) != 0 else {
            throw GStreamerError.notLinked(from: name(of: from), to: name(of: to)).logged()
        }
    }

    /// An element's or a pad's name ("mp4mux0", "src_0"), for messages.
    static func name(of object: some GObjectPointer) -> String {
        String(glibTaking: gst_object_get_name(object.as(GstObject.self))) ?? "?"
    }

    /// The media type a pad offers first ("video/x-h264", "audio/mpeg"); empty when it says none.
    static func mediaType(of pad: UnsafeMutablePointer<GstPad>) -> String {
        guard let caps = gst_pad_query_caps(pad, nil) else { return "" }
        defer { gst_caps_unref(caps) }
        guard gst_caps_get_size(caps) > 0, let structure = gst_caps_get_structure(caps, 0),
              let name = gst_structure_get_name(structure) else { return "" }
        return String(cString: name)
    }

    /// Seconds from a GStreamer time in nanoseconds.
    static func seconds(_ nanoseconds: gint64) -> Double { Double(nanoseconds) / second }

    /// A GStreamer time in nanoseconds from seconds (never negative).
    static func nanoseconds(_ seconds: Double) -> gint64 { gint64(max(0, seconds) * second) }

    /// The element's duration in seconds, when it knows it.
    static func duration(of element: UnsafeMutablePointer<GstElement>) -> Double? {
        var nanoseconds: gint64 = 0
        guard gst_element_query_duration(element, GST_FORMAT_TIME, &nanoseconds) != 0,
              nanoseconds >= 0 else { return nil }
        return seconds(nanoseconds)
    }

    /// The element's position in seconds, when it knows it.
    static func position(of element: UnsafeMutablePointer<GstElement>) -> Double? {
        var nanoseconds: gint64 = 0
        guard gst_element_query_position(element, GST_FORMAT_TIME, &nanoseconds) != 0,
              nanoseconds >= 0 else { return nil }
        return seconds(nanoseconds)
    }

    /// A flushing seek; `accurate` lands on the exact time, otherwise on the nearest key frame.
    /// `rate` is the playback speed from there on (1 normal, 2 twice as fast); every seek sets
    /// it, so a seek that leaves it out would fall back to 1.
    @discardableResult
    static func seek(_ element: UnsafeMutablePointer<GstElement>, to seconds: Double, accurate: Bool,
                     rate: Double = 1) -> Bool {
        let precision = accurate
            ? GST_SEEK_FLAG_ACCURATE.rawValue
            : GST_SEEK_FLAG_KEY_UNIT.rawValue | GST_SEEK_FLAG_SNAP_NEAREST.rawValue
        let flags = GstSeekFlags(rawValue: GST_SEEK_FLAG_FLUSH.rawValue | precision)
        return gst_element_seek(element, rate, GST_FORMAT_TIME, flags, GST_SEEK_TYPE_SET, nanoseconds(seconds),
                                GST_SEEK_TYPE_NONE, -1) != 0
    }

    /// Seconds of the element's running time (the clock since PLAYING, pauses left out): how
    /// long the pipeline has been playing, whatever its speed.
    static func runningTime(of element: UnsafeMutablePointer<GstElement>) -> Double? {
        let time = gst_element_get_current_running_time(element)
        guard time != clockTimeNone else { return nil }
        return Double(time) / second
    }

    /// Whether a regular file exists at `path`.
    static func fileExists(_ path: String) -> Bool {
        g_file_test(path, G_FILE_TEST_IS_REGULAR) != 0
    }
}
