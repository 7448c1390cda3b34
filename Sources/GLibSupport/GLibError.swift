import CGLib

/// A GLib error (`GError`) as a Swift value: its domain, code and message copied out, the
/// `GError` freed.
///
/// The one gate for `GError`s in Fetchplay: a call with a `GError **` goes through
/// `GLibError.check { … }`, and a `GError` handed over by another API (a GStreamer ERROR
/// message) through `init(taking:)`. So no caller reads `message` or frees one by hand, and
/// none forgets to free it.
public struct GLibError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The error's domain (`G_IO_ERROR`, `GST_STREAM_ERROR`…), as its quark function gives it.
    public let domain: GQuark
    public let code: Int32
    /// The library's own words (translated where it translates them).
    public let message: String

    public init(domain: GQuark, code: Int32, message: String) {
        self.domain = domain
        self.code = code
        self.message = message
    }

    /// Copies `error` out, then frees it.
    public init(taking error: UnsafeMutablePointer<GError>) {
        domain = error.pointee.domain
        code = error.pointee.code
        message = error.pointee.message.map { String(cString: $0) } ?? ""
        g_error_free(error)
    }

    /// Whether it is the error `code` of `domain`.
    public func matches(_ domain: GQuark, _ code: some BinaryInteger) -> Bool {
        self.domain == domain && Int(self.code) == Int(code)
    }

    public var description: String { message }

    /// Runs `call` with a place for a `GError`, and throws the error when the call set one;
    /// otherwise returns what the call returned (which may still be nil or FALSE for a
    /// function that can fail without an error).
    public static func check<Result>(_ call: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> Result)
        throws(GLibError) -> Result {
        var error: UnsafeMutablePointer<GError>?
        let result = call(&error)
        if let error { throw GLibError(taking: error) }
        return result
    }
}
