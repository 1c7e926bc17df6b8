import HTTPTypes

extension Set<HTTPRequest.Method> {
    /// True when the set holds `method`, comparing names without regard to ASCII case, as
    /// AFNetworking compares `HTTPMethod.uppercaseString` (so `get` matches `.get`).
    func containsIgnoringCase(_ method: HTTPRequest.Method) -> Bool {
        if contains(method) { return true }
        return contains { member in
            member.rawValue.utf8.elementsEqual(method.rawValue.utf8) { Self.uppercased($0) == Self.uppercased($1) }
        }
    }

    /// An ASCII letter in uppercase; any other byte as it is.
    private static func uppercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 0x20 : byte
    }
}
