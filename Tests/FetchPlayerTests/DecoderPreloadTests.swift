import CGStreamer
import ThreadKit
import Testing
@testable import FetchPlayer

/// The start-up preload loads the plug-ins of the usual formats on a worker that is joined.
@Suite(.serialized)
struct DecoderPreloadTests {
    private func feature(_ name: String) -> OpaquePointer? {
        GStreamer.initialize()
        return gst_registry_lookup_feature(gst_registry_get(), name)
    }

    /// Every name in the list is a real element of this machine's GStreamer (the test machine
    /// has the packages the README installs), so none is silently skipped for a typo.
    @Test func everyFeatureIsInstalledAndLoadedAfterThePreload() throws {
        let worker = DecoderPreload.start(in: nil)
        // Waited for, not joined at once: a join is a quit, which skips a preload not started.
        worker.flush()
        #expect(worker.join(timeout: 60), "the preload is still running")
        #expect(worker.runningThreads == 0)
        for name in DecoderPreload.features {
            let found = try #require(feature(name), "\(name) is not installed")
            defer { gst_object_unref(UnsafeMutableRawPointer(found)) }
            let plugin = try #require(gst_plugin_feature_get_plugin(found), "\(name) has no plug-in")
            defer { gst_object_unref(UnsafeMutableRawPointer(plugin)) }
            #expect(gst_plugin_is_loaded(plugin) != 0, "\(name)'s plug-in is not loaded")
        }
        #expect(DecoderPreload.load() == DecoderPreload.features.count)
    }
}
