#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a number reads as text: in a query string or form as `NSNumber`'s `description`, which AFNetworking
/// uses, and in JSON and property lists in the shortest form that reads back exactly. In Core because the
/// flattening of ``Parameters`` (query strings, forms, multipart parts) and the serializers share it.
package enum NumberDescription {
    /// A double as `NSNumber` describes it, i.e. printf's `%.16g`: integral values without a
    /// fraction (`2.0` → `2`), at most 16 significant digits (`0.1 + 0.2` → `0.3`), exponent form
    /// from 10¹⁶ up and below 10⁻⁴ (`1e+16`, `1e-05`), and `nan`, `inf`, `-inf`.
    package static func of(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        if value == 0 { return value.sign == .minus ? "-0" : "0" }
        // Below 10¹⁶ an integral double has at most 16 digits, which `%.16g` prints in full.
        if value.magnitude < 1e16, value.rounded(.towardZero) == value {
            return String(Int64(value))
        }
        return printf16g(value)
    }

    /// A finite double in the shortest text that reads back as the same double, integral values
    /// below 10¹⁶ in magnitude without a fraction: `2`, `0.1`, `-0`, `1e+16`, `5e-324`. The form
    /// JSON and property-list bodies use, where exactness matters more than `NSNumber`'s look.
    package static func roundTrip(_ value: Double) -> String {
        if value == 0 { return value.sign == .minus ? "-0" : "0" }
        if value.magnitude < 1e16, value.rounded(.towardZero) == value {
            return String(Int64(value))
        }
        // Swift's shortest round-trip form (`0.1`, `1.5e+300`, `5e-324`).
        return value.description
    }

    /// `%.16g` through the C library, the only exact rounding to 16 significant digits at hand.
    private static func printf16g(_ value: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 40)
        let length = buffer.withUnsafeMutableBufferPointer { pointer in
            withVaList([value]) { arguments in
                Int(vsnprintf(pointer.baseAddress, pointer.count, "%.16g", arguments))
            }
        }
        guard length > 0, length < buffer.count else { return String(value) }
        // The radix character follows LC_NUMERIC; a program that set a locale may get a comma.
        let bytes = buffer[..<length].map { character -> UInt8 in
            let byte = UInt8(bitPattern: character)
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "e"):
                return byte
            default:
                return UInt8(ascii: ".")
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
