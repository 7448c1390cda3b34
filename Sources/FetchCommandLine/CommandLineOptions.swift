import CGLib
import FetchCore
import Foundation
import Localization

/// The options of `fetchplay`, shared by its two programs: `fetchplay`, which runs the headless
/// modes itself, and `fetchplay-window`, the window, which it hands every other command line
/// to. Both parse them the GLib way on a `GApplication`, so `--help` is the same from either.
public enum CommandLineOptions {
    /// One command-line option: GLib stores its value in the `GVariantDict` under `name`.
    struct Option {
        let name: String
        let argument: GOptionArg
        let description: String
        let argumentName: String?
    }

    /// The options that make `fetchplay` run without a window (and without loading GTK).
    static let headlessNames = ["download", "list", "list-videos", "version", "update-site-support"]

    static var all: [Option] {
        [
            Option(name: "download", argument: G_OPTION_ARG_STRING,
                   // TRANSLATORS: keep URL as it is: it stands for the option's argument.
                   description: tr("Download URL into the cache without opening a window, then exit"),
                   argumentName: "URL"),
            Option(name: "play", argument: G_OPTION_ARG_STRING,
                   // TRANSLATORS: keep URL as it is: it stands for the option's argument.
                   description: tr("Open the window, download URL and play it as soon as it can (in the running window, if there is one)"),
                   argumentName: "URL"),
            Option(name: "list", argument: G_OPTION_ARG_NONE,
                   description: tr("List the videos in the cache, finished and partial, then exit"), argumentName: nil),
            Option(name: "pick", argument: G_OPTION_ARG_STRING,
                   // TRANSLATORS: keep --download, PAGE and N,M as they are.
                   description: tr("With --download PAGE: save only the page's videos N,M (numbers from 1, as --list-videos shows them)"),
                   argumentName: "N,M"),
            Option(name: "list-videos", argument: G_OPTION_ARG_STRING,
                   // TRANSLATORS: keep PAGE as it is: it stands for the option's argument.
                   description: tr("List the videos the web page PAGE offers, one a line (number, title, kind, link), then exit"),
                   argumentName: "PAGE"),
            Option(name: "update-site-support", argument: G_OPTION_ARG_NONE,
                   description: tr("Install or update site support (yt-dlp, in your data folder), which reads the videos of pages Fetchplay cannot read by itself, then exit"),
                   argumentName: nil),
            Option(name: "site-support-channel", argument: G_OPTION_ARG_STRING,
                   // TRANSLATORS: keep --update-site-support, stable and nightly as they are.
                   description: tr("With --update-site-support: follow yt-dlp's stable releases or its nightly builds (kept for the next updates)"),
                   argumentName: "stable|nightly"),
            Option(name: "version", argument: G_OPTION_ARG_NONE,
                   description: tr("Print the version, then exit"), argumentName: nil),
            Option(name: "connections", argument: G_OPTION_ARG_INT,
                   // TRANSLATORS: keep N and --download as they are.
                   description: tr("With --download: N connections at once, 1 to 16 (default: 4, more while the rate grows, up to 8)"), argumentName: "N"),
            Option(name: "speed-limit", argument: G_OPTION_ARG_INT,
                   // TRANSLATORS: keep KIB and --download as they are; KiB is 1024 bytes.
                   description: tr("With --download: at most KIB KiB a second, all connections together (default 0: no limit)"),
                   argumentName: "KIB"),
            Option(name: "audio-only", argument: G_OPTION_ARG_NONE,
                   // TRANSLATORS: keep --download as it is.
                   description: tr("With --download: save only the best audio, as it is (.m4a, .opus or .webm): a site's audio, an HLS or DASH audio track, or a video file's audio track"),
                   argumentName: nil),
            Option(name: "quality", argument: G_OPTION_ARG_STRING,
                   // TRANSLATORS: keep --download and HEIGHT as they are.
                   description: tr("With --download of an HLS link: the tallest variant up to HEIGHT (e.g. 720p); default the best"),
                   argumentName: "HEIGHT"),
            Option(name: "header", argument: G_OPTION_ARG_STRING_ARRAY,
                   // TRANSLATORS: keep --download, "NAME: VALUE" and @FILE as they are.
                   description: tr("With --download: send the header \"NAME: VALUE\" to the link's host (repeatable); @FILE sends FILE's lines, one header a line"),
                   argumentName: "\"NAME: VALUE\"|@FILE"),
            Option(name: "cookie", argument: G_OPTION_ARG_STRING,
                   // TRANSLATORS: keep --download, "A=B; C=D" and @FILE as they are.
                   description: tr("With --download: send the cookies \"A=B; C=D\" to the link's host; @FILE sends the cookies written in FILE"),
                   argumentName: "\"A=B; C=D\"|@FILE"),
            Option(name: "cookies", argument: G_OPTION_ARG_FILENAME,
                   // TRANSLATORS: keep --download and FILE as they are.
                   description: tr("With --download: send the cookies of FILE (Netscape cookies.txt) where their domains allow"),
                   argumentName: "FILE"),
            Option(name: "referer", argument: G_OPTION_ARG_STRING,
                   // TRANSLATORS: keep --download and URL as they are.
                   description: tr("With --download: send URL as the page the link came from (Referer)"),
                   argumentName: "URL"),
            Option(name: "user-agent", argument: G_OPTION_ARG_STRING,
                   // TRANSLATORS: keep --download and UA as they are.
                   description: tr("With --download: send UA as the User-Agent"),
                   argumentName: "UA"),
            Option(name: "proxy", argument: G_OPTION_ARG_STRING,
                   // TRANSLATORS: keep --download, URL and the schemes as they are.
                   description: tr("With --download: go through the proxy URL (http://, https://, socks5://, socks5h://); a USER:PASSWORD@ in it is visible to other users, so give that with --proxy-file"),
                   argumentName: "URL"),
            Option(name: "proxy-file", argument: G_OPTION_ARG_FILENAME,
                   // TRANSLATORS: keep --download, FILE and --proxy as they are.
                   description: tr("With --download: go through the proxy whose URL is written in FILE, as --proxy does"),
                   argumentName: "FILE"),
            Option(name: "ca-certificate", argument: G_OPTION_ARG_FILENAME,
                   // TRANSLATORS: keep --download, FILE and PEM as they are.
                   description: tr("With --download: trust the certificate authorities in FILE (PEM) for https instead of the system's, as behind a company's proxy"),
                   argumentName: "FILE"),
            Option(name: "videos-dir", argument: G_OPTION_ARG_FILENAME,
                   // TRANSLATORS: keep DIR and ~/Videos/Fetchplay as they are.
                   description: tr("Put finished videos in DIR, under their names (default: ~/Videos/Fetchplay)"),
                   argumentName: "DIR"),
            Option(name: "cache-dir", argument: G_OPTION_ARG_FILENAME,
                   // TRANSLATORS: keep DIR, $FETCHPLAY_CACHE_DIR and $XDG_CACHE_HOME/fetchplay as they are.
                   description: tr("Keep downloads in DIR (default: $FETCHPLAY_CACHE_DIR or $XDG_CACHE_HOME/fetchplay)"),
                   argumentName: "DIR"),
        ]
    }

