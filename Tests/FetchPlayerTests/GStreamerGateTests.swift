import CGLib
import CGStreamer
import GLibSupport
import Testing
@testable import FetchPlayer

/// The player's gate to GStreamer: a property name, a value, a bin or a link GStreamer refuses
/// is a thrown `GStreamerError`, never the end of the process.
struct GStreamerGateTests {
    /// A new element of ours (its floating reference sunk), freed by `body`'s end.
    private func withElement(_ factory: String, name: String? = nil,
                             _ body: (UnsafeMutablePointer<GstElement>) throws -> Void) throws {
        let element = try #require(GStreamer.make(factory, name: name))
        _ = gst_object_ref_sink(element)
        defer { gst_object_unref(element) }
        try body(element)
    }

    @Test func aPropertyThatExistsIsSet() throws {
        try withElement("fakesrc") { source in
            try GStreamer.setProperty(source, "num-buffers", .int(5))
            #expect(fetchplay_object_get_int(source, "num-buffers") == 5)
        }
    }

    @Test func aWrongPropertyNameThrows() throws {
        try withElement("fakesink") { sink in
            #expect(throws: GStreamerError.noSuchProperty(type: "GstFakeSink", name: "no-such-property")) {
                try GStreamer.setProperty(sink, "no-such-property", .bool(true))
            }
        }
    }

    @Test(arguments: [
        ("sync", "a string"),        // a boolean given a string
        ("name", "a number"),        // a string given a number
        ("last-sample", "a boxed"),  // read-only
        ("sync", "no object"),       // a boolean given an object
    ])
    func aValueThePropertyCannotTakeThrows(_ name: String, _ kind: String) throws {
        let value: GStreamer.PropertyValue = switch kind {
        case "a string": .string("yes")
        case "a number": .int(3)
        case "a boxed": .boxed(nil)
        default: .object(nil)
        }
        try withElement("fakesink") { sink in
            #expect(throws: GStreamerError.wrongValue(type: "GstFakeSink", name: name)) {
                try GStreamer.setProperty(sink, name, value)
            }
        }
    }

    @Test func anObjectOfAnotherTypeThrows() throws {
        try withElement("playbin") { playbin in
            // `video-sink` takes an element; a pad is a GStreamer object but no element.
            let pad = try #require(gst_pad_new("p", GST_PAD_SRC))
            _ = gst_object_ref_sink(pad)
            defer { gst_object_unref(pad) }
            #expect(throws: GStreamerError.wrongValue(type: "GstPlayBin", name: "video-sink")) {
                try GStreamer.setProperty(playbin, "video-sink", .object(UnsafeMutableRawPointer(pad)))
            }
        }
    }

    @Test func aBinRefusesAnElementThatHasAParent() throws {
        let bin = try #require(gst_bin_new("outer"))
        _ = gst_object_ref_sink(bin)
        defer { gst_object_unref(bin) }
        let other = try #require(gst_bin_new("other"))
        _ = gst_object_ref_sink(other)
        defer { gst_object_unref(other) }
        let queue = try #require(GStreamer.make("queue", name: "q"))
        try GStreamer.add(queue, to: bin)
        #expect(throws: GStreamerError.notAdded(element: "q", bin: "other")) {
            try GStreamer.add(queue, to: other)
        }
    }

    @Test func elementsWithoutPadsThatFitAreNotLinked() throws {
        try withElement("fakesink", name: "end") { sink in
            try withElement("fakesrc", name: "start") { source in
                // A sink has no source pad to link from.
                #expect(throws: GStreamerError.notLinked(from: "end", to: "start")) {
                    try GStreamer.link(sink, source)
                }
            }
        }
    }

    @Test func aRefusalIsASentenceForThePerson() {
        let error = GStreamerError.noSuchProperty(type: "GstPlayBin", name: "volumee")
        #expect(error.playerError == .other(error.description))
        #expect(error.playerError.message.contains("volumee"))
    }
}
