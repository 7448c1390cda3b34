import CCrypto

/// AES-128-CBC with PKCS#7 padding, the only cipher HLS's `METHOD=AES-128` uses, through
/// OpenSSL's EVP interface: the one place Fetchplay calls libcrypto.
enum SegmentCipher {
    /// The clear bytes of `data` encrypted with `key` (16 bytes) and `iv` (16 bytes).
    ///
    /// - Throws: `.badResponse` when the bytes do not decrypt (a wrong key, a cut segment: the
    ///   padding does not check out).
    static func decrypt(_ data: [UInt8], key: [UInt8], iv: [UInt8]) throws(DownloadError) -> [UInt8] {
        guard key.count == 16 else { throw .badResponse("the AES-128 key is \(key.count) bytes, not 16") }
        guard iv.count == 16 else { throw .badResponse("the AES-128 IV is not 16 bytes") }
        guard let context = EVP_CIPHER_CTX_new() else { throw .other("OpenSSL could not start") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_DecryptInit_ex(context, EVP_aes_128_cbc(), nil, key, iv) == 1 else {
            throw .other("OpenSSL refused the AES-128 key")
        }
        var output = [UInt8](repeating: 0, count: data.count + 16)
        var written: Int32 = 0, tail: Int32 = 0
        let ok = output.withUnsafeMutableBufferPointer { out -> Bool in
            guard EVP_DecryptUpdate(context, out.baseAddress, &written, data, Int32(data.count)) == 1 else { return false }
            return EVP_DecryptFinal_ex(context, out.baseAddress! + Int(written), &tail) == 1
        }
        ERR_clear_error()
        guard ok else { throw .badResponse("a segment does not decrypt with its AES-128 key") }
        output.removeSubrange(Int(written + tail)...)
        return output
    }
}
