import CSoakDigest
import Foundation

/// The lowercase hex SHA-256 of `bytes`, the form SHA256SUMS and the servers' headers use.
public func sha256Hex(_ bytes: Data) -> String {
    var digest = [UInt8](repeating: 0, count: 32)
    let ok = bytes.withUnsafeBytes { buffer in
        digest.withUnsafeMutableBufferPointer { soak_sha256(buffer.baseAddress, buffer.count, $0.baseAddress) }
    }
    // libcrypto fails only without memory; a wrong hash would then be reported as a wrong body.
    guard ok == 1 else { return "sha256-failed" }
    return digest.map { String(format: "%02x", $0) }.joined()
}
