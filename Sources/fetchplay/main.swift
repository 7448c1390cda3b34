// fetchplay: the command line.
//
//   fetchplay --download URL       headless download with progress on the terminal
//   fetchplay --list               what the cache holds
//   fetchplay --version            the version
//   fetchplay --browser-host       the browser extension's native messaging host
//   anything else                  the window: this process becomes fetchplay-window
//
// The headless modes run in this program, which links no GTK: it starts in a third of the time
// and memory the window's program takes, which on a download is what separated fetchplay from
// curl. The options are FetchCommandLine's, parsed the GLib way on a plain GApplication (no
// D-Bus name, nothing registered), so `--help` and the errors read as the window's.
import CGLib
import FetchCommandLine
import Foundation
import GLibSupport
import Localization
import ThreadKit

// First, before any thread: the user's locale and Fetchplay's catalogues.
Localization.setUp()

// The browser starts its native host under the host's own name, or with --browser-host.
if BrowserHost.isAsked(CommandLine.arguments) { exit(BrowserHost.run(CommandLine.arguments)) }

guard CommandLineOptions.asksForHeadless(CommandLine.arguments) else { WindowProgram.become() }

let application = g_application_new(nil, G_APPLICATION_NON_UNIQUE)!
CommandLineOptions.install(on: application)
application.connect("handle-local-options") { (rawDict: UnsafeMutableRawPointer?) -> Int32 in
    // An option spelled so that the first look missed it (`--list` given as a link's value,
    // say) still gets the window.
    guard let status = CommandLineOptions.runHeadless(rawDict?.assumingMemoryBound(to: GVariantDict.self)) else {
        WindowProgram.become()
    }
    return status
}.keepForObjectLife()
let status = g_application_run(application, CommandLine.argc, CommandLine.unsafeArgv)
// Whatever the download left running (a checkpoint, the remux warm-up of a refused HLS link)
// ends first, in the shutdown's order (`Shutdown.finish`), so no thread is inside GObject while
// exit() runs.
Shutdown.process.finishBeforeExit()
exit(status)
