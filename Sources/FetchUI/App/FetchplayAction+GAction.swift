import CGLib
import FetchViewModel
import GLibSupport

extension FetchplayAction {
    /// Adds the action to `map` (the window, the application) as a `GSimpleAction` of the
    /// table's parameter type; `perform` hears each activation with its string parameter (a
    /// link) for the actions that take one. Returns the action (the map holds it) and the
    /// activation's connection, for the caller to keep.
    @MainActor
    func install(in map: OpaquePointer,
                 perform: @escaping @MainActor (String?) -> Void) -> (action: OpaquePointer, activation: SignalConnection) {
        let type = parameterType.map { g_variant_type_new($0) } ?? nil
        let gaction = g_simple_action_new(name, type)!
        if let type { g_variant_type_free(type) }
        let activation = gaction.connect("activate") { (parameter: UnsafeMutableRawPointer?) -> Void in
            perform(parameter.map { String(cString: g_variant_get_string(OpaquePointer($0), nil)) })
        }
        g_action_map_add_action(map, gaction)
        g_object_unref(gaction.rawObject)
        return (gaction, activation)
    }
}
