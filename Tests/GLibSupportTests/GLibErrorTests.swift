import CGLib
import GLibSupport
import Testing

/// The one gate from a `GError` to a Swift error: copied out, freed, thrown.
struct GLibErrorTests {
    @Test func aCallThatSetsNoErrorReturnsItsValue() throws {
        let value = try GLibError.check { _ in 42 }
        #expect(value == 42)
    }

    @Test func aCallThatSetsAnErrorThrowsItsDomainCodeAndMessage() {
        var contents: UnsafeMutablePointer<gchar>?
        do {
            _ = try GLibError.check { g_file_get_contents("/nonexistent/fetchplay", &contents, nil, $0) }
            Issue.record("nothing was thrown")
        } catch {
            #expect(error.matches(g_file_error_quark(), G_FILE_ERROR_NOENT.rawValue))
            // GLib's words, in whatever language the process runs in, name the file.
            #expect(error.message.contains("/nonexistent/fetchplay"))
        }
        #expect(contents == nil)
    }

    @Test func anErrorSetWhateverTheCallReturnedIsThrown() {
        let domain = g_quark_from_string("fetchplay-test")
        do {
            _ = try GLibError.check { error in
                g_set_error_literal(error, domain, 7, "boom")
                return 1
            }
            Issue.record("nothing was thrown")
        } catch {
            #expect(error.matches(domain, 7))
            #expect(!error.matches(domain, 8))
            #expect(error.description == "boom")
        }
    }
}
