import CGStreamer

// Effects: what `PlaybackLife.reduce` asks of the pipeline, carried out in the order it returned
// them. An effect that learns something (a duration, the streams, a refused seek) reports it as
// the next event; state changes go to the player's worker through the pipeline, never waited for.

extension Player {
    func perform(_ effect: PlaybackEffect) {
        switch effect {
        case .request(let level):
            pipeline?.request(level.gstState)
        case .seek(let seconds, let accurate):
            guard let pipeline else { return }
            // Frames still on their way are from before the seek; the seek's own come after.
            pipeline.frames.discardWaiting()
            if GStreamer.seek(pipeline.playbin, to: seconds, accurate: accurate, rate: rate) {
                lastPosition = seconds
            } else {
                send(.seekRefused)
            }
        case .readStreams:
            readDuration()
            readStreams()
        case .readDuration:
            readDuration()
        case .switchAudio(let index):
            // Logged where it failed; the track playing goes on.
            if let pipeline { try? GStreamer.setProperty(pipeline.playbin, "current-audio", .int(Int64(index))) }
        case .showSubtitle(let index):
            showSubtitle(index)
        case .redrawPausedFrame:
            if let position { send(.seek(position, accurate: true)) }
        case .stop:
            pipeline?.stop()
        case .rebuild:
            rebuild()
        }
    }

    /// Seconds the pipeline has played (running time: its clock, pauses left out), for tests
    /// that compare it with the position.
    var runningTime: Double? { pipeline.flatMap { GStreamer.runningTime(of: $0.playbin) } }

    func readDuration() {
        // Whole milliseconds: a length refined by a fraction of one (1.0 then 1.000333 s) is no
        // change anyone sees.
        guard let pipeline, let exact = GStreamer.duration(of: pipeline.playbin) else { return }
        let seconds = (exact * 1000).rounded() / 1000
        guard seconds != phase.duration else { return }
        send(.durationKnown(seconds))
    }

    /// Reads playbin's audio and text streams once the first frame is ready.
    func readStreams() {
        guard let pipeline else { return }
        let (audio, currentAudio) = readAudioTracks(pipeline.playbin)
        let (subtitles, currentSubtitle) = readSubtitleTracks(pipeline.playbin)
        send(.streamsKnown(audio: audio, currentAudio: currentAudio, subtitles: subtitles, currentSubtitle: currentSubtitle))
    }

    /// Builds the pipeline again where the video is (a subtitle file was added: playbin takes one
    /// only when it opens a file), keeping the picture shown and whether it plays.
    func rebuild() {
        guard let opened, phase.failure == nil else { return }
        let resume = phase.ended ? 0 : (position ?? phase.pendingSeek?.seconds ?? 0)
        let playing = phase.target == .playing && !phase.ended
        dropPipeline()
        load(uri: opened.uri, feed: opened.source.map(StreamFeed.init), resume: resume, playing: playing)
    }
}
