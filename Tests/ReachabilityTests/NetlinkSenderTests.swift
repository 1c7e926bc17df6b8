import CNetlink
import Glibc
import Testing

/// The primitive the query and the monitor rely on to take replies only from the kernel: the sender's
/// netlink port, which is 0 for the kernel and the sending socket's port for any other process.
@Suite("Netlink sender")
struct NetlinkSenderTests {
    @Test func aDatagramFromAnotherSocketIsNotTheKernels() throws {
        let victim = cnl_open_route_socket(0, 0)
        let forger = cnl_open_route_socket(0, 0)
        #expect(victim >= 0 && forger >= 0)
        defer { close(victim); close(forger) }
        let port = cnl_port_of(victim)
        #expect(port != 0)
        var forged = [UInt8](repeating: 0, count: 64)
        let built = cnl_build_dump_request(&forged, forged.count, 24 /* RTM_NEWROUTE */, 2, 1)
        #expect(cnl_send_to_port(forger, port, forged, built) == built)
        var buffer = [UInt8](repeating: 0, count: 4096)
        var sender: UInt32 = 0
        let count = cnl_receive(victim, &buffer, buffer.count, 0, &sender)
        #expect(count == built)
        #expect(sender == cnl_port_of(forger))
        #expect(sender != 0)
    }

    @Test func theKernelsReplyComesFromPortZero() throws {
        let socket = cnl_open_route_socket(0, 0)
        #expect(socket >= 0)
        defer { close(socket) }
        var request = [UInt8](repeating: 0, count: 64)
        let built = cnl_build_dump_request(&request, request.count, 18 /* RTM_GETLINK */, 0, 7)
        #expect(cnl_send_to_port(socket, 0, request, built) == built)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var sender: UInt32 = 99
        let count = cnl_receive(socket, &buffer, buffer.count, 0, &sender)
        #expect(count > 0)
        #expect(sender == 0)
    }
}
