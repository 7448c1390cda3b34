import CCurl
import Foundation

/// How one HTTP attempt ended.
enum TransferOutcome: Sendable, Equatable {
    /// The body ended; the bytes are in the partial file.
    case finished(finalURL: String?)
    /// The server's answer proves the local bytes are already the whole file (416).
    case alreadyComplete
    /// The answer could not continue the partial; ask again from byte 0.
    case restartFromZero(reason: String)
    /// Pause or cancel was asked for.
    case stopped
    /// `answered`: the server accepted the request with a usable 200 or 206 before it failed.
    case failed(DownloadError, gotBytes: Bool, answered: Bool = false)
}

/// One HTTP request and its body, on the calling (worker) thread, with libcurl's easy interface.
///
/// libcurl calls back into this object from `curl_easy_perform`, which it outlives, so the
/// callbacks get it unretained.
final class Transfer {
    private let url: String
    private let offset: Int64
    private let partial: PartialFile
    private let options: DownloadOptions
    private let stop: StopSignal
    private let onBytes: (Int64, Int64?) -> Void

    private var response = ResponseHead()
    private var decision: ResumeDecision?
    private var total: Int64?
    private var gotBytes = false
    /// An error found inside a callback, which then aborts the transfer.
    private var callbackError: DownloadError?
    private var lastProgress = 0.0

