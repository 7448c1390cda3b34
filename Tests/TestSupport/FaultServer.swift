// TestSupport: real servers and small helpers shared by the test targets.
//
//   FaultServer          HTTP/1.1 on 127.0.0.1 that serves registered bodies and injects `Fault`s
//     ├ Fault              the ways it misbehaves (drop, stall, throttle, wrong ranges, redirects...)
//     ├ ResponsePlan       the HTTP rules: 200 / 206 / 416, If-Range, faults → what to send
//     ├ HTTPRequestParser  request heads → `RecordedRequest`
//     └ +Core, +Connection threads and sockets
//   Nginx                a real nginx on a free port, serving a folder
//   Clips                short videos made with gst-launch-1.0
//   TestData, Checksum, TemporaryDirectory, Wait, Command   bytes, sha256, folders, polling, processes
//
// Tests wait on conditions (`waitUntil`), never on fixed sleeps, and never assert wall-clock times.
import Glibc

/// An HTTP/1.1 server on 127.0.0.1 that serves bodies registered by path, injects faults, and
/// records every request.
///
/// ```swift
/// let server = try FaultServer()
/// server.serve("/v.webm", body: bytes, etag: "\"v1\"", faults: [.dropAfter(bytes: 1000)], faultyRequests: 1)
/// // download server.url("/v.webm") ...
/// #expect(server.requests(to: "/v.webm").last?["range"] == "bytes=1000-")
/// ```
///
/// Without faults a resource is served correctly: 200 with `Content-Length`, `ETag` and
/// `Last-Modified` when set, `Accept-Ranges: bytes`; `Range: bytes=N-` / `N-M` / `-S` gives 206
/// with `Content-Range`; an `If-Range` that matches neither the strong ETag nor Last-Modified
/// gives 200 with the whole body; a range starting at or past the end gives 416 with
/// `Content-Range: bytes */TOTAL`; HEAD works; connections are kept alive; nothing is ever
/// compressed. Unregistered paths get 404.
///
/// Each connection runs on its own thread; `stop()` (or deinit) closes every socket, wakes stalled
/// and throttled answers, and waits for all threads to end.
public final class FaultServer: Sendable {
    /// The port the kernel chose on 127.0.0.1.
    public let port: Int
    private let core: Core

    /// Starts listening at once on a free port of 127.0.0.1.
    ///
    /// - Parameter sendBuffer: bytes of each connection's kernel send buffer (`SO_SNDBUF`), for
    ///   tests that measure a client's rate by what the server sent: Linux lets it grow to 4 MiB,
    ///   which the server would count as sent long before the client takes it. Nil: the kernel's.
    public init(sendBuffer: Int? = nil) throws {
        let (fd, port) = try Socket.listen()
        self.port = port
        self.core = Core(listener: fd, sendBuffer: sendBuffer)
        core.start()
    }

    deinit { core.stop() }

    /// `http://127.0.0.1:PORT` followed by `path` (which starts with `/`).
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Serves `body` at `path` (matched against the request target without its query, escapes
    /// kept as sent: `/..%2F..%2Fevil.webm` is a valid path), replacing what was there.
    ///
    /// - Parameters:
    ///   - etag: sent as given, quotes included: `"\"v1\""` (or `"W/\"v1\""` for a weak one).
    ///   - etagBytes: an ETag as raw bytes (not UTF-8, say), sent and compared byte for byte.
    ///   - lastModified: an HTTP date, sent as given.
    ///   - headers: extra header lines on every answer.
    ///   - faults: applied to the first `faultyRequests` requests to `path` (HEAD included).
    ///   - faultyRequests: nil applies `faults` to every request.
    public func serve(_ path: String, body: [UInt8], etag: String? = nil, etagBytes: [UInt8]? = nil,
                      lastModified: String? = nil,
                      headers: [HTTPHeader] = [], faults: [Fault] = [], faultyRequests: Int? = nil) {
        let stages = faults.isEmpty ? [] : [ServedResource.Stage(faults: faults, remaining: faultyRequests)]
        let resource = ServedResource(body: body, etag: etag, etagBytes: etagBytes, lastModified: lastModified,
                                      headers: headers, stages: stages)
        core.state.withLock { $0.resources[path] = resource }
    }

    /// Adds `faults` for the `requests` requests to `path` that follow the faults already
    /// scheduled (nil: every one after them), e.g. a drop, then a wrong range, then good answers.
    public func addFaults(_ faults: [Fault], to path: String, requests: Int? = 1) {
        core.state.withLock {
            $0.resources[path]?.stages.append(ServedResource.Stage(faults: faults, remaining: requests))
        }
    }

    /// Gives `path` new content and validators between requests; scheduled faults stay.
    public func replaceContent(of path: String, body: [UInt8], etag: String?, lastModified: String? = nil) {
        core.state.withLock { state in
            state.resources[path]?.body = body
            state.resources[path]?.etag = etag
            state.resources[path]?.lastModified = lastModified
        }
    }

    /// Every request received so far, in arrival order.
    public var requests: [RecordedRequest] { core.state.withLock { $0.requests } }

    /// The requests received so far for `path` (target without query), in arrival order.
    /// Sends none of `path`'s bytes at `offsets`, in any answer, until `release(path)`: an
    /// answer reaching them waits there. A client shows what it can do without them.
    public func hold(_ path: String, offsets: Range<Int>) {
        core.state.withLock { $0.holds[path] = offsets }
    }

    /// Lets `path`'s answers go on after `hold`.
    public func release(_ path: String) {
        core.state.withLock { $0.holds[path] = nil }
    }

    /// Body bytes of `path` sent so far, over every answer.
    public func bytesSent(of path: String) -> Int {
        core.state.withLock { $0.sentTotals[path, default: 0] }
    }

    public func requests(to path: String) -> [RecordedRequest] {
        requests.filter { $0.path == path }
    }

    /// Every send of body bytes so far, in order, across all connections and paths: the
    /// server's own count of what it sent when, to measure a client's rate.
    public var sentBytes: [SentBytes] { core.state.withLock { $0.sent } }

    /// Connections currently open (a stalled answer holds one until the client gives up).
    public var activeConnections: Int { core.state.withLock { $0.openSockets.count } }

    /// Stops listening, closes every connection and waits for the server's threads to end.
    /// Safe to call more than once.
    public func stop() { core.stop() }
}

/// One send of body bytes by `FaultServer`, after the kernel took them.
public struct SentBytes: Sendable {
    public let path: String
    public let at: ContinuousClock.Instant
    public let bytes: Int
    /// Body bytes sent by then, over every connection and path.
    public let total: Int
}

extension [SentBytes] {
    /// Bytes per second sent from `start` to `end` (nil when the sends have not got past `end`).
    public func rate(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Double? {
        guard end > start, let last = self.last, last.at >= end else { return nil }
        return Double(total(at: end) - total(at: start)) / Double(seconds: start.duration(to: end))
    }

    /// Body bytes sent by `instant`.
    public func total(at instant: ContinuousClock.Instant) -> Int {
        last(where: { $0.at <= instant })?.total ?? 0
    }

    /// Bytes per second sent between the send that passed `from` bytes in all and the one that
    /// passed `to` (nil when the sends have not got that far).
    public func rate(fromByte from: Int, toByte to: Int) -> Double? {
        guard let start = first(where: { $0.total >= from }), let end = first(where: { $0.total >= to }),
              end.at > start.at else { return nil }
        return Double(end.total - start.total) / Double(seconds: start.at.duration(to: end.at))
    }
}

extension Double {
    /// A duration in seconds.
    public init(seconds duration: Duration) {
        let parts = duration.components
        self = Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
