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
}
