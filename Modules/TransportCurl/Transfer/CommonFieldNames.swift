import HTTPTypes
#if canImport(Glibc)
import Glibc
#endif

/// The field names nearly every response carries, made once: ``ResponseHeadParser`` takes a line's name
/// from here when its bytes are one of these exactly, instead of decoding, validating and lowercasing the
/// same few names on every response.
///
/// Each name is stored as the slow path would make it from those bytes (`HTTPField.Name(String)`), so the
/// field is the same either way: the raw name keeps the case the server sent. Both spellings are here: the
/// capitalised one HTTP/1.1 servers send, and the lowercase one HTTP/2 requires. A name in any other case
/// (`CONTENT-TYPE`) is simply not found, and takes the slow path.
struct CommonFieldNames {
    /// The one table, made on first use; a parser takes it once, so a line's lookup costs no `swift_once`.
    static let shared = CommonFieldNames()

    /// Every spelling's bytes, one after the other, in the order of `entries`.
    private let bytes: [UInt8]
    /// Each spelling's place in `bytes` and its name, shortest first.
    private let entries: [(offset: Int, name: HTTPField.Name)]
    /// `entries[firstOfLength[n]..<firstOfLength[n + 1]]` are the names of `n` bytes.
    private let firstOfLength: [Int]
    /// Names longer than this are never looked up.
    private static let longest = 32

    private init() {
        let spellings = [
            "Date", "Server", "Content-Type", "Content-Length", "Connection", "Keep-Alive", "Transfer-Encoding",
            "Content-Encoding", "Last-Modified", "ETag", "Accept-Ranges", "Cache-Control", "Expires", "Age",
            "Vary", "Location", "Set-Cookie", "Via", "Pragma", "Alt-Svc", "Content-Language", "Content-Disposition",
            "Content-Range", "Retry-After", "WWW-Authenticate", "Strict-Transport-Security",
            "Access-Control-Allow-Origin", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy",
        ]
        let variants = Set(spellings.flatMap { [$0, $0.lowercased()] }).sorted { ($0.utf8.count, $0) < ($1.utf8.count, $1) }
        var bytes: [UInt8] = []
        var entries: [(offset: Int, name: HTTPField.Name)] = []
        var firstOfLength = [Int](repeating: 0, count: Self.longest + 2)
        for variant in variants {
            let count = variant.utf8.count
            precondition(count <= Self.longest, "a common field name longer than the table allows")
            guard let name = HTTPField.Name(variant) else { preconditionFailure("invalid field name \(variant)") }
            entries.append((bytes.count, name))
            bytes.append(contentsOf: variant.utf8)
            for length in (count + 1)...(Self.longest + 1) { firstOfLength[length] = entries.count }
        }
        self.bytes = bytes
        self.entries = entries
        self.firstOfLength = firstOfLength
    }

    /// How many spellings the table holds: each has a slot, from 0 to `count - 1` (``RecentFields``).
    var count: Int { entries.count }

    /// The name in `slot`, which ``slot(of:)`` gave.
    func name(at slot: Int) -> HTTPField.Name { entries[slot].name }

    /// The slot of the spelling whose bytes are exactly `name`, or nil.
    func slot(of name: UnsafeBufferPointer<UInt8>) -> Int? {
        let count = name.count
        guard count > 0, count <= Self.longest, let input = name.baseAddress else { return nil }
        return bytes.withUnsafeBufferPointer { table -> Int? in
            for index in firstOfLength[count]..<firstOfLength[count + 1] {
                if memcmp(table.baseAddress! + entries[index].offset, input, count) == 0 { return index }
            }
            return nil
        }
    }
}
