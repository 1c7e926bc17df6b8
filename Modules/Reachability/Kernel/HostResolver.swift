#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `getaddrinfo` for a host name: its addresses in the resolver's order (RFC 6724), each once.
/// Blocking: the monitor calls it on a queue of its own, never on the caller's thread.
enum HostResolver {
    /// The addresses of `host`, or the `EAI_*` code when it does not resolve.
    static func resolve(_ host: String) -> Result<[IPAddress], ResolutionFailure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, nil, &hints, &list)
        guard code == 0 else { return .failure(ResolutionFailure(code: code)) }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry = list
        while let current = entry {
            if let address = Self.address(of: current.pointee), !addresses.contains(address) {
                addresses.append(address)
            }
            entry = current.pointee.ai_next
        }
        return .success(addresses)
    }

    private static func address(of entry: addrinfo) -> IPAddress? {
        guard let raw = entry.ai_addr else { return nil }
        switch entry.ai_family {
        case AF_INET:
            let v4 = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in.self)
            return withUnsafeBytes(of: v4.sin_addr) { IPAddress(bytes: $0) }
        case AF_INET6:
            let v6 = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in6.self)
            return withUnsafeBytes(of: v6.sin6_addr) { IPAddress(bytes: $0) }
        default:
            return nil
        }
    }
}

/// A host name that did not resolve.
struct ResolutionFailure: Error, Sendable, Equatable {
    /// The `EAI_*` code.
    var code: Int32
}
