import CGtk
import FetchCore
import FetchViewModel
import FetchPlayer
import Foundation
import GLibSupport
import ThreadKit

/// Thumbnails (and durations) of finished videos, made lazily for the rows on screen.
///
/// A row asks when it is bound to a video (`request`) and withdraws when it scrolls away
/// (`cancel`): only waiting requests are dropped, the newest first served, at most `poolSize`
/// at once on the workers of its own `Thumbnailer`. A worker names the video's content
/// (`ContentFingerprint`), takes `folder/FINGERPRINT.png` when an earlier run made it, else
/// decodes a frame (and probes the duration when the record has none), scales it to `width`
/// pixels wide, and saves the PNG atomically for next time. The texture comes back to the main thread; at most
/// `keptTextures` stay in memory (the rows on screen hold their own).
///
/// When the view goes, so does its thumbnailer: requests not started are dropped, the frames
/// being decoded are cut short, and the process's shutdown joins the workers (`.media`).
@MainActor
final class LibraryThumbnails {
    /// Pixels wide: twice the 96 logical pixels a row shows, sharp on HiDPI screens too.
    nonisolated static let width = 192
    /// Videos decoded at once: a row's frame comes quickly, and a fast scroll never starts dozens.
    static let poolSize = 2
    /// Textures kept for rows that scrolled away and may come back (about 80 KB each, and as
    /// much again for the renderer's copy under cairo): two screenfuls.
    static let keptTextures = 48

    /// Where thumbnails are kept between runs (`ROOT/thumbnails`); nil: not kept.
    var folder: String?
    /// Called on the main thread when a video's thumbnail or duration is ready.
    private let loaded = Observers<(path: String, duration: Double?)>()

    /// Calls `body` with each video whose thumbnail (and duration, when asked) was made.
    func observeLoaded(_ body: @escaping @MainActor (_ path: String, _ duration: Double?) -> Void) -> ObserverToken {
        loaded.observe { body($0.path, $0.duration) }
    }

    private struct Request {
        var path: String
        var probeDuration: Bool
    }

    nonisolated(unsafe) private var textures: [String: OpaquePointer] = [:]
    /// When each texture was last asked for, to let the oldest go.
    private var lastUse: [String: Int] = [:]
    private var clock = 0
    /// Waiting, the newest last (served first: the rows just scrolled to).
    private var waiting: [Request] = []
    private var running = Set<String>()
    /// Made (or found impossible) in this run: never asked for twice.
    private var finished = Set<String>()
    private let thumbnailer = Thumbnailer(threads: poolSize)

    deinit {
        for texture in textures.values { g_object_unref(texture.rawObject) }
    }

    /// The thumbnail of the video at `path`, once made.
    func texture(for path: String) -> OpaquePointer? {
        guard let texture = textures[path] else { return nil }
        clock += 1
        lastUse[path] = clock
        return texture
    }

    /// Asks for the thumbnail of `path` (with `probeDuration`, its duration too) unless it is
    /// made, being made, or could not be made.
    func request(path: String, probeDuration: Bool) {
        guard textures[path] == nil, !finished.contains(path), !running.contains(path) else { return }
        if !waiting.contains(where: { $0.path == path }) { requestedCount += 1 }
        waiting.removeAll { $0.path == path }
        waiting.append(Request(path: path, probeDuration: probeDuration))
        startWaiting()
    }

    /// The row of `path` scrolled away: its thumbnail is not made unless it started already.
    func cancel(path: String) {
        waiting.removeAll { $0.path == path }
    }

    /// Thumbnails waiting or being made (the bench waits for none).
    var pending: Int { waiting.count + running.count }

    /// Thumbnails asked for since the view was made (each video once).
    private(set) var requestedCount = 0

    private func startWaiting() {
        while running.count < Self.poolSize, let next = waiting.popLast() {
            running.insert(next.path)
            let folder = folder
            thumbnailer.submit { probes in
                let made = Self.make(path: next.path, folder: folder, probeDuration: next.probeDuration, probes: probes)
                // A texture made for a view that went meanwhile is let go where it arrives.
                MainContext.post { [weak self] in
                    guard let self else {
                        if let texture = made.texture { g_object_unref(texture.rawObject) }
                        return
                    }
                    self.loaded(path: next.path, made: made)
                }
            }
        }
    }

    /// What a worker made: a texture (its reference handed over) and maybe a duration.
    private struct Made: @unchecked Sendable {
        var texture: OpaquePointer?
        var duration: Double?
    }

    private func loaded(path: String, made: Made) {
        running.remove(path)
        finished.insert(path)
        if let texture = made.texture {
            if let old = textures[path] { g_object_unref(old.rawObject) }
            textures[path] = texture
            clock += 1
            lastUse[path] = clock
            forgetOldest()
        }
        loaded.notify((path, made.duration))
        startWaiting()
        // A screenful decoded on worker threads left their arenas full of freed frames.
        if pending == 0 { FreedMemory.release() }
    }

    private func forgetOldest() {
        guard textures.count > Self.keptTextures else { return }
        for (path, _) in lastUse.sorted(by: { $0.value < $1.value }).prefix(textures.count - Self.keptTextures) {
            if let texture = textures.removeValue(forKey: path) { g_object_unref(texture.rawObject) }
            lastUse[path] = nil
            // Asked for again if its row comes back (from the disk by then).
            finished.remove(path)
        }
    }

