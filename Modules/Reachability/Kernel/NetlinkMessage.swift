internal import CNetlink

/// One netlink message: the `nlmsghdr` fields and the payload after the header.
struct NetlinkMessage: Sendable, Equatable {
    var type: UInt16
    var flags: UInt16
    var sequence: UInt32
    var portID: UInt32
    var payload: [UInt8]

    /// Splits a datagram read from a netlink socket into its messages (`NLMSG_OK`/`NLMSG_NEXT`).
    /// A header whose length runs past the buffer, or is shorter than a header, is malformed.
    static func split(_ bytes: [UInt8]) throws(NetlinkParseError) -> [NetlinkMessage] {
        let headerLength = Int(cnl_nlmsg_hdrlen())
        var messages: [NetlinkMessage] = []
        var offset = 0
        while bytes.count - offset >= headerLength {
            let length = Int(bytes.loadUInt32(at: offset))
            guard length >= headerLength, length <= bytes.count - offset else {
                throw NetlinkParseError(offset: offset, detail: "message length \(length)")
            }
            messages.append(NetlinkMessage(
                type: bytes.loadUInt16(at: offset + 4),
                flags: bytes.loadUInt16(at: offset + 6),
                sequence: bytes.loadUInt32(at: offset + 8),
                portID: bytes.loadUInt32(at: offset + 12),
                payload: Array(bytes[(offset + headerLength)..<(offset + length)])
            ))
            offset += Int(cnl_nlmsg_align(UInt32(length)))
        }
        return messages
    }

    /// What the message says, decoded.
    func decoded() throws(NetlinkParseError) -> RouteNetlinkMessage {
        switch Int32(type) {
        case NLMSG_DONE: return .done
        case NLMSG_ERROR:
            guard payload.count >= 4 else { throw NetlinkParseError(offset: 0, detail: "short NLMSG_ERROR") }
            // The kernel sends −errno; wrapping, so a forged INT32_MIN reads as itself instead of trapping.
            return .error(errno: 0 &- Int32(bitPattern: payload.loadUInt32(at: 0)))
        case Int32(RTM_NEWLINK), Int32(RTM_DELLINK):
            return .link(try LinkMessage(payload), deleted: Int32(type) == Int32(RTM_DELLINK))
        case Int32(RTM_NEWADDR), Int32(RTM_DELADDR):
            return .address(try AddressMessage(payload), deleted: Int32(type) == Int32(RTM_DELADDR))
        case Int32(RTM_NEWROUTE), Int32(RTM_DELROUTE):
            return .route(try RouteMessage(payload), deleted: Int32(type) == Int32(RTM_DELROUTE))
        default: return .other(type: type)
        }
    }
}

/// A decoded rtnetlink message.
enum RouteNetlinkMessage: Sendable, Equatable {
    /// RTM_NEWLINK / RTM_DELLINK.
    case link(LinkMessage, deleted: Bool)
    /// RTM_NEWADDR / RTM_DELADDR.
    case address(AddressMessage, deleted: Bool)
    /// RTM_NEWROUTE / RTM_DELROUTE.
    case route(RouteMessage, deleted: Bool)
    /// NLMSG_ERROR: 0 is an acknowledgement, anything else the errno of a failed request.
    case error(errno: Int32)
    /// NLMSG_DONE: the end of a dump.
    case done
    /// A type this module does not read.
    case other(type: UInt16)
}

/// A netlink message that cannot be read.
struct NetlinkParseError: Error, Sendable, Equatable, CustomStringConvertible {
    var offset: Int
    var detail: String
    var description: String { "malformed netlink message at byte \(offset): \(detail)" }
}

/// The `rtattr` list after a fixed header: type → value bytes (the last one wins for repeats).
struct NetlinkAttributes: Sendable, Equatable {
    var values: [UInt16: [UInt8]] = [:]

    init(_ bytes: [UInt8], from start: Int) throws(NetlinkParseError) {
        var offset = start
        while bytes.count - offset >= 4 {
            let length = Int(bytes.loadUInt16(at: offset))
            // The top bits of the type are NLA_F_NESTED and NLA_F_NET_BYTEORDER.
            let type = bytes.loadUInt16(at: offset + 2) & 0x3FFF
            guard length >= 4, length <= bytes.count - offset else {
                throw NetlinkParseError(offset: offset, detail: "attribute length \(length)")
            }
            values[type] = Array(bytes[(offset + 4)..<(offset + length)])
            offset += Int(cnl_rta_align(UInt32(length)))
        }
    }

    subscript(_ type: some BinaryInteger) -> [UInt8]? { values[UInt16(truncatingIfNeeded: type)] }

    func string(_ type: some BinaryInteger) -> String? {
        guard let value = self[type] else { return nil }
        return String(decoding: value.prefix { $0 != 0 }, as: UTF8.self)
    }

    func uint32(_ type: some BinaryInteger) -> UInt32? {
        guard let value = self[type], value.count >= 4 else { return nil }
        return value.loadUInt32(at: 0)
    }

    func uint8(_ type: some BinaryInteger) -> UInt8? { self[type]?.first }

    func address(_ type: some BinaryInteger) -> IPAddress? { self[type].flatMap { IPAddress(bytes: $0) } }
}

extension [UInt8] {
    /// A host-order (netlink's order) integer at `offset`; the caller has checked the bounds.
    func loadUInt32(at offset: Int) -> UInt32 {
        withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
    }

    func loadUInt16(at offset: Int) -> UInt16 {
        withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self) }
    }
}
