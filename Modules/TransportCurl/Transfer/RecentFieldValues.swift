#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The last value each common field name carried, kept by a transport for the next response's parser: a value
/// that responses repeat (`Content-Type: application/json`, a `Date` within its second, a `Last-Modified`) is
/// then shared with the previous response instead of being decoded into a new string.
///
/// Only values longer than a small string holds (15 bytes) are kept: a shorter one costs no allocation to
/// make, while a longer one costs a `malloc` and a `free` on every response (three per response from nginx).
/// A value is reused only when its bytes are exactly the new line's, so a field is the same whether it came
/// from here or was decoded.
///
/// A class so that parsers can share one without exclusive access to their loop; it is not locked, because
/// only one thread uses it: a ``CurlMultiLoop`` makes it and hands it to its transfers' parsers, which run in
/// libcurl's header callback on the loop's thread.
final class RecentFieldValues {
    /// A slot per name of ``CommonFieldNames``, by its index there. A buffer rather than an array: the parser
    /// reads it for every long value, and an array held by a class costs a dynamic exclusivity check and a
    /// bounds check on each access.
    private let values: UnsafeMutableBufferPointer<String?>

    /// Values longer than this are kept; shorter ones are small strings, which cost nothing to make.
    static let smallStringCapacity = 15

    /// Room for every common name.
    init(slots: Int = CommonFieldNames.shared.count) {
        values = .allocate(capacity: slots)
        values.initialize(repeating: nil)
    }

    deinit {
        _ = values.deinitialize()
        values.deallocate()
    }

    /// The value of a field whose name has `slot` in ``CommonFieldNames``: the kept string when its bytes are
    /// exactly `bytes`, otherwise a new one, which is kept in its place. `bytes` must be valid UTF-8 (the
    /// parser passes visible ASCII only) and longer than ``smallStringCapacity``.
    func value(slot: Int, bytes: UnsafeBufferPointer<UInt8>) -> String {
        precondition(slot >= 0 && slot < values.count && bytes.count > Self.smallStringCapacity)
        if let kept = values[slot], Self.hasBytes(kept, bytes) { return kept }
        let made = String(decoding: bytes, as: UTF8.self)
        values[slot] = made
        return made
    }

    /// Whether `string` is exactly `bytes`, which hold more than 15 bytes. A string made here is native and
    /// contiguous, so its bytes are read in place.
    private static func hasBytes(_ string: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        string.utf8.withContiguousStorageIfAvailable { kept in
            kept.count == bytes.count && memcmp(kept.baseAddress!, bytes.baseAddress!, kept.count) == 0
        } ?? false
    }
}
