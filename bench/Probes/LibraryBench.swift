import CGtk
import FetchUI
import Foundation
import GLibSupport

/// A benchmark probe of a big library, off unless `FETCHPLAY_LIBRARY_BENCH=FILE` is set
/// (`bench/library.sh` sets it).
///
/// It watches the window's library on every frame and writes to FILE, as `key=value` lines with
/// GLib's monotonic clock in microseconds (the clock `time.monotonic()` reads in the bench):
/// `first_rows` when the first frame with rows on screen was drawn, `loaded` when the whole
/// library was read and listed (with `rows`, how many), and `settled` when, after that, no
/// thumbnail was waiting or being made. The bench measures idleness and memory from outside.
@MainActor
enum LibraryBench {
    static var requestedFile: String? {
        ProcessInfo.processInfo.environment["FETCHPLAY_LIBRARY_BENCH"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func attach(to window: MainWindow, file: String) {
        guard let library = window.library else { return }
        var seen = Set<String>()
        func note(_ key: String, _ extra: String = "") {
            guard seen.insert(key).inserted else { return }
            let line = "\(key)=\(g_get_monotonic_time())\n" + extra
            if let handle = FileHandle(forWritingAtPath: file) ?? {
                _ = FileManager.default.createFile(atPath: file, contents: nil)
                return FileHandle(forWritingAtPath: file)
            }() {
                handle.seekToEndOfFile()
                handle.write(Data(line.utf8))
                try? handle.close()
            }
        }
        let clock = window.widget
        MainContext.every(milliseconds: 5) { [weak library] in
            guard let library, gtk_widget_get_mapped(clock) != 0 else { return library != nil }
            if library.view.boundRowCount > 0 { note("first_rows") }
            if !library.store.isLoading, !library.store.items.isEmpty {
                note("loaded", "rows=\(library.view.urls.count)\nbound_rows=\(library.view.boundRowCount)\n")
                if library.view.pendingThumbnails == 0 { note("settled") }
            }
            return seen.count < 3
        }
    }
}
