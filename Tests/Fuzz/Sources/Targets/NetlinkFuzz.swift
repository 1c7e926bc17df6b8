@testable import CourierReachability

/// The rtnetlink parser (`NetlinkMessage.split`, `decoded()`, the `LinkMessage`, `AddressMessage` and
/// `RouteMessage` readers and `NetlinkAttributes`), which reads every datagram the kernel, or any local process
/// that can reach the socket, sends the reachability monitor: any bytes give messages or a `NetlinkParseError`,
/// never a trap. Checked against an independent walk of the same layout (`nlmsghdr` lengths aligned to 4,
/// `rtattr` lengths aligned to 4, the fixed headers' sizes from <linux/rtnetlink.h>): the messages found are
/// exactly the model's, each lying inside the input with the header fields read from its first 16 bytes; an
/// error is thrown exactly when a length runs past its buffer or is shorter than its header, and names an
/// offset inside the buffer; each decoded field is the model's attribute value (the last of a repeated type).
enum NetlinkFuzz: FuzzTarget {
    static let name = "netlink"

    static func run(_ input: FuzzInput) {
        // A first byte picks a start offset for a direct attribute walk; the rest is the datagram.
        let attributeStart = input.int(in: 0...32)
        let bytes = input.rest()

        let model = Model.messages(bytes)
        let messages: [NetlinkMessage]
        do {
            messages = try NetlinkMessage.split(bytes)
        } catch {
            guard case .failure(let bad) = model else {
                fatalError("split refused what the model reads: \(error)")
            }
            precondition(error.offset == bad.offset, "split failed at \(error.offset), the model at \(bad.offset)")
            precondition(error.offset >= 0 && error.offset < bytes.count, "error offset \(error.offset) outside \(bytes.count) bytes")
            return
        }
        guard case .success(let expected) = model else { fatalError("split read \(messages.count) messages the model refuses") }
        precondition(messages.count == expected.count, "\(messages.count) messages, the model finds \(expected.count)")
        for (message, range) in zip(messages, expected) {
            precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "message \(range) outside \(bytes.count) bytes")
            precondition(message.payload.elementsEqual(bytes[(range.lowerBound + 16)..<range.upperBound]), "payload differs at \(range)")
            precondition(message.type == Model.u16(bytes, range.lowerBound + 4), "type differs at \(range)")
            precondition(message.flags == Model.u16(bytes, range.lowerBound + 6), "flags differ at \(range)")
            precondition(message.sequence == Model.u32(bytes, range.lowerBound + 8), "sequence differs at \(range)")
            precondition(message.portID == Model.u32(bytes, range.lowerBound + 12), "port differs at \(range)")
            check(message)
        }

