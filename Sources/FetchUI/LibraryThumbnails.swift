import CGtk
import FetchPlayer
import Foundation
import GLibSupport
import Locking

/// Thumbnails (and durations) of finished videos, made once each off the main thread.
///
/// One worker thread at a time decodes a frame with `Thumbnailer` (and probes the duration when
/// the record has none), scales it down to `width` pixels wide there, and hands the small pixels
/// to the main thread, where they become a `GdkTexture`. Full-size frames never reach the UI.
@MainActor
final class LibraryThumbnails {
    /// Pixels wide: twice the 96 logical pixels a row shows, sharp on HiDPI screens too.
    nonisolated static let width = 192

    /// Called on the main thread when a video's thumbnail or duration is ready.
    var onLoaded: (@MainActor (_ path: String, _ duration: Double?) -> Void)?

    nonisolated(unsafe) private var textures: [String: OpaquePointer] = [:]
    private var requested = Set<String>()
    private let worker = DispatchQueue(label: "fetchplay.thumbnails", qos: .utility)

    deinit {
        for texture in textures.values { g_object_unref(texture.rawObject) }
    }

    /// The thumbnail of the video at `path`, once made.
    func texture(for path: String) -> OpaquePointer? { textures[path] }

    /// Makes the thumbnail of `path` unless it was asked for before; with `probeDuration`, the
    /// duration comes along.
    func request(path: String, probeDuration: Bool) {
        guard requested.insert(path).inserted else { return }
        BackgroundWork.async(on: worker, .skippable) {
            let picture = try? Thumbnailer.snapshot(path: path, at: 0.1, timeout: 5)
            let small = picture.map { Self.scaled($0, toWidth: Self.width) }
            let duration = probeDuration ? try? Thumbnailer.probeDuration(path: path) : nil
            MainContext.post { [weak self] in self?.loaded(path: path, small: small, duration: duration) }
        }
    }

    private func loaded(path: String, small: ScaledFrame?, duration: Double?) {
        if let small, small.width > 0, small.height > 0 {
            let bytes = small.pixels.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
            if let texture = gdk_memory_texture_new(Int32(small.width), Int32(small.height),
                                                    GDK_MEMORY_B8G8R8A8_PREMULTIPLIED, bytes, gsize(small.width * 4)) {
                textures[path] = texture
            }
            g_bytes_unref(bytes)
        }
        onLoaded?(path, duration)
    }

    /// A frame scaled down, tightly packed BGRA rows.
    struct ScaledFrame: Sendable {
        var width: Int
        var height: Int
        var pixels: [UInt8]
    }

    /// Scales `frame` to `width` pixels wide (never up), keeping its aspect ratio: each target
    /// pixel is the average of the source pixels it covers (a box filter: no shimmer, no library).
    nonisolated static func scaled(_ frame: VideoFrame, toWidth width: Int) -> ScaledFrame {
        let targetWidth = max(1, min(width, frame.width))
        let targetHeight = max(1, Int((Double(frame.height) * Double(targetWidth) / Double(frame.width)).rounded()))
        var pixels = [UInt8](repeating: 0, count: targetWidth * targetHeight * 4)
        frame.withUnsafeBytes { source in
            for y in 0..<targetHeight {
                let y0 = y * frame.height / targetHeight, y1 = max(y0 + 1, (y + 1) * frame.height / targetHeight)
                for x in 0..<targetWidth {
                    let x0 = x * frame.width / targetWidth, x1 = max(x0 + 1, (x + 1) * frame.width / targetWidth)
                    var sum = (0, 0, 0, 0)
                    for sy in y0..<y1 {
                        var offset = sy * frame.stride + x0 * 4
                        for _ in x0..<x1 {
                            sum.0 += Int(source[offset]); sum.1 += Int(source[offset + 1])
                            sum.2 += Int(source[offset + 2]); sum.3 += Int(source[offset + 3])
                            offset += 4
                        }
                    }
                    let count = (y1 - y0) * (x1 - x0), target = (y * targetWidth + x) * 4
                    pixels[target] = UInt8(sum.0 / count); pixels[target + 1] = UInt8(sum.1 / count)
                    pixels[target + 2] = UInt8(sum.2 / count); pixels[target + 3] = UInt8(sum.3 / count)
                }
            }
        }
        return ScaledFrame(width: targetWidth, height: targetHeight, pixels: pixels)
    }
}
