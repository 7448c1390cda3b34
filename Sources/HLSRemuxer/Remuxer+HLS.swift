import FetchCore
import FetchPlayer

// FetchCore never imports GStreamer: the HLS download gets its remux from this module, where both
// modules meet (the window and the command line use the same one).
extension Remuxer: PresentationRemuxStream {}

extension Remuxer {
    /// GStreamer's remux of an HLS presentation's segments into one MP4, as a presentation's download takes it (`PresentationSaving.remux`).
    public static let hls: PresentationRemux = { plan in
        try Remuxer(output: plan.output, inputs: plan.inputs.map { input in
            switch input {
            case .videoAndAudio: .videoAndAudio
            case .video: .video
            case .audio: .audio
            }
        })
    }
}
