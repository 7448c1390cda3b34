import Foundation
import Glibc
import Localization

extension DownloadWorker {
    /// A file this run finished, made audio only when the download asks for it: its first audio
    /// track copied out without re-encoding (`PresentationSaving.audioTrack`) into a file of the
    /// cache, which then takes the video's place in the videos folder and in its record (`.m4a`,
    /// or `.webm` for Opus and Vorbis); the video goes once the audio is in place.
    ///
    /// A file that is audio already stays as it is. A video finished before this run is never
    /// replaced (a person may have wanted it whole then). A copy that fails keeps the video and
    /// ends in one sentence saying so; one stopped by a pause or a quit keeps the video quietly:
    /// no byte downloaded is lost either way.
    func keepingAudioOnly(_ end: DownloadState, finishedBefore: Bool, options: DownloadOptions) -> DownloadState {
        guard options.audioOnly, !finishedBefore, case .completed(let video) = end,
              let copy = options.presentations.audioTrack else { return end }
        let key = Cache.key(for: url)
        guard var record = cache.loadRecord(at: cache.videoRecordPath(key), key: key),
              !(record.sniffedType ?? record.contentType ?? "").lowercased().hasPrefix("audio/") else { return end }
        let output = cache.partialPath(key, "audio")
        do throws(DownloadError) {
            let lock = try PartialLock(cache: cache, key: key)
            defer { withExtendedLifetime(lock) {} }
            // Made here, the owner's alone (0600): the muxer's file sink would follow the umask.
            FileIO.close(try FileIO.open(output, O_WRONLY | O_CREAT | O_TRUNC))
            let container: AudioContainer
            do {
                container = try copy(video, output, stopSignal)
            } catch {
                FileIO.remove(output)
                return stopSignal.isRaised ? end : .failed(.audioNotSaved("\(error)"))
            }
            let fd = try FileIO.open(output, O_RDONLY)
            defer { FileIO.close(fd) }
            try FileIO.dataSync(fd, path: output)
            guard let size = FileIO.size(of: output), size > 0 else { throw DownloadError.audioNotSaved(tr("the audio file is empty")) }
            let stem = VideoName.fileExtension(of: record.displayName) == nil
                ? record.displayName : (record.displayName as NSString).deletingPathExtension
            record.displayName = stem + "." + container.fileExtension
            record.contentType = container.contentType
            // The video's sniffed type would name the audio's file `.mp4` again.
            record.sniffedType = nil
            record.total = size
            record.durableBytes = size
            let placed = try place(output, over: video, record: &record, key: key)
            board.publish(path: placed, ranges: ByteRanges(prefix: size), total: size)
            report(.progress(DownloadProgress(bytesDone: size, total: size)))
            return .completed(path: placed)
        } catch {
            FileIO.remove(output)
            return .failed(error)
        }
    }

    /// Puts the audio file `source` in the video's place: under the video's own name when the
    /// audio's is the same (a WebM's Vorbis stays `Name.webm`: the record first, then the
    /// rename over the video), else under its own name beside it, after which the video goes.
    private func place(_ source: String, over video: String, record: inout DownloadRecord, key: String) throws(DownloadError) -> String {
        let name = VideoName.make(suggested: record.displayName, contentType: record.contentType, sniffed: nil)
        guard (video as NSString).lastPathComponent == name else {
            let placed = try cache.placeVideo(source, record: &record, key: key)
            if placed != video { FileIO.remove(video) }
            return placed
        }
        let folder = (video as NSString).deletingLastPathComponent
        if !folder.hasPrefix(cache.root + "/") { try FileIO.makeReadable(source) }
        record.file = video
        try cache.saveRecord(record, at: cache.videoRecordPath(key))
        try FileIO.rename(source, video)
        try FileIO.syncDirectory(folder)
        return video
    }
}
