import HTTPTypes

extension HTTPResponse {
    /// The MIME type of `Content-Type` without its parameters, lower-cased:
    /// `Application/JSON; charset=utf-8` → `application/json`; `nil` without the header
    /// (what `NSURLResponse.MIMEType` gives AFNetworking). When a server sends the field more
    /// than once, the last one counts, as browsers read it (Fetch's "extract a MIME type").
    public var mimeType: String? {
        guard let value = headerFields[values: .contentType].last else { return nil }
        let type = value.prefix { $0 != ";" }.trimmingASCIISpaces()
        return type.isEmpty ? nil : type.lowercased()
    }

    /// The `charset` parameter of `Content-Type`, lower-cased and unquoted, when there is one.
    public var charset: String? {
        guard let value = headerFields[values: .contentType].last else { return nil }
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingASCIISpaces().lowercased() == "charset" else { continue }
            var charset = pair[1].trimmingASCIISpaces()
            if charset.hasPrefix("\""), charset.hasSuffix("\""), charset.count >= 2 {
                charset = String(charset.dropFirst().dropLast())
            }
            return charset.lowercased()
        }
        return nil
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingASCIISpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
