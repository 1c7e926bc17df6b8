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

    /// The last final head a parser made with these fields: a head that repeats it shares its field list
    /// (``ResponseHeadParser``), and a status line that repeats its status shares its status storage.
    private(set) var lastHead: HTTPResponse?

    /// Whether the field at `index` of `fields` is `field` byte for byte: the same spelling of the name and the same
    /// value bytes. (The parser makes every field with the default indexing, so that needs no comparing.) Values are
    /// compared as bytes: `String`'s `==`, and `HTTPField`'s, take canonically equivalent text as equal, so a value of
    /// `K` (U+004B) would match one of `K` (U+212A, KELVIN SIGN). A name is a token, ASCII only (`HTTPField.Name`
    /// refuses anything else), where `String`'s `==` is byte for byte; `HTTPField`'s would ignore case.
    ///
    /// `field` is the kept field of a line whose value bytes are `value` (so the field's own): the candidate's value is
    /// compared with those bytes, which saves reading the kept field's.
    static func isField(_ field: HTTPField, value: UnsafeRawBufferPointer, at index: Int, of fields: HTTPFields) -> Bool {
        guard index < fields.count else { return false }
        let candidate = fields[index]
        return candidate.name.rawName == field.name.rawName && hasValue(candidate, value)
    }

    /// Whether two strings are the same UTF-8 bytes, compared at once (`utf8.elementsEqual` walks them through a
    /// generic iterator: Callgrind counted 6,300 instructions per response when names and reason phrases took it).
    static func hasSameBytes(_ first: String, _ second: String) -> Bool {
        var first = first, second = second
        return first.withUTF8 { one in second.withUTF8 { other in areEqual(UnsafeRawBufferPointer(one), UnsafeRawBufferPointer(other)) } }
    }

    /// Whether `field`'s value is exactly `bytes`.
    private static func hasValue(_ field: HTTPField, _ bytes: UnsafeRawBufferPointer) -> Bool {
        field.withUnsafeBytesOfValue { areEqual(UnsafeRawBufferPointer($0), bytes) }
    }

    private static func areEqual(_ one: UnsafeRawBufferPointer, _ other: UnsafeRawBufferPointer) -> Bool {
        one.count == other.count && (one.count == 0 || memcmp(one.baseAddress!, other.baseAddress!, one.count) == 0)
    }

    /// A final head of `status` and `headerFields`, kept as ``lastHead``. When the status code and reason phrase are
    /// the last head's, the head is a copy of it with the new fields: `HTTPResponse` keeps its status in an object of
    /// its own, which a copy shares (an allocation fewer per response).
    func head(status: HTTPResponse.Status, headerFields: HTTPFields) -> HTTPResponse {
        var head: HTTPResponse
        // `status` is computed from the head's status field: read once. The reason phrase compared byte for byte, as
        // the parser took it (`==` would take canonically equivalent text as the same).
        if let last = lastHead, case let lastStatus = last.status, lastStatus.code == status.code,
           Self.hasSameBytes(lastStatus.reasonPhrase, status.reasonPhrase) {
            head = last
            head.headerFields = headerFields
        } else {
            head = HTTPResponse(status: status, headerFields: headerFields)
        }
        lastHead = head
        return head
    }
}
