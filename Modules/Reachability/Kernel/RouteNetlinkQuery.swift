internal import CNetlink
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A query-only rtnetlink socket: dumps links and routes, and asks for the route to one address
/// (RTM_GETROUTE, which runs the kernel's real route lookup, policy rules included, and sends
/// nothing on the network). Used by one thread at a time: the monitor's.
final class RouteNetlinkQuery: KernelView {
    private let descriptor: Int32
    private var sequence: UInt32 = 0
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    init() throws(KernelQueryError) {
        let fd = cnl_open_route_socket(0, 0)
        guard fd >= 0 else { throw KernelQueryError(operation: "socket", errno: errno) }
        descriptor = fd
        // A kernel that does not answer within 2 s is a broken one; never hang the monitor.
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    func links() throws(KernelQueryError) -> [Int32: LinkMessage] {
        var links: [Int32: LinkMessage] = [:]
        for case .link(let link, false) in try dump(type: UInt16(RTM_GETLINK), family: UInt8(AF_UNSPEC)) {
            links[link.index] = link
        }
        return links
    }

    func defaultRoutes() throws(KernelQueryError) -> [RouteMessage] {
        var routes: [RouteMessage] = []
        for family in [AF_INET, AF_INET6] {
            for case .route(let route, false) in try dump(type: UInt16(RTM_GETROUTE), family: UInt8(family))
            where route.isDefault {
                routes.append(route)
            }
        }
        return routes
    }

    func route(to address: IPAddress) throws(KernelQueryError) -> RouteLookup {
        let sequence = nextSequence()
        var request = [UInt8](repeating: 0, count: 128)
        let length = address.bytes.withUnsafeBufferPointer { bytes in
            cnl_build_route_request(&request, request.count, sequence, bytes.baseAddress, bytes.count)
        }
        try send(Array(request[0..<length]))
        while true {
            for message in try receive() where message.sequence == sequence {
                switch try decode(message) {
                case .route(let route, _): return .route(route)
                case .error(let code) where code != 0: return .none(errno: code)
                default: continue
                }
            }
        }
    }

    /// Every message of a dump, retried (up to three times) when the kernel says a change
    /// interrupted it (NLM_F_DUMP_INTR).
    private func dump(type: UInt16, family: UInt8) throws(KernelQueryError) -> [RouteNetlinkMessage] {
        var attempt = 0
        while true {
            attempt += 1
            let (messages, interrupted) = try dumpOnce(type: type, family: family)
            if !interrupted || attempt == 3 { return messages }
        }
    }

    private func dumpOnce(type: UInt16, family: UInt8) throws(KernelQueryError) -> ([RouteNetlinkMessage], Bool) {
        let sequence = nextSequence()
        var request = [UInt8](repeating: 0, count: 64)
        let length = cnl_build_dump_request(&request, request.count, type, family, sequence)
        try send(Array(request[0..<length]))
        var messages: [RouteNetlinkMessage] = []
        var interrupted = false
        while true {
            for message in try receive() where message.sequence == sequence {
                if message.flags & UInt16(NLM_F_DUMP_INTR) != 0 { interrupted = true }
                let decoded = try decode(message)
                switch decoded {
                case .done: return (messages, interrupted)
                case .error(let code) where code != 0:
                    throw KernelQueryError(operation: "dump", errno: code)
                default: messages.append(decoded)
                }
            }
        }
    }

    private func nextSequence() -> UInt32 {
        sequence &+= 1
        return sequence
    }

    private func send(_ request: [UInt8]) throws(KernelQueryError) {
        while true {
            let sent = request.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
            if sent == request.count { return }
            if sent < 0, errno == EINTR { continue }
            throw KernelQueryError(operation: "send", errno: sent < 0 ? errno : nil, detail: "short send")
        }
    }

    private func receive() throws(KernelQueryError) -> [NetlinkMessage] {
        while true {
            var sender: UInt32 = 0
            let count = buffer.withUnsafeMutableBytes { cnl_receive(descriptor, $0.baseAddress, $0.count, Int32(MSG_TRUNC), &sender) }
            if count < 0 {
                if errno == EINTR { continue }
                throw KernelQueryError(operation: "receive", errno: errno)
            }
            // Only the kernel (port 0) answers a query; any local process can send to our port, and a
            // forged reply would make an unreachable host look reachable. Replies also carry our sequence
            // number (checked by the callers).
            guard sender == 0 else { continue }
            guard count <= buffer.count else {
                throw KernelQueryError(operation: "receive", detail: "a \(count)-byte message was truncated")
            }
            do {
                return try NetlinkMessage.split(Array(buffer[0..<count]))
            } catch {
                throw KernelQueryError(operation: "receive", detail: "\(error)")
            }
        }
    }

    private func decode(_ message: NetlinkMessage) throws(KernelQueryError) -> RouteNetlinkMessage {
        do {
            return try message.decoded()
        } catch {
            throw KernelQueryError(operation: "decode", detail: "\(error)")
        }
    }
}
