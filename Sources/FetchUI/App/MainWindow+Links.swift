import CGtk
import Foundation
import GLibSupport
import ThreadKit

/// Links and files that arrive without typing: dropped on the window or the entry, pasted with
/// Ctrl+V anywhere outside the entry.
///
/// A dropped local file plays; a dropped or pasted web link goes into the entry (replacing what
/// was there) and starts, as if typed and entered. Anything else lands in the entry with the
/// entry's own message.
extension MainWindow {
    func installLinkDrops() {
        // On the window: anywhere, in the bubble phase (the entry's own target goes first).
        addDropTarget(to: widget, phase: GTK_PHASE_BUBBLE)
        // On the entry, before its text child splices the text in at the pointer.
        addDropTarget(to: ui.entry, phase: GTK_PHASE_CAPTURE)
    }

    /// Subtitle files by their extension (SubRip, WebVTT).
    nonisolated static func isSubtitleFile(_ path: String) -> Bool {
        ["srt", "vtt"].contains((path as NSString).pathExtension.lowercased())
    }

    /// What was dropped: a subtitle file on a playing video joins it, another local file plays,
    /// the first link starts.
    func dropped(paths: [String], links: [String]) {
        if visiblePage == "video", let subtitle = paths.first(where: Self.isSubtitleFile), playback.player != nil {
            return playback.addSubtitle(file: subtitle)
        }
        if let path = paths.first { return openFile(path: path) }
        guard let link = links.first else { return }
        useLink(link)
    }

    /// Puts `link` in the entry and starts it (a link that cannot be used says why, inline).
    func useLink(_ link: String) {
        showDownloadPage()
        showDownloadColumn()
        downloadPage.urlText = link
        downloadPage.startFromEntry()
    }

    /// Ctrl+V outside the entry: the clipboard's text goes into the entry, ready to Start.
    func pasteIntoEntry() {
        guard let display = gtk_widget_get_display(widget), let clipboard = gdk_display_get_clipboard(display) else { return }
        typealias ReadDone = @convention(c) (UnsafeMutablePointer<GObject>?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void
        let done: ReadDone = { source, result, data in
            let box = Unmanaged<CallbackBox<Weak<MainWindow>>>.fromOpaque(data!).takeRetainedValue()
            guard let source, let result else { return }
            // A clipboard with no text in it is an error here: nothing to paste.
            guard let text = String(glibTaking: try? GLibError.check({ gdk_clipboard_read_text_finish(OpaquePointer(source), result, $0) }))
            else { return }
            MainActor.assumeIsolated { box.body.object?.pasted(text) }
        }
        gdk_clipboard_read_text_async(clipboard, nil, done, CallbackBox(Weak(self)).retainedPointer())
    }

    private func pasted(_ text: String) {
        let link = Self.firstLine(text)
        guard !link.isEmpty else { return }
        focusEntry()
        downloadPage.urlText = link
        gtk_editable_set_position(ui.entry.opaque, -1)
    }

    /// The first non-blank line, trimmed: a link copied from a page often brings a newline.
    nonisolated static func firstLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).lazy
            .map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty } ?? ""
    }

    private func addDropTarget(to target: UnsafeMutablePointer<GtkWidget>, phase: GtkPropagationPhase) {
        let drop = fp_drop_target_new_for_links()!
        gtk_event_controller_set_propagation_phase(drop.opaque, phase)
        typealias DropHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<GValue>?, Double, Double,
                                                UnsafeMutableRawPointer?) -> gboolean
        let handler: DropHandler = { _, value, _, _, data in
            guard let value else { return 0 }
            var paths: [String] = [], links: [String] = []
            if fp_value_holds_string(value) != 0 {
                if let text = g_value_get_string(value) { links.append(MainWindow.firstLine(String(cString: text))) }
            } else if let list = g_value_get_boxed(value) {
                let head = gdk_file_list_get_files(OpaquePointer(list))
                defer { g_slist_free(head) }
                var node = head
                while let current = node {
                    if let file = current.pointee.data.map(OpaquePointer.init) {
                        if let path = String(glibTaking: g_file_get_path(file)) {
                            paths.append(path)
                        } else if let uri = String(glibTaking: g_file_get_uri(file)) {
                            links.append(uri)
                        }
                    }
                    node = current.pointee.next
                }
            }
            guard !paths.isEmpty || links.contains(where: { !$0.isEmpty }) else { return 0 }
            let box = CallbackBox<Weak<MainWindow>>.from(data)
            MainActor.assumeIsolated { box.body.object?.dropped(paths: paths, links: links) }
            return 1
        }
        drop.connection("drop", box: CallbackBox(Weak(self)), handler: unsafeBitCast(handler, to: GCallback.self)).store(in: &connections)
        gtk_widget_add_controller(target, drop.opaque)
    }
}
