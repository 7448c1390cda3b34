/// Which finished videos go when the cache is over its size cap: a pure rule, testable alone.
///
/// The least recently used (played, else downloaded) go first. Partials never go (someone is
/// still getting them), nor anything in `protected` (what is playing or downloading).
public enum CacheEviction {
    /// The items to remove, in removal order, so that the total of `items` fits in `cap` bytes;
    /// fewer (possibly none) when removing every candidate would still not be enough.
    public static func victims(in items: [LibraryItem], cap: Int64, protected: Set<String> = []) -> [LibraryItem] {
        var total = items.reduce(Int64(0)) { $0 + $1.bytesDone }
        guard total > cap else { return [] }
        let candidates = items
            .filter { $0.isComplete && !protected.contains($0.url) && !protected.contains($0.path) }
            .sorted { ($0.lastUsed, $0.url) < ($1.lastUsed, $1.url) }
        var result: [LibraryItem] = []
        for item in candidates where total > cap {
            result.append(item)
            total -= item.bytesDone
        }
        return result
    }
}
