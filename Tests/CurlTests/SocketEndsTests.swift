@testable import CourierCurl
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Which socket is the connection libcurl names by its ends (``CurlMultiLoop/socket(_:has:)``), on real loopback
/// sockets: Linux lets connections to the same port of different addresses share a local port, which the test makes
/// happen on purpose by binding both to one port (`SO_REUSEADDR`), so the ports alone cannot tell them apart.
@Suite("Socket ends")
struct SocketEndsTests {
    @Test func connectionsSharingTheirPortsAreToldApartByTheirPeer() throws {
        let near = try Self.listener(on: "127.0.0.1", port: 0)
        defer { close(near) }
        let port = try #require(CurlMultiLoop.port(of: near, peer: false))
        let far = try Self.listener(on: "127.0.0.2", port: port)
        defer { close(far) }
        let first = try Self.connection(to: "127.0.0.1", port: port, from: 0)
        defer { close(first) }
        let local = try #require(CurlMultiLoop.port(of: first, peer: false))
        let second = try Self.connection(to: "127.0.0.2", port: port, from: local)
        defer { close(second) }
        #expect(CurlMultiLoop.port(of: second, peer: false) == local, "both connections have one local port")

        let toNear = try #require(Self.ends("127.0.0.1", port, local))
        let toFar = try #require(Self.ends("127.0.0.2", port, local))
        #expect(CurlMultiLoop.socket(first, has: toNear))
        #expect(!CurlMultiLoop.socket(second, has: toNear), "same ports, another peer")
        #expect(CurlMultiLoop.socket(second, has: toFar))
        #expect(!CurlMultiLoop.socket(first, has: toFar), "same ports, another peer")
        #expect(!CurlMultiLoop.socket(first, has: try #require(Self.ends("127.0.0.1", port, local &+ 1))))
        #expect(!CurlMultiLoop.socket(near, has: try #require(Self.ends("127.0.0.1", port, port))), "a listener has no peer")

        // Ends that keep a long IPv6 address only as a hash say nothing of the peer: the ports decide.
        let hashed = try #require(Self.ends("2001:db8:1234:5678:9abc:def0:1234:5678", port, local))
        #expect(hashed.peerAddress == nil)
        #expect(CurlMultiLoop.socket(first, has: hashed) && CurlMultiLoop.socket(second, has: hashed))
    }

    private static func ends(_ address: String, _ remotePort: UInt16, _ localPort: UInt16) -> ConnectionSockets.Endpoints? {
        address.withCString { ConnectionSockets.Endpoints(remoteAddress: $0, remotePort: Int32(remotePort), localPort: Int32(localPort)) }
    }

    private static func address(_ text: String, _ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        _ = inet_pton(AF_INET, text, &address.sin_addr)
        return address
    }

    /// A socket bound to `text`:`port` (`SO_REUSEADDR`, so that two may share a port), with `then` done to it
    /// (listen, connect); closed if any step fails.
    private static func socket(bound text: String, _ port: UInt16, then step: String, _ then: (Int32) -> Int32) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw SocketFailure(step: "socket", code: errno) }
        var on: Int32 = 1
        _ = setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var local = address(text, port)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let failedStep = bound != 0 ? "bind \(text):\(port)" : then(socket) != 0 ? step : nil
        if let failedStep {
            let code = errno
            close(socket)
            throw SocketFailure(step: failedStep, code: code)
        }
        return socket
    }

    private static func listener(on text: String, port: UInt16) throws -> Int32 {
        try socket(bound: text, port, then: "listen") { listen($0, 4) }
    }

    private static func connection(to text: String, port: UInt16, from localPort: UInt16) throws -> Int32 {
        var peer = address(text, port)
        return try socket(bound: "127.0.0.1", localPort, then: "connect \(text):\(port)") { socket in
            withUnsafePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
    }

    struct SocketFailure: Error, CustomStringConvertible {
        var step: String
        var code: Int32
        var description: String { "\(step): \(String(cString: strerror(code)))" }
    }
}
