import CourierCore
import HTTPTypes

/// Whether a response's `Content-Length` can frame its body, as RFC 9112 section 6.3 asks of a client: a value that is
/// not a decimal count, or two counts that disagree, make the framing invalid, an unrecoverable error. libcurl 7.88
/// frames such a body all the same: it takes the last of two fields that disagree, the leading digits of `0x5` (0,
/// leaving the five bytes on the connection), `+5` and `5 5` as 5, and a count past 2⁶³ − 1 as no count (the body
/// then ends with the connection). A client that frames a body otherwise than the server, or than a proxy between
/// them, meant takes a wrong body, or the next response's bytes for this one's.
///
/// Pure, so it is tested without a socket. A list of equal counts (`10, 10`, or two fields of `10`) is one count, as
/// RFC 9110 section 8.6 allows, because a proxy that joins fields makes it. The same walk over the fields reads the
/// `Transfer-Encoding` that frames a body in a length's place, so that ``BodyFraming`` needs no walk of its own.
enum ContentLengthCheck {
    /// What a head's fields say of its body's length.
    enum Reading: Equatable {
        /// Neither `Content-Length` nor `Transfer-Encoding`.
        case none
        /// A `Transfer-Encoding`, which frames the body in a length's place (rule 3) and which libcurl then frames by,
        /// whatever a length beside it says: the last chunk ends the body when the last coding named is chunked, the
        /// connection's end when it is another or none. `besideLength`: a `Content-Length` came too, which RFC 9112
        /// section 6.1 calls a sign of request smuggling or response splitting: a party between that framed the body
        /// by the length would have passed on other bytes as the next response, so the connection is not reused.
        case transferCoding(lastIsChunked: Bool, besideLength: Bool)
        /// One count of bytes.
        case count(Int64)
        /// Why the fields give no one count.
        case problem(String)

        /// The count, if there is one.
        var count: Int64? {
            if case .count(let count) = self { return count }
            return nil
        }

        /// Whether the connection of a head read from a status line of `version` must carry no other exchange: one
        /// framed both by a transfer coding and by a length, or an `HTTP/1.0` head with a transfer coding, which
        /// HTTP/1.0 does not have (RFC 9112 section 6.1: its framing is faulty, and the connection is closed after
        /// it; an HTTP/1.0 party between would have framed the body otherwise).
        func forbidsReuse(version: String) -> Bool {
            guard case .transferCoding(_, let besideLength) = self else { return false }
            return besideLength || version == "HTTP/1.0"
        }
    }

    /// Why `head` cannot be read as an HTTP response with a body framed as its fields say, or nil when it can: a
    /// switch of protocols nobody asked for (Courier sends no `Upgrade`, so every 101 is one, and what follows it is
    /// not HTTP), or a `Content-Length` that cannot frame a body. The answer to a HEAD, a 204 or a 304 has no body
    /// whatever its fields say (RFC 9112 section 6.3, rule 1), and `reading` is `read(head.headerFields)`.
    static func problem(in head: HTTPResponse, method: HTTPRequest.Method, reading: Reading) -> String? {
        let code = head.status.code
        if code == 101 {
            return "the server switched protocols (101 Switching Protocols), which the request did not ask for"
        }
        guard method != .head, code != 204, code != 304, case .problem(let problem) = reading else { return nil }
        return problem
    }

    /// What `fields` say of the body's length.
    static func read(_ fields: HTTPFields) -> Reading {
        var count: Int64?
        var problem: String?
        var lastCodingIsChunked: Bool?
        var sawLength = false
        for field in fields {
            if field.name.matches(.transferEncoding) {
                lastCodingIsChunked = Self.lastCodingIsChunked(field) ?? lastCodingIsChunked ?? false
                continue
            }
            guard field.name.matches(.contentLength) else { continue }
            sawLength = true
            guard lastCodingIsChunked == nil, problem == nil else { continue }
            problem = field.withUnsafeBytesOfValue { value in
                // The comma-separated counts of the value, walked in place (no array of pieces per response).
                var start = 0
                while start <= value.count {
                    var end = start
                    while end < value.count, value[end] != UInt8(ascii: ",") { end += 1 }
                    guard let parsed = decimalCount(UnsafeBufferPointer(rebasing: value[start..<end])) else {
                        return "the response's Content-Length is not a count of bytes: \"\(field.value.prefix(80))\""
                    }
                    if let count, count != parsed {
                        return "the response's Content-Length fields disagree: \(count) and \(parsed)"
                    }
                    count = parsed
                    start = end + 1
                }
                return nil
            }
        }
        if let lastCodingIsChunked { return .transferCoding(lastIsChunked: lastCodingIsChunked, besideLength: sawLength) }
        if let problem { return .problem(problem) }
        return count.map(Reading.count) ?? .none
    }

    /// Whether the last coding a `Transfer-Encoding` field names is chunked, or nil when it names none (blank, or
    /// commas only). Walked back from the value's end in place: no array of codings per head.
    private static func lastCodingIsChunked(_ field: HTTPField) -> Bool? {
        field.withUnsafeBytesOfValue { value in
            var end = value.count
            while end > 0 {
                // The coding that ends at `end`: back to the comma before it, spaces and tabs at its ends skipped.
                var start = end
                while start > 0, value[start - 1] != UInt8(ascii: ",") { start -= 1 }
                var first = start, last = end
                while first < last, value[first] == 0x20 || value[first] == 0x09 { first += 1 }
                while last > first, value[last - 1] == 0x20 || value[last - 1] == 0x09 { last -= 1 }
                if first < last { return isChunked(UnsafeBufferPointer(rebasing: value[first..<last])) }
                end = start - 1
            }
            return nil
        }
    }

    /// `chunked`, ASCII letters in any case: a `K` that is the Kelvin sign does not make one, as libcurl reads bytes.
    private static func isChunked(_ coding: UnsafeBufferPointer<UInt8>) -> Bool {
        coding.count == 7 && zip(coding, "chunked".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// `1*DIGIT` between optional spaces and tabs, as a count that fits in 63 bits, or nil.
    private static func decimalCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var start = 0, end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        guard start < end else { return nil }
        var count: Int64 = 0
        for byte in bytes[start..<end] {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times, overflowTimes) = count.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int64(byte - 0x30))
            guard !overflowTimes, !overflowSum else { return nil }
            count = sum
        }
        return count
    }
}
