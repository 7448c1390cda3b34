#!/usr/bin/python3
"""Stand-ins for the desktop's services on a private session bus, for Fetchplay's tests.

    desktop-peers.py LOG SERVICE...

SERVICE is one of:
    notifications     org.freedesktop.Notifications (what GNotification's freedesktop backend calls)
    file-manager      org.freedesktop.FileManager1 (ShowItems, ShowFolders)
    session-manager   org.gnome.SessionManager (Inhibit, Uninhibit: what gtk_application_inhibit calls)

Every method call is appended to LOG as one JSON line: {"service", "method", "args"}. The line
"ready" goes to stdout once every name is owned. Commands on stdin, one a line:
    invoke ID ACTION     emits ActionInvoked(ID, ACTION), as a click on a notification does
    close ID             emits NotificationClosed(ID, 2)
A peer on the bus like the real services, nothing inside the app is replaced. Debian's python3-gi.
"""
import json
import sys

from gi.repository import Gio, GLib

INTERFACES = {
    "notifications": ("org.freedesktop.Notifications", "/org/freedesktop/Notifications", """
        <node><interface name="org.freedesktop.Notifications">
          <method name="Notify">
            <arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
            <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
            <arg type="a{sv}" direction="in"/><arg type="i" direction="in"/><arg type="u" direction="out"/>
          </method>
          <method name="CloseNotification"><arg type="u" direction="in"/></method>
          <method name="GetCapabilities"><arg type="as" direction="out"/></method>
          <method name="GetServerInformation">
            <arg type="s" direction="out"/><arg type="s" direction="out"/>
            <arg type="s" direction="out"/><arg type="s" direction="out"/>
          </method>
          <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
          <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
        </interface></node>"""),
    "file-manager": ("org.freedesktop.FileManager1", "/org/freedesktop/FileManager1", """
        <node><interface name="org.freedesktop.FileManager1">
          <method name="ShowItems"><arg type="as" direction="in"/><arg type="s" direction="in"/></method>
          <method name="ShowFolders"><arg type="as" direction="in"/><arg type="s" direction="in"/></method>
          <method name="ShowItemProperties"><arg type="as" direction="in"/><arg type="s" direction="in"/></method>
        </interface></node>"""),
    "session-manager": ("org.gnome.SessionManager", "/org/gnome/SessionManager", """
        <node><interface name="org.gnome.SessionManager">
          <method name="Inhibit">
            <arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
            <arg type="u" direction="in"/><arg type="u" direction="out"/>
          </method>
          <method name="Uninhibit"><arg type="u" direction="in"/></method>
          <method name="IsInhibited"><arg type="u" direction="in"/><arg type="b" direction="out"/></method>
        </interface></node>"""),
}


class Peers:
    def __init__(self, log_path, services):
        self.log = open(log_path, "a", buffering=1)
        self.bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        self.next_id = {"Notify": 0, "Inhibit": 0}
        self.inhibitors = set()
        self.waiting = set(services)
        self.loop = GLib.MainLoop()
        for service in services:
            name, path, xml = INTERFACES[service]
            info = Gio.DBusNodeInfo.new_for_xml(xml).interfaces[0]
            self.bus.register_object(path, info, self.call_handler(service), None, None)
            Gio.bus_own_name_on_connection(self.bus, name, Gio.BusNameOwnerFlags.NONE,
                                           self.owned(service), self.lost(name))
        GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.PRIORITY_DEFAULT,
                          GLib.IOCondition.IN | GLib.IOCondition.HUP, self.command)

    def owned(self, service):
        def done(_connection, _name):
            self.waiting.discard(service)
            if not self.waiting:
                print("ready", flush=True)
        return done

    def lost(self, name):
        def done(_connection, _name):
            print(f"could not own {name}", file=sys.stderr, flush=True)
            self.loop.quit()
        return done

    def call_handler(self, service):
        def handle(_connection, _sender, _path, _interface, method, parameters, invocation):
            args = parameters.unpack()
            self.log.write(json.dumps({"service": service, "method": method, "args": args}) + "\n")
            invocation.return_value(self.answer(method, args))
        return handle

    def answer(self, method, args):
        if method in ("Notify", "Inhibit"):
            # Notifications and cookies are counted apart, from 1, as the real services do.
            self.next_id[method] += 1
            if method == "Inhibit":
                self.inhibitors.add(self.next_id[method])
            return GLib.Variant("(u)", (self.next_id[method],))
        if method == "Uninhibit":
            self.inhibitors.discard(args[0])
        if method == "IsInhibited":
            return GLib.Variant("(b)", (bool(self.inhibitors),))
        if method == "GetCapabilities":
            return GLib.Variant("(as)", (["actions", "body"],))
        if method == "GetServerInformation":
            return GLib.Variant("(ssss)", ("desktop-peers", "Fetchplay tests", "1", "1.2"))
        return None

    def command(self, channel, condition):
        line = channel.readline()
        if not line:
            self.loop.quit()
            return False
        words = line.rstrip("\n").split(" ", 2)
        if len(words) == 3 and words[0] == "invoke":
            self.emit("ActionInvoked", GLib.Variant("(us)", (int(words[1]), words[2])))
        elif len(words) == 2 and words[0] == "close":
            self.emit("NotificationClosed", GLib.Variant("(uu)", (int(words[1]), 2)))
        return True

    def emit(self, signal, parameters):
        self.bus.emit_signal(None, "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                             signal, parameters)
        self.bus.flush_sync(None)
        print(f"emitted {signal}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 3 or any(s not in INTERFACES for s in sys.argv[2:]):
        sys.exit(__doc__)
    peers = Peers(sys.argv[1], sys.argv[2:])
    peers.loop.run()
