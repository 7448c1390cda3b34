import CGLib

/// The values GLib parsed into a `GVariantDict`, by option name.
public struct ParsedOptions {
    let dict: UnsafeMutablePointer<GVariantDict>?

    public init(_ dict: UnsafeMutablePointer<GVariantDict>?) { self.dict = dict }

    func contains(_ name: String) -> Bool { g_variant_dict_contains(dict, name) != 0 }

    /// A string or file-name option's value (file names come as bytes).
    public func string(_ name: String) -> String? {
        guard let variant = g_variant_dict_lookup_value(dict, name, nil) else { return nil }
        defer { g_variant_unref(variant) }
        let isBytes = String(cString: g_variant_get_type_string(variant)) == "ay"
        let text = isBytes ? g_variant_get_bytestring(variant) : g_variant_get_string(variant, nil)
        return text.map { String(cString: $0) }
    }

    /// A repeatable string option's values, in the order given; none for an option of another
    /// type (`g_variant_get_strv` on a string would print a GLib-CRITICAL on stderr).
    func strings(_ name: String) -> [String] {
        guard let variant = g_variant_dict_lookup_value(dict, name, nil) else { return [] }
        defer { g_variant_unref(variant) }
        guard String(cString: g_variant_get_type_string(variant)) == "as" else { return [] }
        var count = 0
        guard let values = g_variant_get_strv(variant, &count) else { return [] }
        defer { g_free(values) }
        return (0..<count).compactMap { values[$0].map { String(cString: $0) } }
    }

    func integer(_ name: String) -> Int32? {
        guard let variant = g_variant_dict_lookup_value(dict, name, nil) else { return nil }
        defer { g_variant_unref(variant) }
        return g_variant_get_int32(variant)
    }
}
