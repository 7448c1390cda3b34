import CGLib

extension String {
    /// The text of a string GLib handed over for the caller to free (`gchar *`): copied, then
    /// freed. Nil for none.
    public init?(glibTaking text: UnsafeMutablePointer<gchar>?) {
        guard let text else { return nil }
        defer { g_free(text) }
        self.init(cString: text)
    }

    /// `file:///…` of `path`, percent-encoded as GStreamer and file managers expect; a relative
    /// path is resolved against the working directory. Nil for a name GLib cannot encode.
    public static func fileURI(forPath path: String) -> String? {
        guard let absolute = g_canonicalize_filename(path, nil) else { return nil }
        defer { g_free(absolute) }
        return String(glibTaking: g_filename_to_uri(absolute, nil, nil))
    }
}
