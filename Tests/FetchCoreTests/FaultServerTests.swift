// Tests of the test servers themselves, driven by the curl command-line tool: if FaultServer or
// the nginx helper were wrong, every download test built on them would prove nothing.
import Foundation
import Testing
import TestSupport

/// What one curl run saw: its exit code, the last response's status and headers, the body.
private struct Fetched {
    var exitCode: Int32
    var status: Int
    /// The last response's headers (after redirects), names lowercased.
    var headers: [String: String]
    var body: [UInt8]
}

/// Runs curl on `url` with `options`, keeping the body even when the transfer fails.
private func curl(_ url: String, _ options: [String] = []) throws -> Fetched {
    let folder = try TemporaryDirectory(prefix: "fetchplay-curl")
    let bodyPath = folder.file("body"), headPath = folder.file("head")
    let result = try Command.run("/usr/bin/curl",
                                 ["-sS", "-o", bodyPath, "-D", headPath, "-w", "%{http_code}"] + options + [url],
                                 timeout: .seconds(20))
    var headers: [String: String] = [:]
    let head = (try? String(contentsOfFile: headPath, encoding: .utf8)) ?? ""
    // With -L the file holds every response's head; the last one is the answer that counts.
    for line in head.split(separator: "\r\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("HTTP/") { headers = [:] }
        if let colon = line.firstIndex(of: ":") {
            headers[line[..<colon].lowercased()] = String(line[line.index(after: colon)...].drop { $0 == " " })
        }
    }
    let body = (try? Data(contentsOf: URL(fileURLWithPath: bodyPath))).map { Array($0) } ?? []
    return Fetched(exitCode: result.status, status: Int(result.output) ?? 0, headers: headers, body: body)
}

@Suite struct FaultServerTests {
    let body = TestData.bytes(count: 300_000, seed: 42)
    let etag = "\"v1\""

