// WindowMain: the window's program, shared by `fetchplay-window` (what ships) and
// `fetchplay-bench-window` (the same program with bench/'s probes attached, never installed).
//
//   fetchplay [URL|FILE…]          the window (a URL downloads at once, a file opens)
//   fetchplay --play URL           the window, playing URL as soon as it can
//   (every option: FetchCommandLine's CommandLineOptions; the headless modes run here too when
//   the program is started by itself)
//
// Options are parsed the GLib way on the GtkApplication. The headless modes return from
// `handle-local-options`, before the application registers or GTK opens a display.
import CGLib
import CGtk
import FetchCommandLine
import FetchCore
import FetchUI
import Foundation
import GLibSupport
import Localization
import ThreadKit

public enum WindowMain {
    /// Runs the window's program to its end and exits; `attach` sees the application before it
    /// starts (the bench program attaches its probes there).
    @MainActor
    public static func run(attach: (FetchplayApplication) -> Void = { _ in }) -> Never {
        // First, before any thread or GTK: the process's name, the user's locale and Fetchplay's
        // catalogues.
        WindowProgram.takeTheAppsName()
        WindowProgram.leaveGLOutUnderCairo()
        Localization.setUp()

        let app = FetchplayApplication()
        attach(app)
        let gApplication = app.application.as(GApplication.self)
        CommandLineOptions.install(on: gApplication)

        gApplication.connect("handle-local-options") { (rawDict: UnsafeMutableRawPointer?) -> Int32 in
            let dict = rawDict?.assumingMemoryBound(to: GVariantDict.self)
            if let status = CommandLineOptions.runHeadless(dict) { return status }
            let folders = CommandLineOptions.folders(dict)
            app.cacheRoot = folders.cacheRoot
            app.videoFolder = folders.videos
            quitOnSignals(gApplication)
            if let link = ParsedOptions(dict).string("play") { return play(link, on: gApplication) }
            return -1
        }.keepForObjectLife()

        let status = app.run()
        // The headless modes end without the application's shutdown (which joins the window's
        // work): whatever they left running (the remux warm-up of a refused HLS link, a
        // checkpoint) ends first, in the shutdown's order, so no thread is inside GObject while
        // exit() runs. After the window's shutdown it finds nothing left.
        Shutdown.process.finishBeforeExit()
        exit(status)
    }

    /// `--play URL`: the link goes to the window as an `open` with the play hint, to this process's
    /// window or, when Fetchplay already runs, to that one's (then this process is done).
    @MainActor private static func play(_ link: String, on gApplication: UnsafeMutablePointer<GApplication>) -> Int32 {
        let url: String
        do {
            url = try WebAddress.validate(link)
        } catch {
            FileHandle.standardError.write(Data("fetchplay: \(error.message)\n".utf8))
            return 2
        }
        do throws(GLibError) {
            guard try GLibError.check({ g_application_register(gApplication, nil, $0) }) != 0 else { return 1 }
        } catch {
            FileHandle.standardError.write(Data("fetchplay: \(error.message)\n".utf8))
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
    private static func quitOnSignals(_ gApplication: UnsafeMutablePointer<GApplication>) {
        // The application lives as long as the process.
        let application = UInt(bitPattern: gApplication)
        UnixSignals.watch([SIGTERM, SIGINT]) { _ in
            g_action_group_activate_action(OpaquePointer(bitPattern: application), "quit", nil)
        }
    }
}