    /// On a worker: the saved thumbnail, else a new one (saved) from the video's picture
    /// (`VideoPicture`: its page's poster, its site's thumbnail; an audio file has no frame) or
    /// else a frame; the duration when asked.
    nonisolated private static func make(path: String, folder: String?, probeDuration: Bool,
                                         probes: Thumbnailer.Probes) -> Made {
        let fingerprint = folder == nil ? nil : ContentFingerprint.of(path: path)
        let saved = folder.flatMap { folder in fingerprint.map { folder + "/" + $0 + ".png" } }
        var texture = saved.flatMap { FileManager.default.fileExists(atPath: $0) ? loadPNG($0) : nil }
        if texture == nil, let folder, let fingerprint,
           let picture = videoPicture(VideoPicture.path(fingerprint: fingerprint, in: folder)) {
            texture = memoryTexture(picture)
            if let texture, let saved { save(texture, to: saved, in: folder) }
        }
        if texture == nil, let picture = try? probes.snapshot(path: path, at: 0.1, timeout: 5) {
            texture = memoryTexture(scaled(picture, toWidth: width))
            if let texture, let saved, let folder { save(texture, to: saved, in: folder) }
        }
        let duration = probeDuration && !probes.isCancelled ? try? probes.probeDuration(path: path) : nil
        return Made(texture: texture, duration: duration)
    }

    nonisolated private static func memoryTexture(_ small: ScaledFrame) -> OpaquePointer? {
        guard small.width > 0, small.height > 0 else { return nil }
        let bytes = small.pixels.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        return gdk_memory_texture_new(Int32(small.width), Int32(small.height),
                                      GDK_MEMORY_B8G8R8A8_PREMULTIPLIED, bytes, gsize(small.width * 4))
    }

    /// A saved thumbnail as a memory texture in the format the renderers draw from. The PNG
    /// loader's texture is kept in the PNG's own format and converted again by the renderer
    /// (under cairo into a surface cached on the texture), so each row held two copies.
    nonisolated private static func loadPNG(_ path: String) -> OpaquePointer? {
        guard let loaded = gdk_texture_new_from_filename(path, nil) else { return nil }
        defer { g_object_unref(loaded.rawObject) }
        let width = Int(gdk_texture_get_width(loaded)), height = Int(gdk_texture_get_height(loaded))
        guard width > 0, height > 0, width <= 4 * Self.width, height <= 4 * Self.width else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        // gdk_texture_download writes B8G8R8A8_PREMULTIPLIED (cairo's ARGB32 in memory).
        pixels.withUnsafeMutableBufferPointer { gdk_texture_download(loaded, $0.baseAddress, gsize(width * 4)) }
        return memoryTexture(ScaledFrame(width: width, height: height, pixels: pixels))
    }

    /// Pixels a video's picture may have on a side: its header is read first, so a small file
    /// that claims a huge image is never decoded.
    nonisolated static let pictureSideLimit: Int32 = 4096

    /// The video's picture at `path` (JPEG, PNG, WebP or GIF from the web), scaled as a frame is;
    /// nil when there is none or it cannot be read.
    nonisolated private static func videoPicture(_ path: String) -> ScaledFrame? {
        var claimedWidth: Int32 = 0, claimedHeight: Int32 = 0
        guard FileManager.default.fileExists(atPath: path), gdk_pixbuf_get_file_info(path, &claimedWidth, &claimedHeight) != nil,
              (1...pictureSideLimit).contains(claimedWidth), (1...pictureSideLimit).contains(claimedHeight),
              let loaded = gdk_texture_new_from_filename(path, nil) else { return nil }
        defer { g_object_unref(loaded.rawObject) }
        let width = Int(gdk_texture_get_width(loaded)), height = Int(gdk_texture_get_height(loaded))
        guard width > 0, height > 0, width <= Int(pictureSideLimit), height <= Int(pictureSideLimit) else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeMutableBufferPointer { gdk_texture_download(loaded, $0.baseAddress, gsize(width * 4)) }
        return pixels.withUnsafeBytes { scaled(width: width, height: height, stride: width * 4, bytes: $0, toWidth: Self.width) }
    }

    /// Written beside its name and renamed into it: a reader never sees half a PNG.
    nonisolated private static func save(_ texture: OpaquePointer, to path: String, in folder: String) {
        try? FileIO.makePrivateFolder(folder)
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        // GdkTexture saves with the umask's modes; a thumbnail shows what a person watched, so
        // it is made the owner's alone before it takes its name.
        if gdk_texture_save_to_png(texture, temporary) != 0, chmod(temporary, 0o600) == 0, rename(temporary, path) == 0 { return }
        unlink(temporary)
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
        frame.withUnsafeBytes { scaled(width: frame.width, height: frame.height, stride: frame.stride, bytes: $0, toWidth: width) }
    }

    /// BGRA pixels `width` × `height`, rows `stride` bytes apart, scaled as `scaled(_:toWidth:)` does.
    nonisolated static func scaled(width sourceWidth: Int, height sourceHeight: Int, stride: Int, bytes source: UnsafeRawBufferPointer,
                                   toWidth width: Int) -> ScaledFrame {
        let frame = (width: sourceWidth, height: sourceHeight, stride: stride)
        let targetWidth = max(1, min(width, frame.width))
        let targetHeight = max(1, Int((Double(frame.height) * Double(targetWidth) / Double(frame.width)).rounded()))
        var pixels = [UInt8](repeating: 0, count: targetWidth * targetHeight * 4)
        do {
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