    /// - Parameters:
    ///   - offset: where the partial's durable bytes end (0: no `Range`).
    ///   - onBytes: (bytes in the file being written, total), at most every `progressInterval`.
    init(url: String, offset: Int64, partial: PartialFile, options: DownloadOptions,
         stop: StopSignal, onBytes: @escaping (Int64, Int64?) -> Void) {
        self.url = url
        self.offset = offset
        self.partial = partial
        self.options = options
        self.stop = stop
        self.onBytes = onBytes
    }

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    func perform() -> TransferOutcome {
        _ = Self.globalInit
        guard let handle = curl_easy_init() else { return .failed(.other("libcurl could not start"), gotBytes: false) }
        defer { curl_easy_cleanup(handle) }
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        if offset > 0 {
            headers = curl_slist_append(headers, "Range: bytes=\(offset)-")
            // The validator goes back byte for byte (it passed `HeaderBytes.isSafeToSend`).
            if let validator = partial.record.validator, let bytes = HeaderBytes.bytes(of: validator) {
                let line = Array("If-Range: ".utf8) + bytes + [0]
                headers = line.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { curl_slist_append(headers, $0.baseAddress) }
                }
            }
        }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }
        errorBuffer[0] = 0
        configure(handle, headers: headers, errorBuffer: errorBuffer)

        let code = curl_easy_perform(handle)
        var finalURL: UnsafeMutablePointer<CChar>?
        fp_curl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &finalURL)
        return outcome(code, detail: String(cString: errorBuffer),
                       finalURL: finalURL.map { WebAddress.redacted(String(cString: $0)) })
    }

    private func configure(_ handle: UnsafeMutableRawPointer, headers: UnsafeMutablePointer<curl_slist>?,
                           errorBuffer: UnsafeMutablePointer<CChar>) {
        let this = Unmanaged.passUnretained(self).toOpaque()
        fp_curl_setopt_string(handle, CURLOPT_URL, url)
        fp_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        fp_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        // Only http and https, also for redirects, and never down from https to http.
        fp_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        fp_curl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, url.lowercased().hasPrefix("https:") ? "https" : "http,https")
        fp_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
        fp_curl_setopt_long(handle, CURLOPT_MAXREDIRS, options.maxRedirects)
        fp_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        fp_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
        // No CURLOPT_ACCEPT_ENCODING: a compressed body would not match the file's byte offsets.
        fp_curl_setopt_string(handle, CURLOPT_USERAGENT, "Fetchplay/0.1")
        fp_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, options.connectTimeoutSeconds)
        fp_curl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
        fp_curl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, options.stallSeconds)
        fp_curl_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1)
        fp_curl_setopt_long(handle, CURLOPT_BUFFERSIZE, 256 * 1024)
        fp_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers)
        fp_curl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, user in
            let this = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            let length = size * count
            this.response.consume(line: UnsafeRawBufferPointer(start: data, count: length))
            return length
        }
        fp_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, this)
        fp_curl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, user in
            let this = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            let length = size * count
            return this.receive(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
        }
        fp_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, this)
        fp_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        fp_curl_setopt_xferinfo_callback(handle) { user, _, _, _, _ in
            let this = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            return this.stop.isRaised ? 1 : 0
        }
        fp_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, this)
    }

    /// Decides, once per response, what its body means; opens the file accordingly.
    private func decideIfNeeded() -> ResumeDecision {
        if let decision { return decision }
        let made = ResumePlan.decide(offset: offset, record: partial.record, response: response)
        decision = made
        do {
            switch made {
            case .append:
                total = partial.record.total
                try checkRoom(for: (total ?? offset) - offset)
                if try partial.openForAppend() != offset {
                    // The partial was shorter than its record: it cannot be continued.
                    decision = .restartFromZero(reason: "the partial lost bytes on disk")
                }
            case .fresh(let newTotal, let etag, let lastModified):
                // The new file replaces the old partial once it has passed it.
                try checkRoom(for: (newTotal ?? 0) - partial.durableBytes)
                total = newTotal
                var identity = partial.record
                identity.total = newTotal
                identity.etag = etag
                identity.lastModified = lastModified
                identity.durableBytes = 0
                if let name = response.suggestedName { identity.displayName = name }
                try partial.openFresh(identity)
            case .restartFromZero, .complete, .fail:
                break
            }
        } catch {
            callbackError = error
            decision = .fail(error)
        }
        return decision!
    }

    /// Fails at once when the bytes still to come cannot fit on the disk, instead of filling it
    /// (or waiting for the 10^18 bytes a hostile `Content-Length` promises).
    private func checkRoom(for bytes: Int64) throws(DownloadError) {
        guard bytes > 0, let free = FileIO.availableBytes(in: partial.cache.partialDirectory), bytes > free else { return }
        throw .tooLarge(bytes: bytes, available: free)
    }

    /// Writes a piece of the body; false aborts the transfer.
    private func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        switch decideIfNeeded() {
        case .append, .fresh:
            break
        default:
            return false
        }
        if partial.length == 0, case .fresh = decision,
           let kind = MediaSniffer.document(contentType: response["content-type"], firstBytes: bytes) {
            // Judged on the first bytes, before any is written: nothing of a page is kept.
            callbackError = .notAVideo(kind)
            return false
        }
        if let total, partial.length + Int64(bytes.count) > total {
            callbackError = .badResponse("more bytes than the announced \(total)")
            return false
        }
        do {
            try partial.write(bytes)
        } catch {
            callbackError = error
            return false
        }
        gotBytes = true
        let now = monotonicSeconds()
        if now - lastProgress >= options.progressInterval {
            lastProgress = now
            onBytes(partial.length, total)
        }
        return !stop.isRaised
    }

    private func outcome(_ code: CURLcode, detail: String, finalURL: String?) -> TransferOutcome {
        if let callbackError { return .failed(callbackError, gotBytes: gotBytes) }
        if stop.isRaised { return .stopped }
        if code == CURLE_OUT_OF_MEMORY, response.status != 0, !gotBytes {
            // libcurl 7.88 reports a header past its limit (100 KiB) as "Out of memory".
            return .failed(.badResponse("it sent more header data than a client can read"), gotBytes: false)
        }
        // No usable answer at all (refused, a redirect libcurl would not follow): libcurl's error.
        let answered = response.status != 0 && !(300..<400).contains(response.status)
        if code != CURLE_OK, code != CURLE_WRITE_ERROR, !answered {
            return .failed(CurlError.error(code, url: WebAddress.redacted(url), detail: detail), gotBytes: gotBytes)
        }
        // A body that was empty, or never reached the write callback (416, errors), is decided here.
        switch decideIfNeeded() {
        case .restartFromZero(let reason): return .restartFromZero(reason: reason)
        case .complete: return .alreadyComplete
        case .fail(let error): return .failed(error, gotBytes: gotBytes)
        case .append, .fresh: break
        }
        if let callbackError { return .failed(callbackError, gotBytes: gotBytes) }
        // Here the answer was a usable 200 or 206.
        guard code == CURLE_OK else {
            return .failed(CurlError.error(code, url: WebAddress.redacted(url), detail: detail), gotBytes: gotBytes,
                           answered: true)
        }
        onBytes(partial.length, total)
        if let total, partial.length != total {
            return .failed(.connectionLost("the body ended at \(partial.length) of \(total) bytes"), gotBytes: gotBytes,
                           answered: true)
        }
        return .finished(finalURL: finalURL)
    }
}
