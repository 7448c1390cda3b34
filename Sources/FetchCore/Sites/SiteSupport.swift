// Sites: videos on pages the engine's own scanner cannot read, found by yt-dlp and fetched by
// the engine.
//
//   SiteSupport      which yt-dlp there is (managed, on PATH, none), its version, and the
//                    managed copy installed or updated with pip, as the user
//   SiteExtraction   yt-dlp asked about one page (`-J`), as a child process, hostile-safe
//   SiteMedia        what it answered, validated and bounded (title, formats, entries)
//   ChildProcess     a child run to its end within a time limit and with bounded output
//
// Fetchplay works fully without any of it: site support is asked only when the scanner found
// no video on a page.
import Foundation
import Localization
import ThreadKit

/// The yt-dlp Fetchplay asks about pages: its own managed copy, a Python venv in the user's
/// data folder (`XDG_DATA_HOME/fetchplay/site-support`, installed and updated with pip as the
/// user), else a `yt-dlp` on PATH, else none.
public enum SiteSupport {
    /// Which releases the managed copy follows.
    public enum Channel: String, Sendable, CaseIterable {
        /// yt-dlp's releases.
        case stable
        /// yt-dlp's nightly builds, pre-releases on PyPI (`pip install --pre`).
        case nightly
    }

    /// A yt-dlp that can be run.
    public struct Installation: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// Fetchplay's own, in the user's data folder.
            case managed
            /// One found on PATH.
            case onPath
        }

        public var kind: Kind
        /// Its program's absolute path.
        public var program: String

        public init(kind: Kind, program: String) {
            self.kind = kind
            self.program = program
        }
    }

    /// Which yt-dlp there is and its version, as Preferences shows it.
    public struct Status: Sendable, Equatable {
        public var installation: Installation?
        /// What `yt-dlp --version` said; nil when it could not say.
        public var version: String?
    }

    /// What pip installs: yt-dlp with its default extras (yt-dlp-ejs among them, pinned by
    /// yt-dlp) and deno, the JavaScript runtime some sites need.
    static let requirement = "yt-dlp[default,deno]"
    /// Seconds an install or an update may take.
    public static let installTimeLimit = 900.0
    /// Seconds `yt-dlp --version` may take.
    static let versionTimeLimit = 30.0

    /// `XDG_DATA_HOME/fetchplay/site-support` (default `~/.local/share`).
    public static func managedFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        BaseFolder.path("XDG_DATA_HOME", else: ".local/share", in: environment) + "/fetchplay/site-support"
    }

    /// The yt-dlp to ask: the managed one when it is there, else the first on PATH.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> Installation? {
        let managed = managedFolder(environment: environment) + "/bin/yt-dlp"
        if access(managed, X_OK) == 0 { return Installation(kind: .managed, program: managed) }
        return executable("yt-dlp", environment: environment).map { Installation(kind: .onPath, program: $0) }
    }

    /// Which yt-dlp there is and its version. Runs it: never on the main thread.
    public static func status(environment: [String: String] = ProcessInfo.processInfo.environment) -> Status {
        guard let installation = locate(environment: environment) else { return Status() }
        return Status(installation: installation, version: version(of: installation, environment: environment))
    }

    /// What `yt-dlp --version` prints (`2026.11.23`), when it is a version.
    public static func version(of installation: Installation,
                               environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let child = ChildProcess(program: installation.program, arguments: ["--version"], environment: environment,
                                 timeLimit: versionTimeLimit, outputLimit: 4096)
        guard let result = try? child.run(), result.ending == .exited, result.status == 0 else { return nil }
        let line = String(decoding: result.output, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        let version = line.trimmingCharacters(in: .whitespaces)
        let allowed = CharacterSet(charactersIn: "0123456789.+-abcdefghijklmnopqrstuvwxyz")
        guard !version.isEmpty, version.count <= 64, version.unicodeScalars.allSatisfy(allowed.contains),
              version.first?.isNumber == true else { return nil }
        return version
    }

    /// Installs the managed copy, or updates it, following `channel`: a venv made with
    /// `python3 -m venv` when there is none, then `pip install --upgrade` (with `--pre` for
    /// nightly builds), through `proxy` (`.environment`: pip reads `https_proxy` and kin itself)
    /// and trusting `certificateAuthorities` when given. `progress` hears one sentence per step
    /// and per package pip fetches. Blocks for as long as pip takes (and a desktop proxy's
    /// lookup): never on the main thread.
    ///
    /// - Returns: the managed yt-dlp and its version.
    /// - Throws: one sentence (pip's last error line quoted when there is one).
    public static func install(channel: Channel, environment: [String: String] = ProcessInfo.processInfo.environment,
                               proxy: ProxySetting = .environment, certificateAuthorities: String? = nil,
                               timeLimit: Double = installTimeLimit, stop: StopSignal? = nil,
                               progress: @escaping (String) -> Void = { _ in }) throws(SiteSupportError) -> Status {
        let folder = managedFolder(environment: environment)
        let python = folder + "/bin/python3"
        var childEnvironment = environment
        // pip must not read its own config's `--user`, nor a venv the caller happens to be in.
        childEnvironment["PIP_USER"] = "0"
        childEnvironment["VIRTUAL_ENV"] = nil
        childEnvironment["PYTHONHOME"] = nil
        // The app's proxy and certificate authorities reach pip as they reach yt-dlp. The proxy
        // in a configuration file of the user's alone (its password never in pip's arguments or
        // environment), read after the machine's own, whose package index stays; the
        // authorities' file (no secret) in the variables pip and requests read before any file.
        let index = environment["PIP_INDEX_URL"] ?? packageIndex
        let resolved = proxy.proxy(for: index)
        if resolved == "" {
            // None, whatever the environment says.
            for name in ["http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"] { childEnvironment[name] = nil }
            childEnvironment["no_proxy"] = "*"
        }
        if let certificateAuthorities {
            for name in ["PIP_CERT", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE"] { childEnvironment[name] = certificateAuthorities }
        }
        var pipConfiguration: String?
        if let text = pipConfigurationFile(proxy: resolved) {
            // pip reads its environment over its files.
            childEnvironment["PIP_PROXY"] = nil
            let path = (folder as NSString).deletingLastPathComponent + "/pip-\(getpid()).conf"
            do {
                try FileIO.makePrivateFolder((folder as NSString).deletingLastPathComponent)
                try FileIO.replaceAtomically(path: path, contents: Data(text.utf8))
            } catch {
                throw .failed(error.message)
            }
            childEnvironment["PIP_CONFIG_FILE"] = path
            pipConfiguration = path
        }
        defer { if let pipConfiguration { unlink(pipConfiguration) } }
        if access(python, X_OK) != 0 {
            guard let system = executable("python3", environment: environment) else { throw .noPython }
            do {
                try FileIO.makePrivateFolder((folder as NSString).deletingLastPathComponent)
            } catch {
                throw .failed(String(format: tr("cannot create the folder %1$@"), (folder as NSString).deletingLastPathComponent))
            }
            // A half-made venv (no python3 in it) is made again from nothing.
            try? FileManager.default.removeItem(atPath: folder)
            // TRANSLATORS: %1$@ is a folder's path.
            progress(String(format: tr("Making a Python environment in %1$@…"), folder))
            let venv = ChildProcess(program: system, arguments: ["-m", "venv", folder], environment: childEnvironment,
                                    timeLimit: timeLimit, outputLimit: 1 << 20, stop: stop)
            let result: ChildProcess.Result
            do { result = try venv.run() } catch { throw .failed(error.reason) }
            guard result.ending == .exited, result.status == 0, access(python, X_OK) == 0 else {
                try? FileManager.default.removeItem(atPath: folder)
                let said = String(decoding: result.output, as: UTF8.self) + result.errorTail
                if said.contains("ensurepip") || said.contains("venv") { throw .noVenv }
                throw .failed(lastErrorLine(said) ?? String(format: tr("python3 -m venv stopped with status %1$ld"), Int(result.status)))
            }
        }
        let installed = locate(environment: environment).flatMap { $0.kind == .managed ? version(of: $0, environment: environment) : nil }
        var arguments = ["-m", "pip", "install", "--upgrade", "--disable-pip-version-check", "--no-input",
                         "--progress-bar", "off"]
        if channel == .nightly { arguments.append("--pre") }
        // A nightly build is newer than any release: back to stable takes the release anew.
        if channel == .stable, let installed, isNightly(installed) { arguments.append("--force-reinstall") }
        arguments.append(requirement)
        progress(channel == .nightly ? tr("Installing yt-dlp’s nightly build with pip…") : tr("Installing yt-dlp with pip…"))
        let pip = ChildProcess(program: python, arguments: arguments, environment: childEnvironment,
                               timeLimit: timeLimit, outputLimit: 4 << 20, stop: stop)
        let result: ChildProcess.Result
        do {
            result = try pip.run { line in
                // "Collecting yt-dlp[default,deno]" → "Fetching yt-dlp…"; the rest of pip's words stay out.
                guard line.hasPrefix("Collecting ") else { return }
                let name = line.dropFirst("Collecting ".count).prefix { !"[<>=!~; (".contains($0) }
                // TRANSLATORS: %1$@ is a Python package's name, such as yt-dlp.
                if !name.isEmpty { progress(String(format: tr("Fetching %1$@…"), String(name))) }
            }
        } catch {
            throw .failed(error.reason)
        }
        switch result.ending {
        case .timedOut: throw .timedOut(minutes: Int(timeLimit / 60))
        case .stopped: throw .stopped
        case .tooMuchOutput, .exited: break
        }
        guard result.ending == .exited, result.status == 0 else {
            let said = result.errorTail + "\n" + String(decoding: result.output.suffix(ChildProcess.errorTail), as: UTF8.self)
            throw .pipFailed(lastErrorLine(said))
        }
        let managed = Installation(kind: .managed, program: folder + "/bin/yt-dlp")
        guard let version = version(of: managed, environment: environment) else { throw .notRunnable }
        return Status(installation: managed, version: version)
    }

    /// The package index pip asks when the environment names none.
    static let packageIndex = "https://pypi.org/simple/"

    /// pip's configuration for `proxy`; nil for none of its own (nil or empty). A proxy on more
    /// than one line would be read as more settings: it is left out.
    static func pipConfigurationFile(proxy: String?) -> String? {
        guard let proxy, !proxy.isEmpty, !proxy.contains(where: \.isNewline) else { return nil }
        return "[global]\nproxy = \(proxy)\n"
    }

    /// Whether `version` is one of yt-dlp's nightly builds (`2026.11.23.123456`, `….dev0`).
    static func isNightly(_ version: String) -> Bool {
        version.contains("dev") || version.split(separator: ".").count > 3
    }

    /// The last `ERROR:` line of a program's words (its text after `ERROR:`), without the
    /// characters text from outside may not carry (Cc, Cf, Zl, Zp), without a link's password,
    /// and at most 300 characters; a Python traceback itself is never quoted.
    static func lastErrorLine(_ text: String) -> String? {
        let line = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .last { $0.hasPrefix("ERROR:") || $0.hasPrefix("error:") }
        guard let line else { return nil }
        let words = line.dropFirst("ERROR:".count).trimmingCharacters(in: .whitespaces)
        let visible = String(String.UnicodeScalarView(words.unicodeScalars.filter { !$0.isHiddenInText }.prefix(300)))
        // yt-dlp quotes the links it tried, which may carry `user:password@`, and may quote the
        // proxy it was given (`socks5://`, in quotes), which libcurl's parser does not read.
        let clean = withoutUserInfo(visible.split(separator: " ", omittingEmptySubsequences: false)
            .map { $0.contains("://") ? WebAddress.redacted(String($0)) : String($0) }.joined(separator: " "))
        return clean.isEmpty ? nil : clean
    }

    /// `text` without the user and password of any `scheme://user:password@host` in it, whatever
    /// the scheme and whatever quotes it stands in.
    static func withoutUserInfo(_ text: String) -> String {
        guard text.contains("@"),
              let userInfo = try? NSRegularExpression(pattern: "([A-Za-z][A-Za-z0-9+.-]*://)[^\\s/@'\"]*:[^\\s/@'\"]*@") else { return text }
        return userInfo.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "$1")
    }

    /// The first executable `name` on the environment's PATH.
    static func executable(_ name: String, environment: [String: String]) -> String? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where folder.hasPrefix("/") {
            let candidate = folder + "/" + name
            var status = stat()
            if stat(candidate, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }
}

/// Why site support could not be installed or updated: one sentence a person can act on.
public enum SiteSupportError: Error, Sendable, Equatable {
    case noPython
    case noVenv
    case timedOut(minutes: Int)
    /// pip failed; its last error line, when it said one.
    case pipFailed(String?)
    /// pip said it installed yt-dlp, but it does not run.
    case notRunnable
    /// Stopped before it ended (the app quit).
    case stopped
    /// Another failure, in the system's words.
    case failed(String)

    public var message: String {
        switch self {
        case .noPython:
            tr("Site support needs Python 3; install the python3 and python3-venv packages, then try again.")
        case .noVenv:
            tr("Site support needs Python’s venv module; install the python3-venv package, then try again.")
        case .timedOut(let minutes):
            // TRANSLATORS: %1$ld is a number of minutes.
            String(format: tr("Installing site support took more than %1$ld minutes and was stopped; check your network connection and try again."), minutes)
        case .pipFailed(let line?):
            // TRANSLATORS: %1$@ is pip's last error line, in English.
            String(format: tr("pip could not install yt-dlp (%1$@); check your network connection and try again."), line)
        case .pipFailed(nil):
            tr("pip could not install yt-dlp; check your network connection and try again.")
        case .notRunnable:
            tr("yt-dlp was installed but does not run; try the update again.")
        case .stopped:
            tr("Installing site support was stopped before it ended; try again.")
        case .failed(let detail):
            // TRANSLATORS: %1$@ is the system's reason.
            String(format: tr("Site support could not be installed: %1$@."), detail)
        }
    }
}