    /// Adds the options, the usage line and the summary to `application`'s `--help`.
    public static func install(on application: UnsafeMutablePointer<GApplication>) {
        g_application_add_main_option_entries(application, entries(all))
        // Placeholders (URL, DIR, FILE) stay as they are in every language, like the option names.
        g_application_set_option_context_parameter_string(application, "[URL|FILE…]")
        g_application_set_option_context_summary(application,
            tr("Download a video with a progress ring, pause and continue it, then play it."))
        // Said under the options, where a person typing a password reads it.
        g_application_set_option_context_description(application,
            // TRANSLATORS: keep @FILE, --proxy-file, FETCHPLAY_PROXY and "chmod 600 FILE" as they are.
            tr("Every user of this computer can see a command's arguments while it runs. Give cookies, headers and proxy passwords as @FILE, --proxy-file FILE or in FETCHPLAY_PROXY, in a file only you can read (chmod 600 FILE)."))
    }

    /// The `GOptionEntry` array for `options`, zero-terminated. GLib copies the array but not its
    /// strings, so the strings are strdup'd and live as long as the process.
    private static func entries(_ options: [Option]) -> UnsafeMutablePointer<GOptionEntry> {
        let entries = UnsafeMutablePointer<GOptionEntry>.allocate(capacity: options.count + 1)
        for (index, option) in options.enumerated() {
            entries[index] = GOptionEntry(long_name: strdup(option.name), short_name: 0, flags: 0,
                                          arg: option.argument, arg_data: nil,
                                          description: strdup(option.description),
                                          arg_description: option.argumentName.map { UnsafePointer(strdup($0)) })
        }
        entries[options.count] = GOptionEntry()
        return entries
    }

