import Foundation
import Localization

/// The request context of a download, kept beside its partial as `partial/KEY.context` (JSON,
/// mode 0600, written atomically), so that Continue, a restart and `fetchplay --download URL`
/// with no options send what the first start sent. It goes when the download finishes or is
/// deleted.
extension Cache {
    func contextPath(for url: String) -> String { partialPath(Self.key(for: url), "context") }

    /// Bytes a context file may have: the cookies of a whole exported store fit.
    static let maxContextBytes = 32 << 20

    /// The context kept for `url`; nil when there is none or it cannot be read (then the
    /// download goes on without one rather than with a part of it).
    public func context(for url: String) -> RequestContext? {
        let path = contextPath(for: url)
        guard let data = FileIO.readSmallFile(path, limit: Self.maxContextBytes) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        do {
            return try decoder.decode(RequestContext.self, from: data)
        } catch {
            // Never the file's contents: they are secrets.
            Log.warning("skipping the unreadable request context \(path)")
            return nil
        }
    }

    /// Keeps `context` for `url`, replacing what was kept; an empty one removes it, and so does
    /// a private one (from a private window), which is never written: its cookies live only in
    /// the memory of the process that was given it (`DownloadWorker`).
    public func keepContext(_ context: RequestContext, for url: String) throws(DownloadError) {
        guard !context.isEmpty, !context.isPrivate else { return forgetContext(for: url) }
        // A page's address may carry a user and password as a link does; the Referer never
        // sends them (`RequestContext.referer(_:for:)`), so the file never keeps them.
        var kept = context
        kept.referer = context.referer.map(WebAddress.withoutCredentials)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do { data = try encoder.encode(kept) } catch { throw .fileSystem(tr("cannot encode a request context")) }
        try FileIO.replaceAtomically(path: contextPath(for: url), contents: data)
    }

    public func forgetContext(for url: String) { FileIO.remove(contextPath(for: url)) }
}
