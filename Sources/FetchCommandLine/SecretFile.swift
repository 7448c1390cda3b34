import FetchCore
import Foundation
import Glibc
import Localization

/// A small file holding a secret (a cookie header, header lines, a proxy URL with its password),
/// read for `--cookie @FILE`, `--header @FILE` and `--proxy-file FILE`.
///
/// Secrets typed as arguments sit in `/proc/PID/cmdline` for every local user to read while the
/// download runs; in a file they stay the owner's. Like ssh with a private key, a file that
/// other users can read or change is refused rather than used: its secret is already out, and
/// a person is told how to fix it (`chmod 600`). A FIFO is fine (`--cookie @<(pass show site)`).
enum SecretFile {
    /// Bytes a secret file may hold.
    static let maxBytes = 64 << 10

    /// The text of `path`; one sentence when it cannot be used.
    static func read(_ path: String) throws(RequestContextError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            // TRANSLATORS: %1$@ is a file's path.
            throw RequestContextError(String(format: tr("The file %1$@ cannot be read."), path))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT != S_IFDIR else {
            throw RequestContextError(String(format: tr("The file %1$@ cannot be read."), path))
        }
        guard info.st_mode & 0o066 == 0 else {
            // TRANSLATORS: %1$@ is a file's path; keep "chmod 600" as it is (a command).
            throw RequestContextError(String(format: tr("Other users of this computer can read or change %1$@; run chmod 600 %1$@ first."),
                                             path))
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while bytes.count <= maxBytes {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw RequestContextError(String(format: tr("The file %1$@ cannot be read."), path)) }
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        guard bytes.count <= maxBytes, let text = String(validating: bytes, as: UTF8.self) else {
            // TRANSLATORS: %1$@ is a file's path; KiB is 1024 bytes.
            throw RequestContextError(String(format: tr("The file %1$@ is not text of at most 64 KiB."), path))
        }
        return text
    }

    /// The one line of `path` (a cookie header, a proxy URL), without the spaces and line break
    /// around it.
    static func line(_ path: String) throws(RequestContextError) -> String {
        try read(path).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The header lines of `path`: one `Name: value` a line; blank lines and `#` comments skipped.
    static func headerLines(_ path: String) throws(RequestContextError) -> [String] {
        // Split on Character.isNewline, so a CRLF (one Character) ends a line too.
        try read(path).split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("#") }
    }
}