    /// Whether `arguments` (argv) ask for a headless mode, judged before GLib parses them: only
    /// then does `fetchplay` parse them itself rather than start the window's program. Like
    /// GLib, it stops at `--`, after which everything is a link or a file.
    public static func asksForHeadless(_ arguments: [String]) -> Bool {
        for argument in arguments.dropFirst() {
            if argument == "--" { return false }
            guard argument.hasPrefix("--") else { continue }
            let name = argument.dropFirst(2).prefix { $0 != "=" }
            if headlessNames.contains(String(name)) { return true }
        }
        return false
    }

    /// The folders the options (and the environment, and the settings) name.
    public struct Folders: Sendable {
        public let cacheRoot: String
        /// Where finished videos go; nil: inside the cache folder.
        public let videos: String?
    }

    /// Runs the headless mode the parsed options ask for and returns its exit code; nil when
    /// they ask for the window.
    public static func runHeadless(_ dict: UnsafeMutablePointer<GVariantDict>?) -> Int32? {
        let options = ParsedOptions(dict)
        if options.contains("version") {
            print("fetchplay \(AppInfo.version)")
            return 0
        }
        if options.contains("update-site-support") { return updateSiteSupport(options) }
        if let url = options.string("download") { return download(url, options) }
        if let page = options.string("list-videos") { return listVideos(page, options) }
        if options.contains("list") {
            let folders = folders(dict)
            return Headless.list(cacheRoot: folders.cacheRoot, videos: folders.videos)
        }
        return nil
    }

    /// `--cache-dir`, `--videos-dir`, else their defaults. A cache folder given on the command
    /// line or in the environment keeps its videos inside it.
    public static func folders(_ dict: UnsafeMutablePointer<GVariantDict>?) -> Folders {
        let options = ParsedOptions(dict)
        let given = options.string("cache-dir")
        let givenCache = given != nil || !(ProcessInfo.processInfo.environment["FETCHPLAY_CACHE_DIR"] ?? "").isEmpty
        let videos = options.string("videos-dir")
            ?? (givenCache ? nil : SettingsStore().load().videosFolder ?? Cache.defaultVideoFolder())
        return Folders(cacheRoot: given ?? Cache.defaultRoot(), videos: videos)
    }

    private static func download(_ url: String, _ parsed: ParsedOptions) -> Int32 {
        var options: DownloadOptions
        let context: RequestContext?
        switch requestOptions(parsed) {
        case .failure(let exit): return exit.code
        case .success(let parts): (options, context) = parts
        }
        var pick: [Int]?
        if let text = parsed.string("pick") {
            let numbers = text.split(separator: ",", omittingEmptySubsequences: false)
                .map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !numbers.isEmpty, numbers.allSatisfy({ ($0 ?? 0) >= 1 }) else {
                // TRANSLATORS: keep --pick as it is.
                return usageError(tr("--pick takes the numbers of the page's videos, from 1, such as 2 or 1,3."))
            }
            pick = numbers.compactMap { $0 }
        }
        let folders = folders(parsed.dict)
        options.audioOnly = parsed.contains("audio-only")
        return Headless.download(url: url, cacheRoot: folders.cacheRoot, videos: folders.videos, options: options,
                                 context: context, quality: parsed.string("quality"), pick: pick)
    }

