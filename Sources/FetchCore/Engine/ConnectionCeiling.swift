import Synchronization

/// The most connections a download opens, shared by every download made with the same options
/// and settable at any time (Preferences): each run reads it when it starts.
public final class ConnectionCeiling: Sendable {
    private let value: Atomic<Int>

    public init(_ connections: Int = 8) { value = Atomic(Self.clamped(connections)) }

    /// 1…16; a value outside is brought into the range.
    public var connections: Int {
        get { value.load(ordering: .relaxed) }
        set { value.store(Self.clamped(newValue), ordering: .relaxed) }
    }

    private static func clamped(_ connections: Int) -> Int { min(16, max(1, connections)) }
}
