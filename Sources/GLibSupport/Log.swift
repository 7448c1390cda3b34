import Foundation

/// Messages for the log (stderr), never for people in the window: one format for the engine,
/// the player and the window ("fetchplay: warning: …").
public enum Log {
    public static func warning(_ message: String) {
        FileHandle.standardError.write(Data("fetchplay: warning: \(message)\n".utf8))
    }
}
