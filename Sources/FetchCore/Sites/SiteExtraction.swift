import Foundation
import Localization
import ThreadKit

/// yt-dlp asked what a page offers (`yt-dlp -J`), as a child process: never imported, its
/// answer read as hostile input (`SiteMedia`).
///
/// What the page's download knows goes along without reaching its argv or environment (which
/// other users can read): the cookies as a Netscape cookies file, and Referer, User-Agent, the
/// headers given and the proxy (the context's, else the app's: Preferences, `--proxy`,
/// `FETCHPLAY_PROXY`, the desktop's for that page) as a yt-dlp config file
/// (`--config-locations`), both 0600 in a private folder of the cache and removed when it ends.
/// Certificate authorities given to the engine (`--ca-certificate`) are trusted by yt-dlp too:
/// the file's path (no secret) in `SSL_CERT_FILE` and its kin, and certifi's bundle left aside. `--ignore-config` keeps the user's own
/// yt-dlp config from changing what it answers. It may run `timeLimit` seconds and print
/// `outputLimit` bytes; past either it is killed and the answer is one sentence. Its last
/// `ERROR:` line is its sentence; a traceback never shows.
public struct SiteExtraction: Sendable {
    /// Seconds yt-dlp may take for one page.
    public static let defaultTimeLimit = 60.0
    /// Bytes of JSON read at most.
    public static let defaultOutputLimit = 16 << 20

    public let program: String
    /// Where its private files are made (a folder of the cache, 0700).
    public let scratch: String
    public var timeLimit = SiteExtraction.defaultTimeLimit
    public var outputLimit = SiteExtraction.defaultOutputLimit
    /// The environment the child starts from; `FETCHPLAY_PROXY` never reaches it.
    public var environment = ProcessInfo.processInfo.environment
    /// The app's proxy, for a context that names none (`DownloadOptions.proxy`); nil: yt-dlp's
    /// own choice (the environment's).
    public var proxy: ProxySetting?
    /// A file of certificate authorities trusted instead of the system's
    /// (`DownloadOptions.certificateAuthorities`).
    public var certificateAuthorities: String?

    public init(program: String, scratch: String) {
        self.program = program
        self.scratch = scratch
    }

    /// What yt-dlp finds at `page` when asked with `context`.
    ///
    /// - Parameter flat: list a playlist's entries without reading each (`--flat-playlist`);
    ///   else one video (`--no-playlist`).
    /// - Throws: one sentence (`SiteExtractionError.message`), or `.stopped`.
    public func extract(_ page: String, context: RequestContext, flat: Bool = false,
                        stop: StopSignal? = nil) throws(SiteExtractionError) -> SiteMedia {
        let arguments = ["-J", "--no-warnings", "--no-progress", flat ? "--flat-playlist" : "--no-playlist"]
        let result = try run(arguments, page: page, context: context, timeLimit: timeLimit, stop: stop)
        guard result.status == 0 else { throw .failed(SiteSupport.lastErrorLine(result.errorTail)) }
        do {
            return try SiteMedia.parse(Data(result.output))
        } catch {
            throw .unreadable
        }
    }

    /// yt-dlp run on `page` with `arguments`, the context in its private files (removed when it
    /// ends), to its end; `onLine` hears each line it prints.
    ///
    /// - Throws: one sentence when it could not start, ran past `timeLimit`, printed more than
    ///   `outputLimit`, or `.stopped`; a failing exit status is the caller's to judge.
    func run(_ arguments: [String], page: String, context: RequestContext, timeLimit: Double, stop: StopSignal?,
             onLine: ((String) -> Void)? = nil) throws(SiteExtractionError) -> ChildProcess.Result {
        guard let link = try? WebAddress.identity(page) else { throw .failed(nil) }
        do {
            try FileIO.makePrivateFolder(scratch)
        } catch {
            throw .couldNotStart(error.message)
        }
        let stem = scratch + "/yt-dlp-" + UUID().uuidString
        let cookies = stem + ".cookies", config = stem + ".conf"
        defer {
            unlink(cookies)
            unlink(config)
        }
        try write(Self.cookieFile(context, page: link), to: cookies)
        try write(Self.configFile(context, cookies: cookies, proxy: context.proxy ?? proxy, page: link,
                                  certificateAuthorities: certificateAuthorities), to: config)
        var environment = environment
        environment["FETCHPLAY_PROXY"] = nil
        if let certificateAuthorities {
            // Python's ssl (yt-dlp's own handlers), requests and curl_cffi each read one of these.
            for name in ["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"] { environment[name] = certificateAuthorities }
        }
        let child = ChildProcess(program: program, arguments: ["--ignore-config", "--config-locations", config] + arguments + ["--", link],
                                 environment: environment, timeLimit: timeLimit, outputLimit: outputLimit, stop: stop)
        let result: ChildProcess.Result
        do { result = try child.run(onLine: onLine) } catch { throw .couldNotStart(error.reason) }
        switch result.ending {
        case .timedOut: throw .timedOut(seconds: Int(timeLimit))
        case .tooMuchOutput: throw .tooLarge(megabytes: outputLimit >> 20)
        case .stopped: throw .stopped
        case .exited: return result
        }
    }

