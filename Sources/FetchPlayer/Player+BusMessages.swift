import CGStreamer

// Bus messages: playbin's bus is watched on the main context (`Pipeline.watchBus`); each message
// of the pipeline open now becomes one `PlaybackEvent` for `PlaybackLife.reduce`, and nothing
// else here changes the phase. Messages of a pipeline already dropped are ignored by generation.

extension Player {
    /// Turns one bus message of the current pipeline into an event. Runs on the main context.
    func handle(_ message: UnsafeMutablePointer<GstMessage>, generation: Int) {
        guard generation == self.generation, let pipeline, phase.failure == nil else { return }
        switch message.pointee.type {
        case GST_MESSAGE_ERROR:
            // A demuxer that read into a part not downloaded may take the end for damage.
            send(.failed(pipeline.feed?.failure ?? PlayerError.from(errorMessage: message, missingPlugin: missingPlugin, path: path)))
        case GST_MESSAGE_ELEMENT:
            if let description = PlayerError.missingPluginDescription(message) {
                missingPlugin = description
            }
        case GST_MESSAGE_EOS:
            // The stream ended where the bytes did: played up to a part not downloaded.
            send(.endOfStream(feedFailure: pipeline.feed?.failure))
        case GST_MESSAGE_STATE_CHANGED:
            guard UnsafeMutableRawPointer(message.pointee.src) == UnsafeMutableRawPointer(pipeline.playbin)
            else { return }
            var old = GST_STATE_VOID_PENDING, new = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
            gst_message_parse_state_changed(message, &old, &new, &pending)
            send(.reached(PlaybackPhase.Level(new)))
        case GST_MESSAGE_DURATION_CHANGED:
            changing { readDuration() }
        case GST_MESSAGE_ASYNC_DONE:
            // A preroll or a seek that ended at a part not downloaded: the sinks prerolled on
            // the end of the stream, and the EOS message would come only once playing.
            let failure = pipeline.feed?.failure
            send(.asyncDone(feedFailure: failure != nil && gst_app_sink_is_eos(pipeline.appsink) != 0 ? failure : nil))
        default:
            break
        }
    }
}

extension PlaybackPhase.Level {
    init(_ state: GstState) {
        switch state {
        case GST_STATE_READY: self = .ready
        case GST_STATE_PAUSED: self = .paused
        case GST_STATE_PLAYING: self = .playing
        default: self = .null
        }
    }

    var gstState: GstState {
        switch self {
        case .null: GST_STATE_NULL
        case .ready: GST_STATE_READY
        case .paused: GST_STATE_PAUSED
        case .playing: GST_STATE_PLAYING
        }
    }
}
