import CCurl

// The speed limits' side of an attempt: libcurl pauses a connection the limits have no room for
// (`Transfer`), and the attempt resumes the longest waiting ones first and polls no longer than
// until there is room again.
extension RangeDownload {
    /// Resumes the connections the speed limits paused, if they have room now; returns those
    /// that ended on the piece libcurl handed over then.
    func resumePaused(except done: Set<UnsafeMutableRawPointer>) -> [(handle: UnsafeMutableRawPointer, code: CURLcode)] {
        var ended: [(UnsafeMutableRawPointer, CURLcode)] = []
        // The longest waiting first, so that every connection gets its turn.
        let paused = active.filter { $0.isPaused && !done.contains($0.easy.handle) }
        for transfer in paused.sorted(by: { $0.pausedAt < $1.pausedAt }) {
            guard limits.delay(now: monotonicSeconds()) == 0 else { break }
            let code = transfer.resume()
            if code != CURLE_OK { ended.append((transfer.easy.handle, code)) }
        }
        return ended
    }

    /// How long to wait for the network: 100 ms at most, so that a stop (and a raised limit) is
    /// seen soon; while the primary's speed is watched, no longer than a speed window (a server
    /// that sends in bursts leaves the socket quiet between them); and no longer than until the
    /// limits have room for a paused connection.
    func pollMilliseconds(watchingSpeed: Bool) -> Int32 {
        let most: Int32 = watchingSpeed ? Int32(Self.speedWatch * 1000) : 100
        guard active.contains(where: \.isPaused) else { return most }
        let seconds = limits.delay(now: monotonicSeconds())
        return Int32(min(Double(most), max(1, (seconds * 1000).rounded(.up))))
    }
}