    /// `--update-site-support [--site-support-channel stable|nightly]`: the channel given is
    /// kept in the settings, as Preferences keeps it; request options as for `--download`.
    private static func updateSiteSupport(_ parsed: ParsedOptions) -> Int32 {
        let store = SettingsStore()
        var settings = store.load()
        if let text = parsed.string("site-support-channel") {
            guard let channel = SiteSupport.Channel(rawValue: text) else {
                // TRANSLATORS: keep --site-support-channel, stable and nightly as they are.
                return usageError(tr("--site-support-channel takes stable or nightly."))
            }
            if channel != settings.siteSupportChannel {
                settings.siteSupportChannel = channel
                do throws(DownloadError) { try store.save(settings) } catch {
                    FileHandle.standardError.write(Data(("fetchplay: " + error.message + "\n").utf8))
                    return 1
                }
            }
        }
        // The same proxy and certificate authorities as a download's (`--proxy`, `--proxy-file`,
        // FETCHPLAY_PROXY, `--ca-certificate`) for pip's requests.
        switch requestOptions(parsed) {
        case .failure(let exit):
            return exit.code
        case .success(let (options, context)):
            return Headless.updateSiteSupport(channel: settings.siteSupportChannel, proxy: context?.proxy ?? options.proxy.setting,
                                              certificateAuthorities: options.certificateAuthorities)
        }
    }

    /// `--list-videos PAGE`, with the same request options as `--download`.
    private static func listVideos(_ page: String, _ parsed: ParsedOptions) -> Int32 {
        switch requestOptions(parsed) {
        case .failure(let exit):
            return exit.code
        case .success(var (options, context)):
            if let context { options.context = context }
            options.sites.scratch = folders(parsed.dict).cacheRoot + "/sites"
            return Headless.listVideos(page: page, options: options)
        }
    }

    /// The engine's options and the request context the command line gives.
    private static func requestOptions(_ parsed: ParsedOptions) -> Result<(DownloadOptions, RequestContext?), Headless.Exit> {
        var options = DownloadOptions()
        if let count = parsed.integer("connections") {
            guard (1...16).contains(count) else {
                // TRANSLATORS: keep --connections as it is.
                return .failure(Headless.Exit(code: usageError(tr("--connections takes a number from 1 to 16."))))
            }
            options.connections = Int(count)
            // Asked for N: N at once (growing one by one cost a fast host most of the file).
            options.growConnections = false
        }
        // GLib leaves an integer option of 0 out of the dictionary: 0 is no limit, like none.
        if let kibibytes = parsed.integer("speed-limit") {
            guard kibibytes > 0 else {
                // TRANSLATORS: keep --speed-limit as it is; KiB is 1024 bytes.
                return .failure(Headless.Exit(code: usageError(tr("--speed-limit takes a number of KiB a second, 0 for no limit."))))
            }
            // One limit for all the download's connections (and all of an HLS link's segments).
            options.speedLimit = SpeedLimit(bytesPerSecond: Int64(kibibytes) * 1024)
        }
        if let file = parsed.string("ca-certificate") {
            guard access(file, R_OK) == 0 else {
                // TRANSLATORS: keep --ca-certificate as it is.
                return .failure(Headless.Exit(code: usageError(tr("--ca-certificate takes a file of certificates (PEM) that Fetchplay can read."))))
            }
            options.certificateAuthorities = file
        }
        let context: RequestContext?
        do throws(RequestContextError) {
            context = try RequestOptions.context(parsed)
            if let proxy = try RequestOptions.environmentProxy() { options.proxy = ProxyPreference(proxy) }
        } catch {
            FileHandle.standardError.write(Data(("fetchplay: " + error.message + "\n").utf8))
            return .failure(Headless.Exit(code: 1))
        }
        return .success((options, context))
    }

    private static func usageError(_ sentence: String) -> Int32 {
        FileHandle.standardError.write(Data(("fetchplay: " + sentence + "\n").utf8))
        return 2
    }
}
