import CGLib
import Foundation

/// A GLib key file (`[Group]` / `key=value`), the format GNOME apps keep their settings in.
///
/// The one gate between `GKeyFile` and Swift: each value is read as its type or not at all (a
/// malformed value reads as nil, never as 0); GLib's parse errors become a log line and defaults.
/// Comments and keys this version does not know are kept when the file is written again.
final class KeyFile {
    private let file: OpaquePointer

    init() { file = g_key_file_new() }

    /// Parses `data`; false when it is not a key file (the object is then empty).
    init?(data: Data) {
        file = g_key_file_new()
        var error: UnsafeMutablePointer<GError>?
        let flags = GKeyFileFlags(rawValue: G_KEY_FILE_KEEP_COMMENTS.rawValue | G_KEY_FILE_KEEP_TRANSLATIONS.rawValue)
        // GLib takes the length, so no terminating NUL is needed (but a pointer is, even for none).
        let text = data.map { CChar(bitPattern: $0) } + [0]
        let loaded = g_key_file_load_from_data(file, text, gsize(data.count), flags, &error)
        if loaded == 0 {
            if let error { Log.warning("settings are not a key file: \(String(cString: error.pointee.message))") }
            g_clear_error(&error)
            g_key_file_unref(file)
            return nil
        }
    }

    deinit { g_key_file_unref(file) }

    func string(_ group: String, _ key: String) -> String? {
        var error: UnsafeMutablePointer<GError>?
        guard let value = g_key_file_get_string(file, group, key, &error) else {
            g_clear_error(&error)
            return nil
        }
        defer { g_free(value) }
        return String(cString: value)
    }

    /// The value as a whole number of 64 bits, or nil when missing, not a number or too large
    /// (GLib's own reading would saturate an overflow to the largest number instead).
    func integer(_ group: String, _ key: String) -> Int64? {
        string(group, key).flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    func boolean(_ group: String, _ key: String) -> Bool? {
        var error: UnsafeMutablePointer<GError>?
        let value = g_key_file_get_boolean(file, group, key, &error)
        if error != nil {
            g_clear_error(&error)
            return nil
        }
        return value != 0
    }

    func set(_ group: String, _ key: String, string value: String) {
        g_key_file_set_string(file, group, key, value)
    }

    func set(_ group: String, _ key: String, integer value: Int64) {
        g_key_file_set_int64(file, group, key, gint64(value))
    }

    func set(_ group: String, _ key: String, boolean value: Bool) {
        g_key_file_set_boolean(file, group, key, value ? 1 : 0)
    }

    /// Sets a comment above `key` (GLib adds the `#`).
    func setComment(_ group: String, _ key: String, _ comment: String) {
        var error: UnsafeMutablePointer<GError>?
        g_key_file_set_comment(file, group, key, comment, &error)
        g_clear_error(&error)
    }

    func remove(_ group: String, _ key: String) {
        var error: UnsafeMutablePointer<GError>?
        g_key_file_remove_key(file, group, key, &error)
        g_clear_error(&error)
    }

    /// The file's text.
    func data() -> Data {
        var length: gsize = 0
        guard let text = g_key_file_to_data(file, &length, nil) else { return Data() }
        defer { g_free(text) }
        return Data(bytes: text, count: Int(length))
    }
}
