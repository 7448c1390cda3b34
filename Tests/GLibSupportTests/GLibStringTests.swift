import CGLib
import GLibSupport
import Testing

/// Strings GLib hands over: copied and freed; paths as the file URIs GStreamer and file managers take.
struct GLibStringTests {
    @Test func aStringGLibHandsOverIsCopiedAndNoneIsNil() {
        #expect(String(glibTaking: g_strdup("größe")) == "größe")
        #expect(String(glibTaking: nil) == nil)
    }

    @Test func aPathBecomesAPercentEncodedFileURIRelativeOnesFromTheWorkingDirectory() throws {
        #expect(String.fileURI(forPath: "/tmp/a b/ü.mp4") == "file:///tmp/a%20b/%C3%BC.mp4")
        #expect(String.fileURI(forPath: "/tmp/x/../y") == "file:///tmp/y")
        let working = try #require(String(glibTaking: g_get_current_dir()))
        #expect(String.fileURI(forPath: "clip.mp4") == String.fileURI(forPath: working + "/clip.mp4"))
    }
}