    @Test func plainGetServesTheExactBytes() throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, etag: etag, lastModified: "Tue, 01 Jul 2025 10:00:00 GMT")
        let fetched = try curl(server.url("/v.bin"))
        #expect(fetched.exitCode == 0)
        #expect(fetched.status == 200)
        #expect(sha256Hex(of: fetched.body) == sha256Hex(of: body))
        #expect(fetched.headers["content-length"] == "300000")
        #expect(fetched.headers["etag"] == etag)
        #expect(fetched.headers["last-modified"] == "Tue, 01 Jul 2025 10:00:00 GMT")
        #expect(fetched.headers["accept-ranges"] == "bytes")
    }

    /// A held part is not sent until released, whatever the answer (whole or a range); the bytes
    /// before it go at once.
    @Test func heldBytesWaitForTheRelease() throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, etag: etag)
        server.hold("/v.bin", offsets: 100_000..<200_000)
        // curl gives up after a second: it has what was sent before the hold.
        let whole = try curl(server.url("/v.bin"), ["--max-time", "1"])
        #expect(whole.body == Array(body[..<100_000]))
        let range = try curl(server.url("/v.bin"), ["--max-time", "1", "-H", "Range: bytes=150000-"])
        #expect(range.body.isEmpty)
        let after = try curl(server.url("/v.bin"), ["-H", "Range: bytes=200000-"])
        #expect(after.body == Array(body[200_000...]))
        #expect(server.bytesSent(of: "/v.bin") == 100_000 + 100_000)
        server.release("/v.bin")
        #expect(try curl(server.url("/v.bin")).body == body)
    }

    @Test func headSendsHeadersOnly() throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, etag: etag)
        let fetched = try curl(server.url("/v.bin"), ["-I"])
        #expect(fetched.status == 200)
        #expect(fetched.headers["content-length"] == "300000")
        #expect(server.requests.map(\.method) == ["HEAD"])
    }

    @Test(arguments: [("bytes=1000-", 1000, 299_999), ("bytes=1000-1999", 1000, 1999), ("bytes=-500", 299_500, 299_999)])
    func rangeGives206AndTheSlice(range: String, low: Int, high: Int) throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, etag: etag)
        let fetched = try curl(server.url("/v.bin"), ["-H", "Range: \(range)", "-H", "If-Range: \(etag)"])
        #expect(fetched.status == 206)
        #expect(fetched.headers["content-range"] == "bytes \(low)-\(high)/300000")
        #expect(fetched.body == Array(body[low...high]))
    }

    @Test func ifRangeMismatchGivesTheWholeBody() throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, etag: etag)
        let fetched = try curl(server.url("/v.bin"), ["-H", "Range: bytes=1000-", "-H", "If-Range: \"old\""])
        #expect(fetched.status == 200)
        #expect(fetched.body == body)
    }

    @Test func weakETagNeverSatisfiesIfRange() throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, etag: "W/\"v1\"")
        let fetched = try curl(server.url("/v.bin"), ["-H", "Range: bytes=1000-", "-H", "If-Range: W/\"v1\""])
        #expect(fetched.status == 200)
    }

    @Test func rangePastTheEndGives416() throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, etag: etag)
        for start in [300_000, 400_000] {
            let fetched = try curl(server.url("/v.bin"), ["-H", "Range: bytes=\(start)-"])
            #expect(fetched.status == 416)
            #expect(fetched.headers["content-range"] == "bytes */300000")
            #expect(fetched.headers["etag"] == etag)
        }
    }

    @Test func dropAfterSendsExactlyThatManyBytesThenBehaves() throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, etag: etag, faults: [.dropAfter(bytes: 1000)], faultyRequests: 1)
        let dropped = try curl(server.url("/v.bin"))
        #expect(dropped.exitCode == 18) // CURLE_PARTIAL_FILE
        #expect(dropped.body == Array(body.prefix(1000)))
        let whole = try curl(server.url("/v.bin"))
        #expect(whole.exitCode == 0)
        #expect(whole.body == body)
    }

    @Test func stallKeepsTheConnectionUntilTheClientGivesUp() throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, faults: [.stallAfter(bytes: 500)])
        let stalled = try curl(server.url("/v.bin"), ["--max-time", "1"])
        #expect(stalled.exitCode == 28) // CURLE_OPERATION_TIMEDOUT
        #expect(stalled.body == Array(body.prefix(500)))
        #expect(waitUntil(timeout: .seconds(5)) { server.activeConnections == 0 })
    }

    @Test func throttledBodyArrivesWhole() throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: Array(body.prefix(40_000)), faults: [.throttle(bytesPerSecond: 400_000)])
        let fetched = try curl(server.url("/v.bin"))
        #expect(fetched.exitCode == 0)
        #expect(fetched.body == Array(body.prefix(40_000)))
    }

    @Test func ignoreRangeAnswers200() throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, etag: etag, faults: [.ignoreRange])
        let fetched = try curl(server.url("/v.bin"), ["-H", "Range: bytes=1000-"])
        #expect(fetched.status == 200)
        #expect(fetched.body == body)
    }

    @Test func wrongContentRangeStartSendsTheBytesOfThatStart() throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, etag: etag, faults: [.wrongRangeStart(shift: 100)])
        let fetched = try curl(server.url("/v.bin"), ["-H", "Range: bytes=1000-"])
        #expect(fetched.status == 206)
        #expect(fetched.headers["content-range"] == "bytes 1100-299999/300000")
        #expect(fetched.body == Array(body[1100...]))
    }

    @Test func wrongContentRangeTotal() throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, etag: etag, faults: [.wrongRangeTotal(shift: 1)])
        let fetched = try curl(server.url("/v.bin"), ["-H", "Range: bytes=1000-"])
        #expect(fetched.status == 206)
        #expect(fetched.headers["content-range"] == "bytes 1000-299999/300001")
        #expect(fetched.body == Array(body[1000...]))
    }

    @Test func changedContentAnswersAResumeWith200AndTheNewBody() throws {
        let server = try FaultServer()
        let newBody = TestData.bytes(count: 200_000, seed: 43)
        server.serve("/v.bin", body: body, etag: etag,
                     faults: [.dropAfter(bytes: 1000), .changeContent(body: newBody, etag: "\"v2\"")], faultyRequests: 1)
        let first = try curl(server.url("/v.bin"))
        #expect(first.body == Array(body.prefix(1000)))
        let resumed = try curl(server.url("/v.bin"), ["-H", "Range: bytes=1000-", "-H", "If-Range: \(etag)"])
        #expect(resumed.status == 200)
        #expect(resumed.headers["etag"] == "\"v2\"")
        #expect(resumed.body == newBody)

        server.replaceContent(of: "/v.bin", body: body, etag: "\"v3\"")
        #expect(try curl(server.url("/v.bin")).headers["etag"] == "\"v3\"")
    }

    @Test func faultStagesApplyInOrder() throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, etag: etag, faults: [.status(503)], faultyRequests: 1)
        server.addFaults([.dropAfter(bytes: 10)], to: "/v.bin", requests: 1)
        #expect(try curl(server.url("/v.bin")).status == 503)
        #expect(try curl(server.url("/v.bin")).body.count == 10)
        #expect(try curl(server.url("/v.bin")).body == body)
    }

    @Test(arguments: [301, 302, 307])
    func redirectsAreFollowed(status: Int) throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, etag: etag)
        server.serve("/old", body: [], faults: [.redirect(status: status, location: "/v.bin")])
        let fetched = try curl(server.url("/old"), ["-L"])
        #expect(fetched.status == 200)
        #expect(fetched.body == body)
        #expect(server.requests.map(\.path) == ["/old", "/v.bin"])
    }

    @Test(arguments: ["ftp://127.0.0.1/x", "file:///etc/passwd"])
    func redirectToAForbiddenScheme(location: String) throws {
        let server = try FaultServer()
        server.serve("/old", body: [], faults: [.redirect(status: 302, location: location)])
        let fetched = try curl(server.url("/old"))
        #expect(fetched.status == 302)
        #expect(fetched.headers["location"] == location)
        let followed = try curl(server.url("/old"), ["-L", "--proto-redir", "=http,https"])
        #expect(followed.exitCode != 0)
    }

    @Test func chunkedHasNoContentLength() throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, faults: [.chunked])
        let fetched = try curl(server.url("/v.bin"))
        #expect(fetched.exitCode == 0)
        #expect(fetched.headers["transfer-encoding"] == "chunked")
        #expect(fetched.headers["content-length"] == nil)
        #expect(fetched.headers["etag"] == nil)
        #expect(fetched.body == body)
        let head = try curl(server.url("/v.bin"), ["-I", "--max-time", "5"])
        #expect(head.exitCode == 0)
        #expect(head.headers["transfer-encoding"] == "chunked")
    }

    @Test(arguments: [403, 404, 500, 503])
    func errorStatus(code: Int) throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, faults: [.status(code)])
        let fetched = try curl(server.url("/v.bin"))
        #expect(fetched.status == code)
        #expect(String(decoding: fetched.body, as: UTF8.self).hasPrefix("\(code) "))
    }

    @Test func unknownPathIs404() throws {
        let server = try FaultServer()
        #expect(try curl(server.url("/nothing")).status == 404)
    }

    @Test func hostileNames() throws {
        let server = try FaultServer()
        let path = "/..%2F..%2Fevil.webm"
        server.serve(path, body: body, faults: [.attachment(filename: "../../evil.webm")])
        let fetched = try curl(server.url(path), ["--path-as-is"])
        #expect(fetched.status == 200)
        #expect(fetched.headers["content-disposition"] == "attachment; filename=\"../../evil.webm\"")
        #expect(server.requests.first?.target == path)
    }

    @Test func requestsAreRecordedAndNeverCompressed() throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, etag: etag)
        server.serve("/w.bin", body: body, etag: etag)
        let fetched = try curl(server.url("/v.bin?x=1"), ["--compressed", "-H", "Range: bytes=5-", "-H", "If-Range: \(etag)"])
        #expect(fetched.headers["content-encoding"] == nil)
        #expect(fetched.body == Array(body[5...]))
        let request = try #require(server.requests(to: "/v.bin").first)
        #expect(request.method == "GET")
        #expect(request.target == "/v.bin?x=1")
        #expect(request["range"] == "bytes=5-")
        #expect(request["If-Range"] == etag)
        #expect(request["accept-encoding"]?.contains("gzip") == true)
        #expect(request.headers.allSatisfy { $0.name == $0.name.lowercased() })

        // One curl run, two URLs: the second request rides the same connection.
        let both = try Command.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-o", "/dev/null",
                                                     server.url("/v.bin"), server.url("/w.bin")])
        #expect(both.status == 0)
        let lastTwo = server.requests.suffix(2)
        #expect(lastTwo.map(\.path) == ["/v.bin", "/w.bin"])
        #expect(Set(lastTwo.map(\.connection)).count == 1)
    }

    @Test func clientLeavingMidResponseIsHarmless() throws {
        let server = try FaultServer()
        let big = TestData.bytes(count: 8 << 20, seed: 5)
        server.serve("/big.bin", body: big)
        // `head` closes the pipe after 1 KiB, so curl quits mid-body and the server meets EPIPE.
        let cut = try Command.run("/bin/sh", ["-c", "/usr/bin/curl -sS \(server.url("/big.bin")) | head -c 1024 > /dev/null"])
        #expect(cut.status == 0)
        #expect(waitUntil(timeout: .seconds(10)) { server.activeConnections == 0 })
        #expect(try curl(server.url("/big.bin")).body.count == big.count)
    }

    @Test func stopEndsStalledConnectionsAndListening() async throws {
        let server = try FaultServer()
        server.serve("/v.bin", body: body, faults: [.stallAfter(bytes: 0)])
        let url = server.url("/v.bin")
        let client = Task.detached { try Command.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-m", "30", url]) }
        #expect(await waitUntil(timeout: .seconds(10)) { server.activeConnections == 1 })
        server.stop()
        #expect(server.activeConnections == 0)
        #expect(!Loopback.isAccepting(port: server.port))
        // The stalled client sees the connection close rather than waiting for its timeout.
        let result = try await client.value
        #expect(result.status == 18 || result.status == 52)
        #expect(!result.timedOut)
    }

    @Test func nginxServesAFolder() throws {
        let site = try TemporaryDirectory()
        let clip = TestData.bytes(count: 1 << 20, seed: 7)
        let path = try site.write(clip, to: "clip.webm")
        let nginx = try Nginx(serving: site.path)
        let fetched = try curl(nginx.url("/clip.webm"))
        #expect(fetched.status == 200, "\(nginx.errorLog)")
        #expect(try sha256Hex(of: fetched.body) == sha256Hex(ofFile: path))
        #expect(try curl(nginx.url("/clip.webm"), ["-H", "Range: bytes=1000-"]).status == 206)
        nginx.stop()
        #expect(!Loopback.isAccepting(port: nginx.port))
    }
}
