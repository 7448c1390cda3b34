import CCurl
import Localization

/// One libcurl easy handle, and the one gate its options go through: an option this libcurl
/// refuses (too old for `CURLOPT_PROTOCOLS_STR`, say) is an error, never a setting silently
/// lost, which for the protocol and TLS options would be security silently lost.
///
/// It owns what libcurl reads and writes during a request, the header list and the error buffer,
/// and frees them only after the handle (`deinit`), or the old header list once libcurl holds
/// the next one.
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// Where the request goes now: the first URL, then each redirect's (followed by hand, so
    /// this is also where the redirects ended).
    private(set) var url = ""
    /// The proxy the request goes through, as people may see it (no password); nil: none.
    private(set) var proxyName: String?

    /// libcurl's one-time set-up (TLS among it), done once per process; its result is kept,
    /// since a handle made after a failed one would fail later in less clear ways.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    init() throws(DownloadError) {
        guard Self.globalInit == CURLE_OK, let handle = curl_easy_init() else { throw .other(tr("libcurl could not start")) }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer[0] = 0
    }

    /// The handle goes first: until `curl_easy_cleanup` returns it still points at the header
    /// list and the error buffer (libcurl's documented order for `CURLOPT_HTTPHEADER` and
    /// `CURLOPT_ERRORBUFFER`).
    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// libcurl's own words for the last failure (its error buffer); empty when it had none.
    var errorText: String { String(cString: errorBuffer) }

    /// The rules every request of the engine follows, whatever it fetches: http and https only,
    /// never down from https to http, TLS verified, no compressed encoding (a compressed body
    /// would not match a file's byte offsets), a connect timeout and a stall limit. Redirects
    /// are the caller's to follow (`RedirectRule`), so that a context's host-bound headers stay
    /// with their host. Then `aim(at:)` the first URL.
    func applyEngineRules(options: DownloadOptions) throws(DownloadError) {
        try set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        if let authorities = options.certificateAuthorities { try set(CURLOPT_CAINFO, authorities) }
        try set(CURLOPT_USERAGENT, options.context.userAgent ?? "Fetchplay/\(AppInfo.version)")
        try set(CURLOPT_CONNECTTIMEOUT, options.connectTimeoutSeconds)
        try set(CURLOPT_LOW_SPEED_LIMIT, 1)
        try set(CURLOPT_LOW_SPEED_TIME, options.stallSeconds)
    }

    /// Points the handle at `url`, the first request's or a redirect's, with the header lines
    /// the request needs (`lines`, such as `Range`) and those the options' context allows there,
    /// through the proxy for that URL (the context's own, else the app's as it is now).
    /// `origin` is the request's first URL, the download's link unless `options.origin` names it.
    func aim(at url: String, origin: String, options: DownloadOptions, lines: [[UInt8]]) throws(DownloadError) {
        self.url = url
        try set(CURLOPT_URL, url)
        let proxy = options.context.proxy ?? options.proxy.setting
        // Chosen anew at every hop: a proxy one host needed must not stay for the next, which
        // the desktop's or the environment's rules may send elsewhere (NULL: libcurl's own
        // choice, the environment's).
        try set(CURLOPT_PROXY, optional: proxy.proxy(for: url))
        proxyName = proxy.displayName(for: url)
        let origin = options.origin ?? origin
        // `fields` and `lent` see a downgrade from the origin; this one is from where an https
        // presentation named the resource.
        let bare = options.readOverHTTPS && url.lowercased().hasPrefix("http:")
        try setHeaders(lines + (bare ? [] : options.context.fields(for: url, origin: origin)).map { Array($0.utf8) })
        // Set or cleared at every hop, so that no other host inherits them.
        let credentials = bare ? nil : LinkCredentials.lent(to: url, by: origin)
        try set(CURLOPT_USERNAME, optional: credentials?.user)
        try set(CURLOPT_PASSWORD, optional: credentials?.password)
    }

    /// Replaces the request's extra header lines (each without its CRLF).
    private func setHeaders(_ lines: [[UInt8]]) throws(DownloadError) {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            let appended = (line + [0]).withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { curl_slist_append(list, $0.baseAddress) }
            }
            guard let appended else {
                curl_slist_free_all(list)
                throw .other(tr("out of memory"))
            }
            list = appended
        }
        do {
            try set(CURLOPT_HTTPHEADER, list: list)
        } catch {
            curl_slist_free_all(list)
            throw error
        }
        curl_slist_free_all(headerList)
        headerList = list
    }

    /// Where the answer just received redirects to, in libcurl's absolute form; nil when it
    /// names nowhere.
    var redirectURL: String? {
        var value: UnsafeMutablePointer<CChar>?
        guard fp_curl_getinfo_string(handle, CURLINFO_REDIRECT_URL, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    /// Runs the request to its end on the calling thread (the easy interface).
    func perform() -> CURLcode { curl_easy_perform(handle) }

    func set(_ option: CURLoption, _ value: Int) throws(DownloadError) {
        try check(fp_curl_setopt_long(handle, option, value), option)
    }

    /// libcurl copies string options, so `value` need not outlive the call.
    func set(_ option: CURLoption, _ value: String) throws(DownloadError) {
        try check(fp_curl_setopt_string(handle, option, value), option)
    }

    /// A string option, or libcurl's default for it when `value` is nil.
    func set(_ option: CURLoption, optional value: String?) throws(DownloadError) {
        if let value { try set(option, value) } else { try set(option, pointer: nil) }
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws(DownloadError) {
        try check(fp_curl_setopt_pointer(handle, option, value), option)
    }

    func set(_ option: CURLoption, list value: UnsafeMutablePointer<curl_slist>?) throws(DownloadError) {
        try check(fp_curl_setopt_slist(handle, option, value), option)
    }

    func set(_ option: CURLoption, callback: fp_curl_data_callback) throws(DownloadError) {
        try check(fp_curl_setopt_data_callback(handle, option, callback), option)
    }

    func setProgress(_ callback: fp_curl_xferinfo_callback) throws(DownloadError) {
        try check(fp_curl_setopt_xferinfo_callback(handle, callback), CURLOPT_XFERINFOFUNCTION)
    }

    /// Lets a transfer whose write callback paused it (`CURL_WRITEFUNC_PAUSE`) receive again.
    /// libcurl hands over the piece it kept at once, from inside this call; the code is the
    /// write callback's verdict on it (`CURLE_WRITE_ERROR` when it refused the piece).
    func resume() -> CURLcode { curl_easy_pause(handle, CURLPAUSE_CONT) }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(DownloadError) {
        guard code != CURLE_OK else { return }
        throw .other(String(format: tr("this libcurl cannot set option %1$ld (%2$@)"), Int(option.rawValue),
                                String(cString: curl_easy_strerror(code))))
    }
}

/// libcurl's multi interface: many transfers on the calling thread, no extra locks.
final class CurlMulti {
    private let handle: UnsafeMutableRawPointer

    init() throws(DownloadError) {
        guard let handle = curl_multi_init() else { throw .other(tr("libcurl could not start")) }
        self.handle = handle
    }

    deinit { curl_multi_cleanup(handle) }

    func add(_ easy: CurlEasy) throws(DownloadError) {
        try check(curl_multi_add_handle(handle, easy.handle))
    }

    func remove(_ easy: CurlEasy) {
        _ = curl_multi_remove_handle(handle, easy.handle)
    }

    /// Runs what can run now without blocking; returns the number of transfers still running.
    @discardableResult
    func perform() throws(DownloadError) -> Int {
        var running: Int32 = 0
        try check(curl_multi_perform(handle, &running))
        return Int(running)
    }

    /// Waits up to `milliseconds` for activity on any transfer, or for `wakeUp()`.
    func poll(milliseconds: Int32) throws(DownloadError) {
        try check(curl_multi_poll(handle, nil, 0, milliseconds, nil))
    }

    /// Ends a `poll` early, from any thread.
    func wakeUp() { _ = curl_multi_wakeup(handle) }

    /// The transfers that ended since the last call, with libcurl's result for each.
    func finished() -> [(handle: UnsafeMutableRawPointer, code: CURLcode)] {
        var result: [(UnsafeMutableRawPointer, CURLcode)] = []
        var left: Int32 = 0
        while let message = curl_multi_info_read(handle, &left) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                result.append((easy, fp_curl_msg_result(message)))
            }
        }
        return result
    }

    private func check(_ code: CURLMcode) throws(DownloadError) {
        guard code != CURLM_OK else { return }
        throw .other("libcurl: \(String(cString: curl_multi_strerror(code)))")
    }
}
