import Foundation

/// A self-signed certificate for `127.0.0.1` and `localhost`, made by the `openssl` command for
/// a test's https server (`Nginx(serving:certificate:)`). Fetchplay verifies every https answer
/// and reads no CA from the environment, so a test hands `certificatePath` over with
/// `--ca-certificate`.
public struct TestCertificate: Sendable {
    public let certificatePath: String
    public let keyPath: String
    /// The folder holding both; it goes with the value's last user.
    private let folder: TemporaryDirectory

    public init() throws {
        folder = try TemporaryDirectory(prefix: "fetchplay-certificate")
        certificatePath = folder.file("certificate.pem")
        keyPath = folder.file("key.pem")
        let made = try Command.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout", keyPath, "-out", certificatePath,
        ])
        guard made.status == 0 else { throw Clips.Failure(description: "openssl req failed: \(made.standardError)") }
    }
}
