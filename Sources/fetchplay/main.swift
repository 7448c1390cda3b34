import CGtk
import GLibSupport
import Foundation

let app = gtk_application_new("io.github.fetchplay.Test", G_APPLICATION_DEFAULT_FLAGS)!
nonisolated(unsafe) let appRef = app
let t = Thread {
    MainContext.post { print("posted ran on main:", Thread.isMainThread); g_application_quit(appRef.as(GApplication.self)) }
}
t.start()
let status = g_application_run(app.as(GApplication.self), CommandLine.argc, CommandLine.unsafeArgv)
print("exit", status)
