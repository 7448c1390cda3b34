// fetchplay: the command line, and nothing else.
//
//   fetchplay [URL|FILE…]          the window (a URL downloads at once, a file opens)
//   fetchplay --download URL       headless download with progress on the terminal
//   fetchplay --list               what the cache holds
//   fetchplay --version            the version
//   --quality 720p                 for an HLS link: the tallest variant up to 720 lines
//   --connections N                at most N connections for --download (1: one, as curl)
//   --speed-limit KIB              at most KIB KiB per second for --download, all connections together
//   --videos-dir DIR               where finished videos go, under their names (else the settings'
//                                  folder, else ~/Videos/Fetchplay; with a cache folder given and no
//                                  videos folder: CACHE/videos, so scripts stay in their folder)
//   --cache-dir DIR                the cache folder (else $FETCHPLAY_CACHE_DIR, else
//                                  $XDG_CACHE_HOME/fetchplay), for the window and headless alike
//
// Options are parsed the GLib way on the GtkApplication, so `--help` lists them with GTK's own.
// The headless modes return from `handle-local-options`, before the application registers or GTK
// opens a display.
import CGLib
import CGtk
import FetchBench
import FetchCore
import FetchUI
import Foundation
import GLibSupport
import Localization

// First, before any thread or GTK: the user's locale and Fetchplay's catalogues.
Localization.setUp()

/// One command-line option: GLib stores its value in the `GVariantDict` under `name`.
struct Option {
    let name: String
    let argument: GOptionArg
    let description: String
    let argumentName: String?
}

let options = [
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
    Option(name: "version", argument: G_OPTION_ARG_NONE,
           description: tr("Print the version, then exit"), argumentName: nil),
    Option(name: "connections", argument: G_OPTION_ARG_INT,
           // TRANSLATORS: keep N and --download as they are.
           description: tr("With --download: at most N connections at once (default 4; 1 for one)"), argumentName: "N"),
    Option(name: "speed-limit", argument: G_OPTION_ARG_INT,
           // TRANSLATORS: keep KIB and --download as they are; KiB is 1024 bytes.
           description: tr("With --download: at most KIB KiB a second, all connections together (default 0: no limit)"),
           argumentName: "KIB"),
    Option(name: "quality", argument: G_OPTION_ARG_STRING,
           // TRANSLATORS: keep --download and HEIGHT as they are.
           description: tr("With --download of an HLS link: the tallest variant up to HEIGHT (e.g. 720p); default the best"),
           argumentName: "HEIGHT"),
    Option(name: "videos-dir", argument: G_OPTION_ARG_FILENAME,
           // TRANSLATORS: keep DIR and ~/Videos/Fetchplay as they are.
           description: tr("Put finished videos in DIR, under their names (default: ~/Videos/Fetchplay)"),
           argumentName: "DIR"),
    Option(name: "cache-dir", argument: G_OPTION_ARG_FILENAME,
           // TRANSLATORS: keep DIR, $FETCHPLAY_CACHE_DIR and $XDG_CACHE_HOME/fetchplay as they are.
           description: tr("Keep downloads in DIR (default: $FETCHPLAY_CACHE_DIR or $XDG_CACHE_HOME/fetchplay)"),
           argumentName: "DIR"),
]

