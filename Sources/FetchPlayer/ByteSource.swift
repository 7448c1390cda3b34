/// Bytes a player reads at any offset while they may still be arriving: a video that plays while
/// it downloads. Read on GStreamer's streaming thread, never on the main thread.
public protocol ByteSource: AnyObject, Sendable {
    /// The whole length in bytes, when known.
    var size: Int64? { get }

    /// Up to `count` bytes from `offset`, waiting up to `timeout` seconds for them; empty when
    /// none arrived yet (or at the end). Throws `ByteSourceError.notDownloaded` when they are not
    /// there and nothing is bringing them (the download is paused or offline), another error when
    /// they cannot be read.
    func read(at offset: Int64, count: Int, timeout: Double) throws -> [UInt8]

    /// Whether the byte at `offset` is there now, without asking for it; nil when the source
    /// cannot tell (then it is read as any other).
    func isAvailable(at offset: Int64) -> Bool?
}

extension ByteSource {
    public func isAvailable(at offset: Int64) -> Bool? { nil }
}

/// Why a `ByteSource` has no bytes at an offset.
public enum ByteSourceError: Error, Equatable, Sendable {
    /// That part of the video is not on disk and no download is running to bring it.
    case notDownloaded
}
