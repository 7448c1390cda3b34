import CLinux

/// Gives the memory freed after a burst of work back to the system.
///
/// Reading a library of thousands and decoding a screenful of thumbnails on worker threads
/// leaves glibc's per-thread arenas holding tens of MB that were freed but are never returned
/// (only the main arena's top is trimmed by itself), so the window's resident size stays at
/// its peak. Called when such a burst ends, never on a hot path: it walks every arena.
public enum FreedMemory {
    public static func release() {
        _ = malloc_trim(0)
    }
}
