#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An IPv4 or IPv6 address, as the kernel sees it: 4 or 16 bytes in network order.
///
/// ```swift
/// let address = IPAddress("192.0.2.1")   // nil for text that is not an address
/// ```
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address family.
    public enum Family: Sendable, Hashable {
        /// IPv4 (4 bytes).
        case v4
        /// IPv6 (16 bytes).
        case v6
    }

    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// Parses dotted IPv4 (`192.0.2.1`) or IPv6 (`2001:db8::1`) text; `nil` for anything else
    /// (host names included).
    public init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    /// An address from its 4 or 16 network-order bytes; `nil` for any other length.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = Array(bytes)
    }

    /// IPv4 or IPv6.
    public var family: Family { bytes.count == 4 ? .v4 : .v6 }

    /// The `AF_INET`/`AF_INET6` constant of the family.
    var addressFamily: Int32 { family == .v4 ? AF_INET : AF_INET6 }

    /// True for `0.0.0.0` and `::`.
    public var isUnspecified: Bool { bytes.allSatisfy { $0 == 0 } }

    /// `192.0.2.1` or `2001:db8::1`.
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(addressFamily, raw.baseAddress, &text, socklen_t(text.count))
        }
        guard written != nil else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
