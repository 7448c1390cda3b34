import Glibc
import ThreadKit

/// What a remux of one presentation writes, and what it reads.
public struct PresentationRemuxPlan: Sendable, Equatable {
    /// Which streams of an input go into the file.
    public enum Input: Sendable, Equatable {
        /// Its video and its audio (a variant that carries both).
        case videoAndAudio
        /// Its video only: the audio comes from a rendition of its own.
        case video
        /// Its audio only (an `EXT-X-MEDIA` audio rendition).
        case audio
    }

    /// The file to write (created or truncated).
    public var output: String
    /// One per stream of segments, in the order `append` numbers them.
    public var inputs: [Input]
}

/// A remux that takes each input's segments, in the clear and in order, while later ones still
/// download: GStreamer's, handed in by a module that may import it.
///
/// `append` and `end` are called from one thread per input, `finish` and `cancel` from the
/// download's own thread once every input ended or the download stops.
public protocol PresentationRemuxStream: AnyObject, Sendable {
    /// The next `count` bytes of input `index`, which `fill` writes into the remux's own
    /// memory (so they are copied once); may wait while the remux is behind.
    func append(count: Int, to index: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) throws
    /// Input `index` has no more bytes.
    func end(_ index: Int)
    /// Waits until the file is whole.
    func finish() throws
    /// Stops at once; `append` returns, the output is left half written.
    func cancel()
}

extension PresentationRemuxStream {
    /// Appends bytes already in memory (decrypted ones).
    func append(_ bytes: [UInt8], to index: Int) throws {
        try append(count: bytes.count, to: index) { $0.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: bytes.count)) }
    }
}

/// Starts a remux for a plan: GStreamer's in the app, nil in FetchCore's own tests, which then
/// get the segments joined as they are.
public typealias PresentationRemux = @Sendable (PresentationRemuxPlan) throws -> any PresentationRemuxStream

/// The stream when there is no remux: each input's segments joined into a file of its own,
/// the first one (`plan.output`) being the video. MPEG-TS joins this way by design; fragmented
/// MP4 becomes one fragmented file.
final class HLSJoinedFile: PresentationRemuxStream {
    private let files: Locked<[(path: String, fd: Int32)]>

    /// Input 0 goes to `output`, input N to `output.N`.
    init(_ plan: PresentationRemuxPlan) throws(DownloadError) {
        var files: [(path: String, fd: Int32)] = []
        for index in plan.inputs.indices {
            let path = index == 0 ? plan.output : plan.output + ".\(index)"
            FileIO.remove(path)
            do {
                files.append((path, try FileIO.open(path, O_WRONLY | O_CREAT | O_TRUNC)))
            } catch {
                files.forEach { FileIO.close($0.fd) }
                throw error
            }
        }
        self.files = Locked(files)
    }

    func append(count: Int, to index: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
        let file = files.withLock { $0[index] }
        guard file.fd >= 0 else { throw DownloadError.other("the joined file is closed") }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        defer { buffer.deallocate() }
        try fill(buffer)
        try FileIO.writeAll(file.fd, UnsafeRawBufferPointer(buffer), path: file.path)
    }

    func end(_ index: Int) { close(index) }

    func finish() throws { files.withLock { $0.indices }.forEach(close) }

    func cancel() { files.withLock { $0.indices }.forEach(close) }

    private func close(_ index: Int) {
        let fd = files.withLock { files -> Int32 in
            defer { files[index].fd = -1 }
            return files[index].fd
        }
        if fd >= 0 { FileIO.close(fd) }
    }
}
