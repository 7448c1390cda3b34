import FetchCore
import FetchViewModel
import Testing

/// The title a link has before its answer names it is the name its record will have, so the
/// window's title line and the library say the same.
struct LinkTitleTests {
    @Test(arguments: [
        ("https://example.org/videos/clip.webm", "clip.webm"),
        ("https://example.org/a%20b.mp4?token=x", "a b.mp4"),
        // What is saved from a playlist or a manifest is a video: not "manifest.mpd".
        ("https://cdn.example.org/stream/manifest.mpd", "manifest"),
        ("https://cdn.example.org/hls/index.m3u8?sig=1", "index"),
        ("https://example.org/list.M3U", "list"),
        ("https://example.org/", "example.org"),
    ])
    func aLinkIsCalledWhatItsRecordWillBeCalled(link: String, title: String) {
        #expect(LinkTitle.of(link) == title)
        #expect(StreamLink.title(of: link) == title)
    }
}
