import CCurl

/// Links inside a playlist, resolved against the playlist's own address per RFC 3986 §5 by
/// libcurl's URL parser (the same one `WebAddress` uses).
enum RelativeLink {
    /// `reference` (relative or absolute) against `base`; nil when the result is no http(s) URL.
    static func resolve(_ reference: String, against base: String) -> String? {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        let flags = UInt32(CURLU_ALLOW_SPACE)
        guard curl_url_set(handle, CURLUPART_URL, base, flags) == CURLUE_OK,
              curl_url_set(handle, CURLUPART_URL, reference, flags) == CURLUE_OK else { return nil }
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, CURLUPART_URL, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        let resolved = String(cString: value)
        let scheme = resolved.prefix { $0 != ":" }.lowercased()
        return scheme == "http" || scheme == "https" ? resolved : nil
    }

    /// A resource's name for a sentence: its last path segment in quotes ("“init.mp4”"),
    /// never its query or any credentials.
    static func quotedName(of url: String) -> String {
        "“" + (WebAddress.lastPathSegment(of: WebAddress.redacted(url)) ?? WebAddress.redacted(url)) + "”"
    }
}
