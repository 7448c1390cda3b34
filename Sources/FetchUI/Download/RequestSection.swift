import CGtk
import FetchCore
import Foundation
import GLibSupport
import Localization

/// The link's folded "Request" section: what a pasted link needs besides itself — the page's
/// cookies, its address as Referer, a User-Agent, extra headers — read into a `RequestContext`
/// when Start is pressed and cleared then (the download keeps it, and only its summary shows).
/// Cookies and headers are password entries: what they hold is a secret, shown only on a peek.
@MainActor
final class RequestSection {
    typealias Widget = UnsafeMutablePointer<GtkWidget>

    private var connections: [SignalConnection] = []
    let expander: Widget
    let cookies: Widget
    let referer: Widget
    let userAgent: Widget
    private let headerList: Widget
    private var owned: [OwnedWidget] = []
    private(set) var headers: [Widget] = []

    init() {
        cookies = Self.secretEntry(accessibleLabel: tr("Cookies"))
        referer = Self.entry(placeholder: tr("The page’s address"), accessibleLabel: tr("Referer"))
        userAgent = Self.entry(placeholder: tr("As the browser sends it"), accessibleLabel: tr("User agent"))
        headerList = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 6)
        let addHeader = gtk_button_new_with_mnemonic(tr("_Add a Header"))!
        gtk_widget_set_halign(addHeader, GTK_ALIGN_START)
        gtk_widget_add_css_class(addHeader, "flat")
        let grid = gtk_grid_new()!
        gtk_grid_set_row_spacing(grid.as(GtkGrid.self), 6)
        gtk_grid_set_column_spacing(grid.as(GtkGrid.self), 12)
        let rows: [(String, Widget)] = [(tr("Cookies"), cookies), (tr("Referer"), referer), (tr("User agent"), userAgent),
                                        (tr("Headers"), headerList)]
        for (index, (title, field)) in rows.enumerated() {
            let label = Widgets.label(title, classes: ["dim-label"])
            gtk_label_set_xalign(label.opaque, 1)
            gtk_widget_set_valign(label, GTK_ALIGN_BASELINE)
            gtk_grid_attach(grid.as(GtkGrid.self), label, 0, Int32(index), 1, 1)
            gtk_grid_attach(grid.as(GtkGrid.self), field, 1, Int32(index), 1, 1)
        }
        gtk_grid_attach(grid.as(GtkGrid.self), addHeader, 1, Int32(rows.count), 1, 1)
        let hint = Widgets.label(tr("Only for links that need them: cookies as “name=value; name2=value2”, headers as “Name: value”. Links sent by the browser extension carry the page’s own."),
                                 classes: ["dim-label", "caption"])
        gtk_label_set_wrap(hint.opaque, 1)
        gtk_label_set_xalign(hint.opaque, 0)
        let content = Widgets.box(GTK_ORIENTATION_VERTICAL, spacing: 8, classes: ["request-section"], [grid, hint])
        expander = gtk_expander_new_with_mnemonic(tr("_Request"))!
        gtk_expander_set_child(expander.opaque, content)
        gtk_widget_set_tooltip_text(expander, tr("Cookies, Referer, User-Agent and headers sent with the link"))
        addHeaderEntry()
        addHeader.connect("clicked") { [weak self] in
            guard let self else { return }
            gtk_widget_grab_focus(self.addHeaderEntry())
        }.store(in: &connections)
        owned = OwnedWidget.keep(expander, cookies, referer, userAgent, headerList)
    }

    /// The context the fields give, checked; nil when they are all empty.
    func context() throws(RequestContextError) -> RequestContext? {
        var context = RequestContext()
        let cookieText = text(of: cookies)
        if !cookieText.isEmpty {
            guard let header = RequestContext.cookieHeader(checking: cookieText) else {
                throw RequestContextError(tr("Cookies are written “name=value; name2=value2”."))
            }
            context.cookieHeader = header
        }
        let page = text(of: referer)
        if !page.isEmpty {
            guard let url = try? WebAddress.validate(page) else {
                throw RequestContextError(tr("The Referer is the address of a page, starting with http:// or https://."))
            }
            context.referer = url
        }
        let agent = text(of: userAgent)
        if !agent.isEmpty {
            guard HeaderField.isSafeValue(agent), agent.utf8.count <= 1024 else {
                throw RequestContextError(tr("A user agent is one line of at most 1 KiB."))
            }
            context.userAgent = agent
        }
        for entry in headers where !text(of: entry).isEmpty {
            context.headers.append(try HeaderField(line: text(of: entry)))
        }
        return context.isEmpty ? nil : context
    }

    /// Empties every field and folds the section (Start took what it held).
    func clear() {
        for entry in [cookies, referer, userAgent] + headers { gtk_editable_set_text(entry.opaque, "") }
        for extra in headers.dropFirst() { gtk_box_remove(headerList.as(GtkBox.self), extra) }
        headers = Array(headers.prefix(1))
        gtk_expander_set_expanded(expander.opaque, 0)
    }

    @discardableResult
    private func addHeaderEntry() -> Widget {
        let entry = Self.secretEntry(accessibleLabel: tr("Header"))
        headers.append(entry)
        gtk_box_append(headerList.as(GtkBox.self), entry)
        return entry
    }

    private func text(of entry: Widget) -> String {
        String(cString: gtk_editable_get_text(entry.opaque)).trimmingCharacters(in: .whitespaces)
    }

    private static func entry(placeholder: String, accessibleLabel: String) -> Widget {
        let entry = gtk_entry_new()!
        gtk_widget_set_hexpand(entry, 1)
        gtk_entry_set_placeholder_text(entry.as(GtkEntry.self), placeholder)
        fp_accessible_update_label(entry.opaque, accessibleLabel)
        return entry
    }

    private static func secretEntry(accessibleLabel: String) -> Widget {
        let entry = gtk_password_entry_new()!
        gtk_widget_set_hexpand(entry, 1)
        gtk_password_entry_set_show_peek_icon(entry.opaque, 1)
        fp_accessible_update_label(entry.opaque, accessibleLabel)
        return entry
    }
}
