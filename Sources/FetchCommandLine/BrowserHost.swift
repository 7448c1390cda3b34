import FetchCore
import Foundation
import Glibc
import Localization

/// `fetchplay --browser-host`: the native messaging host the browser extension talks to.
///
/// A thin, strict gate: it reads one length-prefixed JSON message at a time from standard input
/// (32-bit native-endian length, at most 1 MiB), checks it with `BrowserMessage.parse`, hands a
/// download to the running Fetchplay window over the session bus (`BrowserHandOff`), answers
/// `{"ok":true}` or `{"ok":false,"error":"…"}` on standard output, and exits when standard input
/// closes. It never downloads, never starts a shell and never evaluates anything. Only
/// Fetchplay's own extension may call it: the browser names the caller in the arguments
/// (Chromium: the origin; Firefox: the manifest's path, then the extension's id).
public enum BrowserHost {
    /// The program name under which `fetchplay` is the host (the manifests' `path` can pass no
    /// option): `PREFIX/libexec/fetchplay-browser-host`, a link to `PREFIX/bin/fetchplay`.
    public static let programName = "fetchplay-browser-host"
    public static let option = "--browser-host"
    /// The extension's id in Chromium (fixed by the `key` in its manifest) and in Firefox.
    public static let chromiumOrigin = "chrome-extension://peobkohdifbjbdcfmfmpemobecfkeiif/"
    public static let firefoxID = "fetchplay@fetchplay.github.io"
    /// Seconds a message's body may take to arrive once its length came: a writer that stops
    /// half-way gets an answer and an exit, not a host that waits for ever.
    static let bodySeconds: Int32 = 1

    /// Whether `arguments` (argv) ask for the host: by its program name or by the option.
    public static func isAsked(_ arguments: [String]) -> Bool {
        guard let first = arguments.first else { return false }
        return (first as NSString).lastPathComponent == programName || arguments.dropFirst().first == option
    }

    /// Runs the host until standard input closes; returns the exit status.
    public static func run(_ arguments: [String]) -> Int32 {
        let callers = arguments.dropFirst().filter { $0 != option }
        guard callers.contains(chromiumOrigin) || callers.contains(firefoxID) else {
            answer(error: tr("Only Fetchplay’s own browser extension may use this host."))
            return 1
        }
        while true {
            switch readMessage() {
            case .end:
                return 0
            case .broken(let sentence):
                answer(error: sentence)
                return 1
            case .message(let data):
                handle(data)
            }
        }
    }

    private static func handle(_ data: Data) {
        let message: BrowserMessage
        do throws(RequestContextError) {
            message = try BrowserMessage.parse(data)
        } catch {
            return answer(error: error.message)
        }
        switch message {
        case .ping:
            write(["ok": true, "version": AppInfo.version])
        case .download:
            do throws(RequestContextError) {
                try BrowserHandOff.send(message)
                write(["ok": true])
            } catch {
                answer(error: error.message)
            }
        }
    }

    private enum Read {
        case message(Data)
        case end
        case broken(String)
    }

    private static func readMessage() -> Read {
        var length: UInt32 = 0
        let got = withUnsafeMutableBytes(of: &length) { readFully(into: $0, deadline: nil) }
        switch got {
        case 0: return .end
        case MemoryLayout<UInt32>.size: break
        default: return .broken(tr("The browser’s message ended inside its length."))
        }
        guard Int(length) <= BrowserMessage.maxBytes else { return .broken(tr("The browser’s message is larger than 1 MiB.")) }
        var body = [UInt8](repeating: 0, count: Int(length))
        let count = body.withUnsafeMutableBytes { readFully(into: $0, deadline: bodySeconds) }
        guard count == Int(length) else { return .broken(tr("The browser’s message ended before its length said.")) }
        return .message(Data(body))
    }

    /// Reads until `buffer` is full, standard input ends or (with a deadline) no byte comes for
    /// `deadline` seconds; returns the bytes read.
    private static func readFully(into buffer: UnsafeMutableRawBufferPointer, deadline: Int32?) -> Int {
        var done = 0
        while done < buffer.count {
            if let deadline {
                var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, deadline * 1000)
                if ready == -1, errno == EINTR { continue }
                guard ready == 1 else { return done }
            }
            let count = read(STDIN_FILENO, buffer.baseAddress! + done, buffer.count - done)
            if count == -1, errno == EINTR { continue }
            guard count > 0 else { return done }
            done += count
        }
        return done
    }

    private static func answer(error sentence: String) { write(["ok": false, "error": sentence]) }

    private static func write(_ object: [String: Any]) {
        guard let body = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        var length = UInt32(body.count)
        let frame = withUnsafeBytes(of: &length) { Data($0) } + body
        frame.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let count = Glibc.write(STDOUT_FILENO, bytes.baseAddress! + done, bytes.count - done)
                if count == -1, errno == EINTR { continue }
                guard count > 0 else { return }
                done += count
            }
        }
    }
}
