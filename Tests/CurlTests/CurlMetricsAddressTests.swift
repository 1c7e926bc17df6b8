@testable import CourierCurl
import Testing

@Suite("Metrics: remote address")
struct CurlMetricsAddressTests {
    func address(_ ip: String, _ port: Int) -> String? {
        Array(ip.utf8).withUnsafeBytes { CurlMetrics.address(ip: $0, port: port) }
    }

    /// `ip:port`, with brackets around an address that has a colon (IPv6), as the joined strings made it before.
    @Test(arguments: ["127.0.0.1", "::1", "fe80::1%eth0", "2001:db8::8a2e:370:7334", "10.0.0.255", "x"])
    func anAddressIsItsBytesAndItsPort(ip: String) {
        for port in [0, 1, 80, 443, 8080, 18081, 65535, Int.max, -1, Int.min] {
            let expected = ip.utf8.contains(UInt8(ascii: ":")) ? "[" + ip + "]:" + String(port) : ip + ":" + String(port)
            #expect(address(ip, port) == expected, "\(ip) \(port)")
        }
    }

    @Test func noBytesIsNoAddress() {
        #expect(address("", 80) == nil)
    }
}
