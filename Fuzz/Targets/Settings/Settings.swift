// The settings readers: settings.ini (a GLib key file) and the older settings.json.
import Foundation
@testable import FetchCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Data(UnsafeRawBufferPointer(start: data, count: count))
    if let file = KeyFile(data: bytes) { _ = SettingsStore.settings(in: file) }
    _ = try? JSONDecoder().decode(LibrarySettings.self, from: bytes)
    return 0
}
