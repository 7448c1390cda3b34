/// A yt-dlp of a few shell lines, for tests of the downloads only yt-dlp's own downloader can
/// make: asked for a page (`-J`), it offers one format that needs it (`impersonate`); asked for
/// that format, it "downloads" it from a file on disk, 64 KiB at a time with Fetchplay's progress
/// lines, going on from its `.part` as the real one does, and prints the finished file's path.
public enum FakeYtDlp {
    /// The script's lines (no `#!`).
    ///
    /// - Parameters:
    ///   - title: the video's title in its answer to `-J`.
    ///   - source: the file it copies, of `total` bytes.
    ///   - starts: a file each download run appends its starting offset to.
    ///   - pause: seconds between two pieces.
    public static func script(title: String, source: String, total: Int, starts: String, pause: Double = 0.05) -> String {
        """
        for a in "$@"; do [ "$a" = "-J" ] && json=1; done
        if [ -n "$json" ]; then
          echo '{"id": "v1", "title": "\(title)", "extractor": "fake", "formats": [{"format_id": "imp", "url": "https://127.0.0.1:9/never", "protocol": "https", "impersonate": true, "ext": "mp4"}]}'
          exit 0
        fi
        while [ $# -gt 0 ]; do [ "$1" = "--paths" ] && folder="$2"; shift; done
        part="$folder/video.mp4.part"; total=\(total)
        done=0; [ -f "$part" ] && done=$(stat -c %s "$part")
        echo "$done" >> \(starts)
        while [ "$done" -lt "$total" ]; do
          dd if=\(source) of="$part" bs=65536 skip=$((done / 65536)) seek=$((done / 65536)) count=1 conv=notrunc status=none
          done=$(stat -c %s "$part"); echo "fetchplay-progress $done $total NA"; sleep \(pause)
        done
        mv "$part" "$folder/video.mp4"; echo "$folder/video.mp4"
        """
    }
}
