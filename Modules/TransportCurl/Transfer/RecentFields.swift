#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HTTPTypes

/// The last field each common field name's spelling came with, kept by a transport for the next response's
/// parser: a line that responses repeat (`Content-Type: application/json`, `Server: nginx`, a `Date` within its
/// second) is then the earlier response's field again, instead of a value decoded into a new string and validated
/// twice (by the parser, and by `HTTPField`, byte by byte) to make the same field.
///
/// A field is reused only when its value's bytes are exactly the new line's, and its slot stands for one exact
/// spelling of the name (``CommonFieldNames``), so a field is the same whether it came from here or was made.
/// Only fields whose value the parser took as it was (visible ASCII and tabs) are kept.
///
/// It also keeps the loop's last head written out (``HeadTemplate``): a head that repeats it line for line is that
/// head, with no line parsed.
///
/// A class so that parsers can share one without exclusive access to their loop; it is not locked, because
/// only one thread uses it: a ``CurlMultiLoop`` makes it and hands it to its transfers' parsers, which run in
/// libcurl's header callback on the loop's thread.
final class RecentFields {
    /// A slot per spelling of ``CommonFieldNames``, by its index there. A buffer rather than an array: the parser
    /// reads it for every common field, and an array held by a class costs a dynamic exclusivity check and a
    /// bounds check on each access.
    private let fields: UnsafeMutableBufferPointer<HTTPField?>

    /// Room for every common name.
    init(slots: Int = CommonFieldNames.shared.count) {
        fields = .allocate(capacity: slots)
        fields.initialize(repeating: nil)
    }

    deinit {
        _ = fields.deinitialize()
        fields.deallocate()
    }

    /// The field kept in `slot` when its value's bytes are exactly `value`, or nil.
    func field(slot: Int, value: UnsafeRawBufferPointer) -> HTTPField? {
        precondition(slot >= 0 && slot < fields.count)
        guard let kept = fields[slot], Self.hasValue(kept, value) else { return nil }
        return kept
    }

    /// Keeps `field`, made from a line whose name has `slot` in ``CommonFieldNames``, in place of the one before.
    func keep(_ field: HTTPField, slot: Int) {
        precondition(slot >= 0 && slot < fields.count)
        fields[slot] = field
    }

    /// The last head written out for a head that repeats it (``ResponseHeadParser``), or nil.
    private(set) var lastTemplate: HeadTemplate?
    /// Final heads in a row that were not ``lastTemplate`` whole.
    private var misses = 0

    /// A final head was ``lastTemplate`` whole.
    func templateRepeated() { misses = 0 }

    /// A final head was not ``lastTemplate`` whole; `template` makes one of it, when it is one the parser can read back.
    ///
    /// The next template is made only at the 1st, 2nd, 4th, 8th… miss in a row. A server whose heads change once a
    /// second (`Date`) gets a template for each second at once; one whose every head differs (a request id) makes a
    /// template (two allocations and the head written out) for a vanishing share of its heads, and still shares the
    /// lines its heads begin with.
    func templateMissed(_ template: () -> HeadTemplate?) {
        misses &+= 1
        if misses & (misses &- 1) == 0, let made = template() { lastTemplate = made }
    }

    /// Whether `field`'s value is exactly `bytes`.
    private static func hasValue(_ field: HTTPField, _ bytes: UnsafeRawBufferPointer) -> Bool {
        field.withUnsafeBytesOfValue { areEqual(UnsafeRawBufferPointer($0), bytes) }
    }

    /// Whether two byte buffers hold the same bytes.
    static func areEqual(_ one: UnsafeRawBufferPointer, _ other: UnsafeRawBufferPointer) -> Bool {
        one.count == other.count && (one.count == 0 || memcmp(one.baseAddress!, other.baseAddress!, one.count) == 0)
    }
}
