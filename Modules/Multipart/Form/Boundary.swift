extension MultipartFormData {
    /// A fresh boundary as AFNetworking makes it: `Boundary+` and 16 uppercase hexadecimal digits
    /// from two random 32-bit values, e.g. `Boundary+0F3A9C12B7E45D60`.
    public static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        return "Boundary+" + hex8(generator.next() as UInt32) + hex8(generator.next() as UInt32)
    }

    /// `value` as exactly 8 uppercase hexadecimal digits.
    private static func hex8(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// RFC 2046 §5.1.1: `boundary := 0*69<bchars> bcharsnospace`, where `bchars` are letters,
    /// digits, `'()+_,-./:=?` and the space.
    static func isValidBoundary(_ boundary: String) -> Bool {
        let bytes = boundary.utf8
        guard (1...70).contains(bytes.count), bytes.last != 0x20 else { return false }
        return bytes.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || boundaryPunctuation.contains(byte)
        }
    }

    private static let boundaryPunctuation = Set("'()+_,-./:=? ".utf8)
}
