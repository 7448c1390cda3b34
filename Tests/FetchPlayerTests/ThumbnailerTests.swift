import Testing
import TestSupport
@testable import FetchPlayer

@MainActor
@Suite(.serialized)
struct ThumbnailerTests {
    @Test func snapshotIsABGRAFrameOfTheVideo() throws {
        let frame = try Thumbnailer.snapshot(path: try Clips.mpeg4(), at: 0.5)
        #expect(frame.width == 320 && frame.height == 240 && frame.stride >= 1280)
        let white = frame.pixel(x: 10, y: 10)
        #expect(abs(Int(white.red) - 255) < 16 && abs(Int(white.blue) - 255) < 16, "\(white)")
        let timestamp = try #require(frame.timestamp)
        #expect(timestamp > 0.5 && timestamp < 1.5, "timestamp \(timestamp)")
    }

    @Test func snapshotOnAWorkerAnswersOnTheMainThread() throws {
        var result: Result<VideoFrame, PlayerError>?
        let thumbnailer = Thumbnailer(in: nil)
        thumbnailer.snapshot(path: try Clips.webm()) { result = $0 }
        #expect(runMainLoop { result != nil })
        let frame = try #require(try result?.get())
        #expect(frame.width == 320)
    }

    @Test func probeDurationReadsTheLength() throws {
        let seconds = try Thumbnailer.probeDuration(path: try Clips.webm(seconds: 3))
        #expect(abs(seconds - 3) < 0.2)
    }

    @Test func errorsAreValues() throws {
        let missing = Clips.directory + "/missing.webm"
        #expect(throws: PlayerError.fileNotFound(path: missing)) { try Thumbnailer.snapshot(path: missing) }
        let noise = try Clips.noise()
        #expect(throws: PlayerError.notAVideo) { try Thumbnailer.probeDuration(path: noise) }
        let text = try Clips.textFile()
        #expect(throws: PlayerError.notAVideo) { try Thumbnailer.snapshot(path: text) }
    }
}