        // The attribute walk on its own, from any start (the readers start after their fixed header).
        let attributes = Result { () throws(NetlinkParseError) in try NetlinkAttributes(bytes, from: attributeStart) }
        compare(attributes, Model.attributes(bytes, from: attributeStart), "attributes from \(attributeStart)")
    }

    /// `decoded()` against the model's reading of the payload.
    static func check(_ message: NetlinkMessage) {
        let payload = message.payload
        let decoded: RouteNetlinkMessage
        do {
            decoded = try message.decoded()
        } catch {
            precondition(error.offset >= 0 && error.offset <= payload.count, "decode error offset \(error.offset) outside \(payload.count) bytes")
            precondition(Model.decodeFails(type: message.type, payload), "decoded() refused a \(message.type) message the model reads: \(error)")
            return
        }
        precondition(!Model.decodeFails(type: message.type, payload), "decoded() read a \(message.type) message the model refuses")
        switch decoded {
        case .done:
            precondition(message.type == 3, "done from type \(message.type)")
        case .error(let errno):
            precondition(message.type == 2, "error from type \(message.type)")
            precondition(errno == Int32(bitPattern: 0 &- Model.u32(payload, 0)), "errno \(errno) from \(payload.prefix(4))")
        case .other(let type):
            precondition(type == message.type && ![2, 3, 16, 17, 20, 21, 24, 25].contains(type), "other(\(type)) from type \(message.type)")
        case .link(let link, let deleted):
            precondition([16, 17].contains(message.type) && deleted == (message.type == 17), "link from type \(message.type)")
            guard case .success(let values) = Model.attributes(payload, from: 16) else { fatalError("model refuses a link's attributes") }
            precondition(link.index == Int32(bitPattern: Model.u32(payload, 4)), "link index")
            precondition(link.linkType == Model.u16(payload, 2), "link type")
            precondition(link.flags == Model.u32(payload, 8), "link flags")
            precondition(link.name == values[3].map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }, "link name")
            precondition(link.operationalState == values[16]?.first, "link operational state")
        case .address(let address, let deleted):
            precondition([20, 21].contains(message.type) && deleted == (message.type == 21), "address from type \(message.type)")
            guard case .success(let values) = Model.attributes(payload, from: 8) else { fatalError("model refuses an address's attributes") }
            precondition(address.family == payload[0] && address.prefixLength == payload[1], "address family or prefix")
            precondition(address.interfaceIndex == Model.u32(payload, 4), "address interface")
            precondition(address.address?.bytes == (Model.ip(values[2]) ?? Model.ip(values[1])), "address bytes")
            precondition(address.label == values[3].map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }, "address label")
        case .route(let route, let deleted):
            precondition([24, 25].contains(message.type) && deleted == (message.type == 25), "route from type \(message.type)")
            guard case .success(let values) = Model.attributes(payload, from: 12) else { fatalError("model refuses a route's attributes") }
            precondition(route.family == payload[0] && route.destinationLength == payload[1] && route.type == payload[7], "route header")
            precondition(route.table == (Model.u32(values[15]) ?? UInt32(payload[4])), "route table")
            precondition(route.destination?.bytes == Model.ip(values[1]), "route destination")
            precondition(route.gateway?.bytes == Model.ip(values[5]), "route gateway")
            precondition(route.outputInterface == Model.u32(values[4]).map { Int32(bitPattern: $0) }, "route interface")
            precondition(route.priority == Model.u32(values[6]), "route priority")
            precondition(route.nextHopInterfaces == Model.nextHops(values[9] ?? []), "route next hops")
        }
    }

    static func compare(
        _ parsed: Result<NetlinkAttributes, NetlinkParseError>, _ model: Result<[UInt16: [UInt8]], Model.Bad>, _ what: String
    ) {
        switch (parsed, model) {
        case (.success(let attributes), .success(let values)):
            precondition(attributes.values == values, "\(what): \(attributes.values) but the model reads \(values)")
        case (.failure(let error), .failure(let bad)):
            precondition(error.offset == bad.offset, "\(what): failed at \(error.offset), the model at \(bad.offset)")
        default:
            fatalError("\(what): \(parsed) but the model says \(model)")
        }
    }

    /// The independent reading: the layout of <linux/netlink.h> and <linux/rtnetlink.h>, in host (little-endian) order.
    enum Model {
        /// Where the model found a length it cannot accept.
        struct Bad: Error { let offset: Int }

        /// The byte ranges of the messages (header included), or the offset of the first bad length.
        static func messages(_ bytes: [UInt8]) -> Result<[Range<Int>], Bad> {
            var ranges: [Range<Int>] = []
            var offset = 0
            while offset + 16 <= bytes.count {
                let length = Int(u32(bytes, offset))
                guard length >= 16, offset + length <= bytes.count else { return .failure(Bad(offset: offset)) }
                ranges.append(offset..<(offset + length))
                offset += (length + 3) & ~3
            }
            return .success(ranges)
        }

        /// Type (top two bits cleared) → value; the last of a type wins. Fails at the first bad length.
        static func attributes(_ bytes: [UInt8], from start: Int) -> Result<[UInt16: [UInt8]], Bad> {
            var values: [UInt16: [UInt8]] = [:]
            var offset = start
            while offset + 4 <= bytes.count {
                let length = Int(u16(bytes, offset))
                guard length >= 4, offset + length <= bytes.count else { return .failure(Bad(offset: offset)) }
                values[u16(bytes, offset + 2) & 0x3FFF] = Array(bytes[(offset + 4)..<(offset + length)])
                offset += (length + 3) & ~3
            }
            return .success(values)
        }

        /// Whether `decoded()` must fail: a fixed header cut short, bad attributes, a short NLMSG_ERROR.
        static func decodeFails(type: UInt16, _ payload: [UInt8]) -> Bool {
            let header: Int
            switch type {
            case 2: return payload.count < 4
            case 16, 17: header = 16    // struct ifinfomsg
            case 20, 21: header = 8     // struct ifaddrmsg
            case 24, 25: header = 12    // struct rtmsg
            default: return false
            }
            guard payload.count >= header else { return true }
            if case .failure = attributes(payload, from: header) { return true }
            return false
        }

        /// The `rtnh_ifindex` of each `struct rtnexthop` (8 bytes: len, flags, hops, ifindex) of RTA_MULTIPATH.
        static func nextHops(_ bytes: [UInt8]) -> [Int32] {
            var interfaces: [Int32] = []
            var offset = 0
            while offset + 8 <= bytes.count {
                let length = Int(u16(bytes, offset))
                guard length >= 8 else { break }
                interfaces.append(Int32(bitPattern: u32(bytes, offset + 4)))
                offset += (length + 3) & ~3
            }
            return interfaces
        }

        static func ip(_ value: [UInt8]?) -> [UInt8]? {
            guard let value, value.count == 4 || value.count == 16 else { return nil }
            return value
        }

        static func u32(_ value: [UInt8]?) -> UInt32? {
            guard let value, value.count >= 4 else { return nil }
            return u32(value, 0)
        }

        static func u16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
            UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
        }

        static func u32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
            UInt32(u16(bytes, offset)) | UInt32(u16(bytes, offset + 2)) << 16
        }
    }
}
