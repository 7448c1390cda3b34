// GObject pointers come to Swift in two shapes: types with a public instance struct import as
// typed pointers (`UnsafeMutablePointer<GtkWidget>`), final types as `OpaquePointer`. These few
// conversions are the only place where one becomes another; call sites never cast by hand.

/// A pointer to any GObject instance, whatever shape Swift imported it as.
public protocol GObjectPointer {
    var rawObject: UnsafeMutableRawPointer { get }
}

extension UnsafeMutablePointer: GObjectPointer {
    public var rawObject: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
}

extension OpaquePointer: GObjectPointer {
    public var rawObject: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
}

extension GObjectPointer {
    /// The same instance seen as `T` (a parent or an interface). The caller knows it is one.
    public func `as`<T>(_: T.Type) -> UnsafeMutablePointer<T> {
        rawObject.assumingMemoryBound(to: T.self)
    }

    /// The same instance as an opaque pointer, for final types (`GtkPicture`, `GdkPaintable`).
    public var opaque: OpaquePointer { OpaquePointer(rawObject) }
}
