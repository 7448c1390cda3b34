import CGLib
import CGStreamer
import FetchCore
import Localization
import ThreadKit

/// Copies a media file's first audio track into a file of its own without re-encoding: what a
/// download that saves only the audio does with a finished progressive file
/// (`PresentationSaving.audioTrack`).
///
/// `filesrc ! parsebin`: the file is read in place (an MP4's index may be at its end, which a
/// demuxer fed as a stream would have to hold the whole file in memory to reach), and parsebin
/// exposes its streams as they are. The first audio stream goes through a queue into `mp4mux`
/// (`.m4a`: AAC, MP3, ALAC, AC-3), or `webmmux` for Opus and Vorbis, which MP4 files here do
/// not carry; every other stream goes into a fakesink. Blocks its caller (a download's worker).
public enum AudioTrackCopier {
    /// The copy as a download takes it.
    public static let copy: AudioTrackCopy = { input, output, stop in try AudioTrackCopier.copy(input, to: output, stop: stop) }

    /// Seconds a copy may take (an hour of audio takes well under one).
    static let timeLimit = 600.0
    /// Seconds between looks at the download's stop signal while the copy runs.
    static let stopCheck = 0.2

    /// Copies `input`'s first audio track into `output`.
    ///
    /// - Throws: `AudioTrackCopyError`: no audio track, a codec no container here takes,
    ///   GStreamer's error, the time limit, or `stop` raised.
    public static func copy(_ input: String, to output: String, stop: StopSignal) throws(AudioTrackCopyError) -> AudioContainer {
        GStreamer.initialize()
        guard let pipeline = gst_pipeline_new("fetchplay-audio-copy") else { throw .failed("no pipeline") }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(pipeline)
        }
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        guard let source = GStreamer.make("filesrc"), let parser = GStreamer.make("parsebin") else {
            throw .failed("filesrc, parsebin (gstreamer1.0-plugins-base)")
        }
        let linker = AudioTrackLinker(bin: bin, output: output)
        do throws(GStreamerError) {
            try GStreamer.add(source, to: bin)
            try GStreamer.add(parser, to: bin)
            try GStreamer.setProperty(source, "location", .string(input))
        } catch {
            throw .failed(error.description)
        }
        guard gst_element_link(source, parser) != 0 else { throw .failed("filesrc ! parsebin") }
        linker.watch(parser)
        let bus: BusWaiter
        do { bus = try BusWaiter(pipeline) } catch { throw .failed(error.message) }
        guard gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE else {
            throw .failed("the pipeline does not start")
        }
        let deadline = ContinuousClock.now + .seconds(timeLimit)
        while true {
            if stop.isRaised { throw .stopped }
            guard ContinuousClock.now < deadline else { throw .timedOut }
            // A short wait, so a pause is heard within `stopCheck` seconds.
            switch bus.next(GstMessageType(rawValue: GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_EOS.rawValue),
                            until: min(deadline, ContinuousClock.now + .seconds(stopCheck))) {
            case .timedOut, .cancelled:
                continue
            case .message(let message):
                if let refused = linker.refused { throw .refused(refused) }
                if message.type == GST_MESSAGE_ERROR {
                    throw .failed(PlayerError.from(errorMessage: message.pointer, missingPlugin: nil, path: nil).message)
                }
                guard let container = linker.container else { throw .noAudio }
                return container
            }
        }
    }
}

/// Why a file's audio track was not copied: a short reason, which a download's sentence
/// quotes (`DownloadError.audioNotSaved`).
public enum AudioTrackCopyError: Error, Sendable, Equatable, CustomStringConvertible {
    case noAudio
    /// Its audio's type (`audio/x-flac`), which neither MP4 nor WebM here takes.
    case refused(String)
    case failed(String)
    case timedOut
    case stopped

    public var description: String {
        switch self {
        case .noAudio: tr("the file has no audio track")
        // TRANSLATORS: %1$@ is a media type such as audio/x-flac.
        case .refused(let type): String(format: tr("its audio (%1$@) fits in neither an M4A nor a WebM file"), type)
        case .failed(let detail): detail
        case .timedOut: tr("copying the audio took too long")
        case .stopped: tr("stopped")
        }
    }
}

/// parsebin's streams, on GStreamer's streaming threads: the first audio into its muxer (made
/// when its type is known) and the file, the rest into fakesinks.
private final class AudioTrackLinker: @unchecked Sendable {
    let bin: UnsafeMutablePointer<GstBin>
    let output: String
    private let state = Locked<(container: AudioContainer?, refused: String?, taken: Bool)>((nil, nil, false))

    init(bin: UnsafeMutablePointer<GstBin>, output: String) {
        self.bin = bin
        self.output = output
    }

    /// The container the audio went into, once linked.
    var container: AudioContainer? { state.withLock { $0.container } }
    /// An audio type no muxer here took.
    var refused: String? { state.withLock { $0.refused } }

    func watch(_ parser: UnsafeMutablePointer<GstElement>) {
        GStreamer.onPadAdded(parser) { [self] pad in link(pad) }
    }

    private func link(_ pad: UnsafeMutablePointer<GstPad>) {
        let media = GStreamer.mediaType(of: pad)
        let first = media.hasPrefix("audio/") && state.withLock { state in
            defer { state.taken = true }
            return !state.taken
        }
        // The other streams are consumed, so that the file still reaches its end.
        guard first else { try? GStreamer.discard(pad, in: bin); return }
        let container: AudioContainer = ["audio/x-opus", "audio/x-vorbis"].contains(media) ? .webm : .mp4
        guard let queue = GStreamer.make("queue"), let mux = GStreamer.make(container == .webm ? "webmmux" : "mp4mux"),
              let sink = GStreamer.make("filesink") else { return refuse(media) }
        do throws(GStreamerError) {
            try GStreamer.setProperty(sink, "location", .string(output))
            for element in [queue, mux, sink] { try GStreamer.add(element, to: bin) }
        } catch {
            return refuse(media)
        }
        guard gst_element_link(mux, sink) != 0, let muxPad = gst_element_request_pad_simple(mux, "audio_%u") else { return refuse(media) }
        defer { gst_object_unref(muxPad) }
        guard let queueSink = gst_element_get_static_pad(queue, "sink"), let queueSource = gst_element_get_static_pad(queue, "src") else {
            return refuse(media)
        }
        defer {
            gst_object_unref(queueSink)
            gst_object_unref(queueSource)
        }
        for element in [sink, mux, queue] { gst_element_sync_state_with_parent(element) }
        guard gst_pad_link(queueSource, muxPad) == GST_PAD_LINK_OK, gst_pad_link(pad, queueSink) == GST_PAD_LINK_OK else {
            return refuse(media)
        }
        state.withLock { $0.container = container }
    }

    /// A stream no muxer here takes: noted, and consumed so that the file still reaches its end.
    private func refuse(_ media: String) {
        state.withLock { $0.refused = $0.refused ?? media }
    }
}
