import CGStreamer
import Foundation
import Locking

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

    /// Starts the loading; call it at start-up. Quitting waits for it (see `BackgroundWork`).
    public static func startInBackground() {
        guard let job = BackgroundWork.begin(.skippable) else { return }
        Thread.detachNewThread {
            defer { job.end() }
            load()
        }
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
