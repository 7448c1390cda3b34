import CGLib
import Foundation
import GLibSupport

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
        let flags = GKeyFileFlags(rawValue: G_KEY_FILE_KEEP_COMMENTS.rawValue | G_KEY_FILE_KEEP_TRANSLATIONS.rawValue)
        // GLib takes the length, so no terminating NUL is needed (but a pointer is, even for none).
        let text = data.map { CChar(bitPattern: $0) } + [0]
        do {
            guard try GLibError.check({ g_key_file_load_from_data(file, text, gsize(data.count), flags, $0) }) != 0 else {
                g_key_file_unref(file)
                return nil
            }
        } catch {
            Log.warning("settings are not a key file: \(error.message)")
            g_key_file_unref(file)
            return nil
        }
    }

    deinit { g_key_file_unref(file) }

    func string(_ group: String, _ key: String) -> String? {
        // A missing key is an error here, read as no value. A bad escape (`\y`) is an error too,
        // but GLib hands back the string it read along with it: freed either way.
        var value: UnsafeMutablePointer<gchar>?
        defer { g_free(value) }
        guard (try? GLibError.check({ value = g_key_file_get_string(file, group, key, $0) })) != nil, let value
        else { return nil }
        return String(cString: value)
    }

    /// The value as a whole number of 64 bits, or nil when missing, not a number or too large
    /// (GLib's own reading would saturate an overflow to the largest number instead).
    func integer(_ group: String, _ key: String) -> Int64? {
        string(group, key).flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    func boolean(_ group: String, _ key: String) -> Bool? {
        // FALSE is also what a missing or malformed value reads as: only the error tells them apart.
        guard let value = try? GLibError.check({ g_key_file_get_boolean(file, group, key, $0) }) else { return nil }
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
        // Fails only for a key that is not there, which the caller just set.
        _ = try? GLibError.check { g_key_file_set_comment(file, group, key, comment, $0) }
    }

    func remove(_ group: String, _ key: String) {
        // A key that is not there is removed already.
        _ = try? GLibError.check { g_key_file_remove_key(file, group, key, $0) }
    }

    /// The file's text.
    func data() -> Data {
        var length: gsize = 0
        guard let text = g_key_file_to_data(file, &length, nil) else { return Data() }
        defer { g_free(text) }
        return Data(bytes: text, count: Int(length))
    }
}
