import CGLib
import CGStreamer
import ThreadKit
@testable import FetchPlayer

/// Listens to the sound a player's silent audio sink receives and tells the pitch a person
/// would hear: the tone's frequency in the samples times the speed the sink plays them at (the
/// segment's rate; with scaletempo the rate is 1 and the samples themselves are stretched).
final class AudioTap: Sendable {
    struct Measure {
        /// The segment's rate the samples are played at (1 when scaletempo stretched them).
        var rate = 0.0
        /// The rate the samples were already changed by (scaletempo's `applied_rate`).
        var appliedRate = 0.0
        var samples = 0
        var cycles = 0
        var sampleRate = 0
        /// The last sample was below the low threshold: the next one above the high one is a cycle.
        var low = false
    }

    private let measure = Locked(Measure())

    /// Taps the sink pad of the player's `silent-audio` fakesink (`AudioOutput.none`).
    @MainActor
    init?(_ player: Player) {
        guard let playbin = player.pipeline?.playbin,
              let sink = gst_bin_get_by_name(playbin.as(GstBin.self), "silent-audio") else { return nil }
        defer { gst_object_unref(sink) }
        guard let pad = gst_element_get_static_pad(sink, "sink") else { return nil }
        defer { gst_object_unref(pad) }
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, Self.probe, Unmanaged.passRetained(self).toOpaque(), Self.release)
    }

    /// Runs where the pad goes away: on the player's state queue, where the pipeline is freed.
    private static let release: GDestroyNotify = { data in
        Unmanaged<AudioTap>.fromOpaque(data!).release()
    }

    /// Runs on the streaming thread (not the main actor's, as a closure written in `init` would).
    private static let probe: GstPadProbeCallback = { pad, info, data in
        let tap = Unmanaged<AudioTap>.fromOpaque(data!).takeUnretainedValue()
        if let pad, let buffer = info?.pointee.data?.assumingMemoryBound(to: GstBuffer.self) {
            tap.receive(buffer, on: pad)
        }
        return GST_PAD_PROBE_OK
    }

    /// The speed the sound plays at (its rate times the applied rate) and the pitch heard, in Hz,
    /// once at least `seconds` of sound at one speed came through; nil before.
    func heard(afterSeconds seconds: Double) -> (speed: Double, hertz: Double)? {
        measure.withLock { measure in
            guard measure.sampleRate > 0, Double(measure.samples) / Double(measure.sampleRate) >= seconds else { return nil }
            let inSamples = Double(measure.cycles) / (Double(measure.samples) / Double(measure.sampleRate))
            return (measure.rate * measure.appliedRate, inSamples * measure.rate)
        }
    }

    private func receive(_ buffer: UnsafeMutablePointer<GstBuffer>, on pad: UnsafeMutablePointer<GstPad>) {
        guard let caps = gst_pad_get_current_caps(pad) else { return }
        defer { gst_caps_unref(caps) }
        let structure = gst_caps_get_structure(caps, 0)
        var rate: Int32 = 0, channels: Int32 = 0
        guard let format = gst_structure_get_string(structure, "format").map({ String(cString: $0) }),
              gst_structure_get_int(structure, "rate", &rate) != 0,
              gst_structure_get_int(structure, "channels", &channels) != 0, channels > 0 else { return }
        var segmentRate = 1.0, appliedRate = 1.0
        if let event = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0) {
            var segment: UnsafePointer<GstSegment>?
            gst_event_parse_segment(event, &segment)
            if let segment {
                segmentRate = segment.pointee.rate
                appliedRate = segment.pointee.applied_rate
            }
            gst_event_unref(event)
        }
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return }
        defer { gst_buffer_unmap(buffer, &map) }
        let bytes = UnsafeRawBufferPointer(start: map.data, count: Int(map.size))
        // The first channel of each frame, as -1...1.
        let values: [Double]
        switch format {
        case "F32LE":
            values = stride(from: 0, to: bytes.count / 4, by: Int(channels)).map {
                Double(bytes.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self))
            }
        case "S16LE":
            values = stride(from: 0, to: bytes.count / 2, by: Int(channels)).map {
                Double(bytes.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) / 32768
            }
        default:
            return
        }
        measure.withLock { measure in
            if measure.rate != segmentRate || measure.appliedRate != appliedRate || measure.sampleRate != Int(rate) {
                measure = Measure(rate: segmentRate, appliedRate: appliedRate, sampleRate: Int(rate))
            }
            for value in values {
                if value < -0.2 { measure.low = true }
                if value > 0.2, measure.low {
                    measure.low = false
                    measure.cycles += 1
                }
            }
            measure.samples += values.count
        }
    }
}
