/// Deterministic test content: the same seed gives the same bytes on every run and machine.
public enum TestData {
    /// `count` pseudo-random bytes from `seed` (SplitMix64): incompressible, so a transfer that
    /// silently compressed, shifted or repeated bytes changes the checksum.
    public static func bytes(count: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var offset = 0
            while offset < count {
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                z ^= z >> 31
                for _ in 0..<min(8, count - offset) {
                    buffer[offset] = UInt8(truncatingIfNeeded: z)
                    z >>= 8
                    offset += 1
                }
            }
            initialized = count
        }
    }
}
