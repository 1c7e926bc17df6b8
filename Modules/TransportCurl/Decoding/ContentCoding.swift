import CourierCore
import HTTPTypes

/// A content coding of a response body (RFC 9110 §8.4), as named in `Content-Encoding`.
enum ContentCoding: Sendable, Hashable {
    /// gzip (also sent as `x-gzip`).
    case gzip
    /// deflate: the zlib format; a raw deflate stream, which some servers send under this name, is
    /// recognized by its first bytes and accepted too.
    case deflate
    /// Brotli.
    case brotli
    /// Zstandard.
    case zstd

    /// The value this transport sends in `Accept-Encoding`: every coding it decodes.
    static let acceptEncoding = "gzip, deflate, br, zstd"

    /// The header line a request without its own `Accept-Encoding` ends with, when the transport decodes
    /// (made once; `nil` only when libcurl could not allocate it).
    static let acceptEncodingLine = SharedHeaderLine("Accept-Encoding: \(acceptEncoding)")

    /// The most codings a response may name. Each is a decoder of its own (a zlib window, a zstd or Brotli
    /// context) that every body byte passes through, so a head naming thousands (a 300 KiB head holds about 40,000)
    /// made one small response cost gigabytes and seconds of CPU: 5,000 `deflate` layers over 100 bytes took 3.4 s
    /// and 459 MB. Servers apply one, rarely two; libcurl refuses more than 5 for the same reason (CVE-2023-23916).
    static let maximumCount = 5

    /// The codings of a response, in the order the server applied them (so decoding runs them backwards): its
    /// content codings (`Content-Encoding`, every field), then its transfer codings (`Transfer-Encoding` but
    /// `chunked`, which libcurl undoes), which a server applies last; `identity` entries are dropped. A transfer
    /// coding is the connection's, not the representation's, so it is undone even when the content codings are
    /// kept (`includingContent` false): `Transfer-Encoding: gzip, chunked` once reached the caller as gzip bytes.
    /// - Throws: ``CourierCore/TransportError`` with `.decodingFailed` for a coding it cannot decode, or for more
    ///   than ``maximumCount`` codings; `.malformedResponse` for `chunked` named twice in one field, which RFC 9112
    ///   §7.1 forbids and libcurl undoes once, so the body would keep one chunked framing in its bytes.
    static func codings(of head: HTTPResponse, includingContent: Bool = true) throws -> [ContentCoding] {
        var content: [ContentCoding] = []
        var transfer: [ContentCoding] = []

        for field in head.headerFields {
            let isContent = field.name.matches(.contentEncoding)
            guard isContent ? includingContent : field.name.matches(.transferEncoding) else { continue }
            // Within one field: two fields of `chunked` are a header copied twice (an application repeating its
            // upstream's), with the body chunked once, as libcurl and browsers take it.
            var chunked = false
            for token in field.value.split(separator: ",") {
                // A transfer coding may carry parameters (RFC 9112 §7); none of those named here has any.
                let name = (isContent ? token : token.prefix { $0 != ";" }).trimmingOptionalWhitespace().lowercased()
                let coding: ContentCoding
                switch name {
                case "", "identity": continue
                case "chunked" where !isContent:
                    guard !chunked else {
                        throw TransportError(
                            .malformedResponse,
                            message: "the response's Transfer-Encoding \"\(field.value)\" applies chunked more than once, which HTTP/1.1 forbids"
                        )
                    }
                    chunked = true
                    continue
                case "gzip", "x-gzip": coding = .gzip
                case "deflate": coding = .deflate
                case "br": coding = .brotli
                case "zstd": coding = .zstd
                default:
                    throw TransportError(
                        .decodingFailed,
                        message: "the response's \(field.name) \"\(field.value)\" names \"\(name)\", which Courier cannot decode (it decodes \(acceptEncoding))"
                    )
                }
                if content.count + transfer.count == maximumCount {
                    throw TransportError(
                        .decodingFailed,
                        message: "the response's Content-Encoding and Transfer-Encoding name more than \(maximumCount) codings, the most Courier decodes (as libcurl)"
                    )
                }
                if isContent { content.append(coding) } else { transfer.append(coding) }
            }
        }
        return content + transfer
    }

    /// What a response body is to be decoded with: `nil` when it is sent as it is, otherwise its
    /// codings, or the error its first read throws (an unknown coding fails the body, not the head). Without
    /// `includingContent`, only its transfer codings.
    static func decoding(_ head: HTTPResponse, includingContent: Bool = true) -> Result<[ContentCoding], any Error>? {
        do {
            let codings = try codings(of: head, includingContent: includingContent)
            return codings.isEmpty ? nil : .success(codings)
        } catch {
            return .failure(error)
        }
    }

    /// The coding's name in `Content-Encoding`.
    var name: String {
        switch self {
        case .gzip: return "gzip"
        case .deflate: return "deflate"
        case .brotli: return "br"
        case .zstd: return "zstd"
        }
    }
}
