import CGStreamer
import ThreadKit

/// Loads the plug-ins of the usual demuxers and decoders on a worker thread at start-up.
///
/// GStreamer loads a plug-in the first time one of its elements is made: for libav's decoders
/// (`avdec_h264`, `avdec_aac`) that is about 140 ms of `dlopen` and registration, paid inside the
/// first video's preroll, between the parser and the decoder. Loading them before anyone presses
/// Play takes that off the first frame; a plug-in that is missing is skipped.
public enum DecoderPreload {
    /// What the videos people fetch are made of: MP4 and WebM/Matroska with H.264, VP8/9, AAC,
    /// Vorbis or Opus, plus the speed filter and the subtitle overlay every pipeline has.
    static let features = [
        "qtdemux", "matroskademux", "h264parse", "avdec_h264", "vp8dec", "vp9dec",
        "avdec_aac", "vorbisdec", "opusdec", "scaletempo", "textoverlay",
    ]

    /// Starts the loading on a worker; call it at start-up and hold the worker (the process's
    /// shutdown joins it in its `.media` stage at the latest).
    ///
    /// GStreamer is initialised first, on the calling thread (the main thread, before any
    /// window): `gst_init` registers and initialises GStreamer's core types, and doing that on
    /// the preload's thread while the main thread initialised GTK's widget classes deadlocked
    /// at start-up once. GLib 2.74 initialises classes and adds interfaces to types under one
    /// process-wide lock, while each type registers inside a one-time initialisation of its
    /// own: two threads doing both can each wait for the other. With the core types made here,
    /// the preload's thread only loads plug-ins.
    public static func start(in shutdown: Shutdown? = .process) -> Worker {
        GStreamer.initialize()
        return Worker.run(name: "fetchplay decoder preload", stage: .media, in: shutdown, .skippable) { load() }
    }

    /// Loads the plug-in of every feature in `features` that is installed; returns how many.
    @discardableResult
    static func load() -> Int {
        GStreamer.initialize()
        var loaded = 0
        for name in features {
            guard let feature = gst_registry_lookup_feature(gst_registry_get(), name) else { continue }
            if let loadedFeature = gst_plugin_feature_load(feature) {
                loaded += 1
                gst_object_unref(UnsafeMutableRawPointer(loadedFeature))
            }
            gst_object_unref(UnsafeMutableRawPointer(feature))
        }
        return loaded
    }
}
