import Foundation
import Glibc
import Localization

/// `fetchplay-window`, the window's program, which `fetchplay` becomes for every command line
/// that is not a headless mode. Kept apart so that `--download` and `--list` never load GTK:
/// with its libraries `fetchplay --version` took 36.6 ms of CPU, without them 17.7 ms (curl: 15.3).
public enum WindowProgram {
    static let name = "fetchplay-window"

    /// Where it is, for `fetchplay` at `executable`: beside it (a build folder), else in the
    /// install's `libexec` (`PREFIX/bin/fetchplay` → `PREFIX/libexec/fetchplay-window`, which
    /// finds `PREFIX/share` the same way the binary in `bin` does).
    static func path(besides executable: String) -> String? {
        let folder = (executable as NSString).deletingLastPathComponent
        return [folder + "/" + name, folder + "/../libexec/" + name]
            .first { access($0, X_OK) == 0 }
    }

    /// Replaces this process with the window's program, with the same arguments (argv[0] stays
    /// what was typed, so `--help` still says `fetchplay`). Only returns by exiting, with one
    /// sentence, when the program is missing or cannot start.
    public static func become() -> Never {
        let executable = Localization.currentExecutable()
        if let path = path(besides: executable) {
            execv(path, CommandLine.unsafeArgv)
            let reason = String(cString: strerror(errno))
            // TRANSLATORS: %1$@ is a file's path, %2$@ the system's reason (e.g. "Permission denied").
            fail(String(format: tr("cannot start the window's program %1$@ (%2$@); install Fetchplay again."), path, reason))
        }
        // TRANSLATORS: %1$@ is a program's file name.
        fail(String(format: tr("the window's program %1$@ is missing; install Fetchplay again."), name))
    }

    /// Gives the window's process the app's name again (`pkill -x fetchplay`, system monitors):
    /// after the exec the kernel calls it by the file's name, cut to 15 bytes.
    public static func takeTheAppsName() {
        guard let file = fopen("/proc/self/comm", "w") else { return }
        fputs("fetchplay", file)
        fclose(file)
    }

    /// Under the cairo renderer (`GSK_RENDERER=cairo`) GDK still makes a GL context at start to
    /// learn what the display can do, which loads the GL driver (Mesa's is about 50 MB
    /// resident) for nothing: nothing draws with it. Called before GTK starts.
    public static func leaveGLOutUnderCairo() {
        guard let renderer = getenv("GSK_RENDERER").map({ String(cString: $0) }), renderer == "cairo" else { return }
        let debug = getenv("GDK_DEBUG").map { String(cString: $0) } ?? ""
        guard !debug.split(separator: ",").contains("gl-disable") else { return }
        setenv("GDK_DEBUG", debug.isEmpty ? "gl-disable" : debug + ",gl-disable", 1)
    }

    private static func fail(_ sentence: String) -> Never {
        FileHandle.standardError.write(Data(("fetchplay: " + sentence + "\n").utf8))
        exit(1)
    }
}
