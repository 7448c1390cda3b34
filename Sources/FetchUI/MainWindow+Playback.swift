import CGtk
import FetchPlayer
import Foundation
import GLibSupport

/// The window's side of playback: the video page, page changes, and files dropped on the window.
extension MainWindow {
    func makePlayback() -> PlaybackController {
        let positions = session.map { PlaybackPositions(cacheRoot: $0.cache.root) }
        return PlaybackController(window: widget, positions: positions, audio: .automatic) { [weak self] action, enabled in
            self?.setEnabled(action, enabled)
        }
    }

    /// Puts the video view on the video page and follows the stack's pages.
    func installPlayback() {
        setVideoView(playback.view.widget)
        ui.stack.connect("notify::visible-child-name") { [weak self] (_: UnsafeMutableRawPointer?) in
            guard let self else { return }
            self.playback.pageChanged(visible: self.visiblePage == "video")
            self.refresh()
        }
        installFileDrop()
    }

    /// Video files dropped anywhere on the window play (the first one, if several).
    private func installFileDrop() {
        let target = gtk_drop_target_new(gdk_file_list_get_type(), GDK_ACTION_COPY)!
        typealias DropHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<GValue>?, Double, Double,
                                                UnsafeMutableRawPointer?) -> gboolean
        let handler: DropHandler = { _, value, _, _, data in
            guard let value, let list = g_value_get_boxed(value) else { return 0 }
            var path: String?
            let head = gdk_file_list_get_files(OpaquePointer(list))
            defer { g_slist_free(head) }
            var node = head
            while let current = node, path == nil {
                if let file = current.pointee.data, let cPath = g_file_get_path(OpaquePointer(file)) {
                    path = String(cString: cPath)
                    g_free(cPath)
                }
                node = current.pointee.next
            }
            guard let path else { return 0 }
            let box = CallbackBox<WeakWindow>.from(data)
            MainActor.assumeIsolated { box.body.window?.openFile(path: path) }
            return 1
        }
        target.connect("drop", box: CallbackBox(WeakWindow(self)), handler: unsafeBitCast(handler, to: GCallback.self))
        gtk_widget_add_controller(widget, target.opaque)
    }
}

private final class WeakWindow {
    weak var window: MainWindow?
    init(_ window: MainWindow) { self.window = window }
}
