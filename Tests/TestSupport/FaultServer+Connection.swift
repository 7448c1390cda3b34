import Glibc

extension FaultServer.Core {
    /// Answers requests on one connection until the client closes it, a fault ends it, or the
    /// server stops. The caller closes `fd`.
    func serveConnection(_ fd: Int32, number: Int) {
        var parser = HTTPRequestParser()
        while !isStopping {
            switch parser.next(connection: number) {
            case .failure(.needMoreBytes):
                guard let bytes = Socket.receive(fd) else { return }
                parser.append(bytes)
            case .failure(.malformed):
                _ = send(.text(status: 400), for: "", on: fd, closing: true)
                return
            case .success(let request):
                let plan = state.withLock { state in
                    state.requests.append(request)
                    let faults = state.resources[request.path]?.takeFaults() ?? []
                    let plan = ResponsePlan.make(for: request, resource: state.resources[request.path], faults: faults)
                    if let change = plan.contentChange {
                        state.resources[request.path]?.body = change.body
                        state.resources[request.path]?.etag = change.etag
                        state.resources[request.path]?.lastModified = change.lastModified
                    }
                    return plan
                }
                let completed = send(plan, for: request.path, on: fd, closing: request.wantsClose)
                if !completed || plan.endsConnection || request.wantsClose { return }
            }
        }
    }

    /// Sends the head and the body as `plan` says; false when the answer was cut short (a
    /// fault, the client leaving, or the server stopping).
    private func send(_ plan: ResponsePlan, for path: String, on fd: Int32, closing: Bool) -> Bool {
        var head = Array("HTTP/1.1 \(plan.status) \(ResponsePlan.reasonPhrase(plan.status))\r\n".utf8)
        for header in plan.headers { head += Array("\(header.name): ".utf8) + header.bytes + [13, 10] }
        if closing { head += Array("Connection: close\r\n".utf8) }
        head += [13, 10]
        guard Socket.sendAll(fd, head) else { return false }

        let body = plan.body
        let stop = min(plan.dropAfter ?? .max, plan.stallAfter ?? .max, plan.malformedChunkAfter ?? .max, body.count)
        // Small pieces when throttled keep the rate smooth: about 20 sends a second.
        let pieceSize = plan.throttle.map { max(1, min(16 * 1024, $0 / 20)) } ?? 64 * 1024
        let clock = ContinuousClock()
        var started = clock.now
        var sent = 0
        while sent < stop {
            if let rate = plan.throttle,
               !sleep(until: started + .seconds(Double(sent) / Double(rate)), clock: clock) {
                return false
            }
            var size = pieceSize
            if let trickle = plan.trickle, sent < trickle.bytes {
                guard sleep(until: started + .seconds(Double(sent + 1) / Double(trickle.perSecond)), clock: clock) else { return false }
                size = 1
            }
            let heldAt = clock.now
            // A body's indices are the file's offsets (a range answer is a slice of the file).
            guard let granted = grant(min(size, stop - sent), of: path, at: body.startIndex + sent) else { return false }
            // A hold is not lateness to catch up on: the rate goes on as before it.
            started += heldAt.duration(to: clock.now)
            let piece = body.dropFirst(sent).prefix(granted)
            let ok = plan.chunked
                ? Socket.sendAll(fd, Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + [13, 10])
                : Socket.sendAll(fd, piece)
            guard ok else { return false }
            sent += piece.count
            let now = clock.now
            state.withLock { state in
                state.sentTotal += piece.count
                state.sent.append(SentBytes(path: path, at: now, bytes: piece.count, total: state.sentTotal))
            }
        }
        if sent == body.count {
            return plan.chunked ? Socket.sendAll(fd, Array("0\r\n\r\n".utf8)) : true
        }
        if plan.malformedChunkAfter == sent {
            // Not hexadecimal: no client can read on from here.
            _ = Socket.sendAll(fd, Array("zz\r\n".utf8))
            return false
        }
        if let stall = plan.stallAfter, stall == sent { waitForClientToLeave(fd) }
        return false
    }

    /// How many of `wanted` bytes of `path` from file offset `offset` may go now, waiting while
    /// that offset is held; nil when the server stops meanwhile.
    private func grant(_ wanted: Int, of path: String, at offset: Int) -> Int? {
        while true {
            let granted = state.withLock { state -> Int in
                var granted = wanted
                if let held = state.holds[path] {
                    if held.contains(offset) {
                        granted = 0
                    } else if offset < held.lowerBound {
                        granted = min(wanted, held.lowerBound - offset)
                    }
                }
                state.sentTotals[path, default: 0] += granted
                return granted
            }
            if granted > 0 { return granted }
            if isStopping { return nil }
            usleep(10_000)
        }
    }

    /// Sleeps until `deadline` in short steps so `stop()` is noticed; false when stopping.
    private func sleep(until deadline: ContinuousClock.Instant, clock: ContinuousClock) -> Bool {
        while clock.now < deadline {
            if isStopping { return false }
            let left = clock.now.duration(to: deadline)
            usleep(UInt32(max(1, min(left, .milliseconds(50)).microseconds)))
        }
        return !isStopping
    }

    /// A stall: sends nothing and returns once the client closes or the server stops (which
    /// shuts the socket down and so wakes the poll).
    private func waitForClientToLeave(_ fd: Int32) {
        while !isStopping {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 1000)
            if ready > 0 && Socket.receive(fd) == nil { return }
        }
    }
}