/// The `GOptionEntry` array for `options`, zero-terminated. GLib copies the array but not its
/// strings, so the strings are strdup'd and live as long as the process.
func optionEntries(_ options: [Option]) -> UnsafeMutablePointer<GOptionEntry> {
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

let app = FetchplayApplication()
Benchmarks.install(on: app) // nothing unless bench/ asks through the environment
let gApplication = app.application.as(GApplication.self)
g_application_add_main_option_entries(gApplication, optionEntries(options))
// Placeholders (URL, DIR, FILE) stay as they are in every language, like the option names.
g_application_set_option_context_parameter_string(gApplication, "[URL|FILE…]")
g_application_set_option_context_summary(gApplication,
    tr("Download a video with a progress ring, pause and continue it, then play it."))

gApplication.connect("handle-local-options") { (rawDict: UnsafeMutableRawPointer?) -> Int32 in
    let dict = rawDict?.assumingMemoryBound(to: GVariantDict.self)
    func value(_ name: String) -> String? {
        guard let variant = g_variant_dict_lookup_value(dict, name, nil) else { return nil }
        defer { g_variant_unref(variant) }
        let isBytes = String(cString: g_variant_get_type_string(variant)) == "ay"
        let text = isBytes ? g_variant_get_bytestring(variant) : g_variant_get_string(variant, nil)
        return text.map { String(cString: $0) }
    }
    if g_variant_dict_contains(dict, "version") != 0 {
        print("fetchplay \(AppInfo.version)")
        return 0
    }
    let root = value("cache-dir") ?? Cache.defaultRoot()
    // A cache folder given on the command line or in the environment keeps its videos inside it.
    let givenCache = value("cache-dir") != nil || !(ProcessInfo.processInfo.environment["FETCHPLAY_CACHE_DIR"] ?? "").isEmpty
    let videos = value("videos-dir")
        ?? (givenCache ? nil : SettingsStore().load().videosFolder ?? Cache.defaultVideoFolder())
    if let url = value("download") {
        var options = DownloadOptions()
        if let variant = g_variant_dict_lookup_value(dict, "connections", nil) {
            defer { g_variant_unref(variant) }
            let count = Int(g_variant_get_int32(variant))
            guard (1...16).contains(count) else {
                // TRANSLATORS: keep --connections as it is.
                FileHandle.standardError.write(Data(("fetchplay: " + tr("--connections takes a number from 1 to 16.") + "\n").utf8))
                return 2
            }
            options.connections = count
        }
        // GLib leaves an integer option of 0 out of the dictionary: 0 is no limit, like none.
        if let variant = g_variant_dict_lookup_value(dict, "speed-limit", nil) {
            defer { g_variant_unref(variant) }
            let kibibytes = Int64(g_variant_get_int32(variant))
            guard kibibytes > 0 else {
                // TRANSLATORS: keep --speed-limit as it is; KiB is 1024 bytes.
                FileHandle.standardError.write(Data(("fetchplay: " + tr("--speed-limit takes a number of KiB a second, 0 for no limit.") + "\n").utf8))
                return 2
            }
            // One limit for all the download's connections (and all of an HLS link's segments).
            options.speedLimit = SpeedLimit(bytesPerSecond: kibibytes * 1024)
        }
        return Headless.download(url: url, cacheRoot: root, videos: videos, options: options,
                                 quality: value("quality"))
    }
    if g_variant_dict_contains(dict, "list") != 0 { return Headless.list(cacheRoot: root, videos: videos) }
    app.cacheRoot = root
    app.videoFolder = videos
    quitOnSignals()
    if let link = value("play") { return play(link) }
    return -1
}

/// `--play URL`: the link goes to the window as an `open` with the play hint, to this process's
/// window or, when Fetchplay already runs, to that one's (then this process is done).
@MainActor func play(_ link: String) -> Int32 {
    let url: String
    do {
        url = try WebAddress.validate(link)
    } catch {
        FileHandle.standardError.write(Data("fetchplay: \(error.message)\n".utf8))
        return 2
    }
    var failure: UnsafeMutablePointer<GError>?
    guard g_application_register(gApplication, nil, &failure) != 0 else {
        let message = failure.map { String(cString: $0.pointee.message) } ?? ""
        g_clear_error(&failure)
        FileHandle.standardError.write(Data("fetchplay: \(message)\n".utf8))
        return 1
    }
    var files: [OpaquePointer?] = [g_file_new_for_uri(url)]
    g_application_open(gApplication, &files, 1, FetchplayApplication.playHint)
    g_object_unref(files[0].map { UnsafeMutableRawPointer($0) })
    return g_application_get_is_remote(gApplication) != 0 ? 0 : -1
}

/// SIGTERM (a session ending, `kill`) and SIGINT (Ctrl+C in a terminal) quit the window the way
/// its Quit does: downloads stop with their partials durable, every worker ends, then the
/// process exits 0. GLib watches the signals from its main loop, so the handler is ordinary code.
func quitOnSignals() {
    // A process inherits the signal mask of the thread that started it, and some starters block
    // everything (a test runner's threads do): unblocked here, or GLib's handler never runs.
    var signals = sigset_t()
    sigemptyset(&signals)
    for number in [SIGTERM, SIGINT] { sigaddset(&signals, number) }
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    for number in [SIGTERM, SIGINT] {
        g_unix_signal_add_full(G_PRIORITY_DEFAULT, number, { _ in
            g_action_group_activate_action(gApplication.opaque, "quit", nil)
            return 1 // G_SOURCE_CONTINUE: a second signal asks again
        }, nil, nil)
    }
}

let status = app.run()
// The headless modes end without the application's shutdown (which joins the window's work):
// whatever they left running (the remux warm-up of a refused HLS link, a checkpoint) ends first,
// so no thread is inside GObject while exit() runs.
FetchplayApplication.joinBackgroundWork()
exit(status)
