import Foundation
import Glibc

/// `posix_spawn` with what every start here repeats: the file actions and attributes made and
/// destroyed, no standard input (`/dev/null`), the arguments and environment copied to C and
/// freed. The caller adds what else the child gets (`setUp`).
public enum Spawn {
    /// Starts `program` (a path) with its name and `arguments` as its argv.
    ///
    /// - Returns: the child, and `posix_spawn`'s result (0, else an error number).
    public static func start(_ program: String, arguments: [String] = [], environment: [String: String],
                             setUp: (inout posix_spawn_file_actions_t, inout posix_spawnattr_t) -> Void) -> (child: pid_t, status: Int32) {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        setUp(&actions, &attributes)
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, program, &actions, &attributes, argv, envp)
        return (child, status)
    }
}