    /// A new file at `path`, 0600, never through a link, holding `text`.
    private func write(_ text: String, to path: String) throws(SiteExtractionError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .couldNotStart(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw .couldNotStart(String(cString: strerror(errno))) }
            written += count
        }
    }

    /// The context's cookies as a Netscape cookies file: those with their own rules as they are,
    /// a cookie header given by hand for the page's host alone.
    static func cookieFile(_ context: RequestContext, page: String) -> String {
        var lines = ["# Netscape HTTP Cookie File"]
        func line(_ domain: String, _ subdomains: Bool, _ path: String, _ secure: Bool, _ expires: Date?,
                  _ name: String, _ value: String) -> String {
            let expiry = expires.map { String(Int64($0.timeIntervalSince1970)) } ?? "0"
            return [subdomains ? "." + domain : domain, subdomains ? "TRUE" : "FALSE", path, secure ? "TRUE" : "FALSE",
                    expiry, name, value].joined(separator: "\t")
        }
        for cookie in context.cookies {
            lines.append(line(cookie.domain, cookie.includesSubdomains, cookie.path, cookie.secure, cookie.expires,
                              cookie.name, cookie.value))
        }
        if let header = context.cookieHeader, let host = try? URLParts(page).host {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                lines.append(line(host, false, "/", false, nil, String(parts[0]), String(parts[1])))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The options that carry the context, one a line, each value quoted as yt-dlp's config
    /// reader (Python's shlex) reads it back.
    ///
    /// - Parameters:
    ///   - proxy: the one `page`'s requests go through, the context's else the app's (the
    ///     desktop's is asked for `page`); the environment's is yt-dlp's own to read.
    ///   - certificateAuthorities: given: certifi's bundle, which yt-dlp prefers to the
    ///     system's, is left aside, so that `SSL_CERT_FILE` counts.
    static func configFile(_ context: RequestContext, cookies: String, proxy: ProxySetting?, page: String,
                           certificateAuthorities: String?) -> String {
        var lines = ["--cookies " + ShellWord.quoted(cookies)]
        if let referer = context.referer { lines.append("--referer " + ShellWord.quoted(referer)) }
        if let agent = context.userAgent { lines.append("--user-agent " + ShellWord.quoted(agent)) }
        for field in context.headers { lines.append("--add-header " + ShellWord.quoted(field.name + ":" + field.value)) }
        switch proxy {
        case .manual(let proxy)?: lines.append("--proxy " + ShellWord.quoted(proxy))
        case .direct?: lines.append("--proxy ''")
        case .desktop?: if let desktop = ProxySetting.desktop.proxy(for: page) { lines.append("--proxy " + ShellWord.quoted(desktop)) }
        case .environment?, nil: break
        }
        if certificateAuthorities != nil { lines.append("--compat-options no-certifi") }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Why yt-dlp gave no usable answer about a page: one sentence a person can act on.
public enum SiteExtractionError: Error, Sendable, Equatable {
    case timedOut(seconds: Int)
    case tooLarge(megabytes: Int)
    /// It failed; its last `ERROR:` line, when it said one.
    case failed(String?)
    /// Its answer is no JSON object.
    case unreadable
    /// It answered, with no format Fetchplay can fetch yet.
    case noVideo
    case couldNotStart(String)
    /// The download was paused or the app quit while it ran.
    case stopped

    public var message: String {
        switch self {
        case .timedOut(let seconds):
            // TRANSLATORS: %1$ld is a number of seconds.
            String(format: tr("yt-dlp took more than %1$ld seconds to read this page and was stopped; try again later."), seconds)
        case .tooLarge(let megabytes):
            // TRANSLATORS: %1$ld is a number of megabytes.
            String(format: tr("yt-dlp’s answer about this page is larger than %1$ld MB; Fetchplay does not read it."), megabytes)
        case .failed(let line?):
            // TRANSLATORS: %1$@ is yt-dlp's error, in English.
            String(format: tr("yt-dlp could not read this page: %1$@"), line)
        case .failed(nil):
            tr("yt-dlp could not read this page; update site support and try again.")
        case .unreadable:
            tr("yt-dlp’s answer about this page could not be read; update site support and try again.")
        case .noVideo:
            tr("yt-dlp found no video on this page that Fetchplay can download yet.")
        case .couldNotStart(let reason):
            // TRANSLATORS: %1$@ is the system's reason.
            String(format: tr("yt-dlp could not be started (%1$@); update site support and try again."), reason)
        case .stopped:
            tr("Reading the page with yt-dlp was stopped.")
        }
    }
}
