import Foundation

/// What `-c` needs to resume a partial download safely: the validators of the response that
/// started it, kept in a small sidecar file next to the partial one (`<file>.courier-resume`).
///
/// ```text
/// url: http://127.0.0.1:18081/files/1m.bin
/// etag: "65f1c2-100000"
/// last-modified: Wed, 13 Mar 2024 10:00:00 GMT
/// ```
/// With a validator the resumed request carries `If-Range`, so a file that changed on the server
/// comes back whole (200) instead of as a mismatched tail (206).
struct ResumeRecord: Equatable, Sendable {
    /// The URL the partial file came from.
    var url: String
    /// The response's `ETag`, if any.
    var etag: String?
    /// The response's `Last-Modified`, if any.
    var lastModified: String?

    /// The sidecar's path for the partial file at `path`.
    static func sidecarPath(for path: String) -> String { path + ".courier-resume" }

    /// The `If-Range` value: a strong `ETag`, else `Last-Modified`, else nothing (a weak ETag
    /// cannot be used for a range, RFC 9110 §13.1.5).
    var ifRange: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }

    /// The record as the sidecar stores it.
    var serialized: String {
        var text = "url: \(url)\n"
        if let etag { text += "etag: \(etag)\n" }
        if let lastModified { text += "last-modified: \(lastModified)\n" }
        return text
    }

    /// Reads a record from the sidecar's text; `nil` when it holds no URL.
    init?(serialized text: String) {
        var url: String?
        for line in text.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch key {
            case "url": url = value
            case "etag": etag = value
            case "last-modified": lastModified = value
            default: break
            }
        }
        guard let url else { return nil }
        self.url = url
    }

    init(url: String, etag: String?, lastModified: String?) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The record stored next to `path`, if there is a readable one.
    static func load(for path: String) -> ResumeRecord? {
        guard let data = FileManager.default.contents(atPath: sidecarPath(for: path)) else { return nil }
        return ResumeRecord(serialized: String(decoding: data, as: UTF8.self))
    }

    /// Stores the record next to `path`. Best effort: without it a resume still works, only
    /// without `If-Range`.
    func save(for path: String) {
        _ = FileManager.default.createFile(atPath: Self.sidecarPath(for: path), contents: Data(serialized.utf8))
    }

    /// Removes the sidecar next to `path` (the download completed).
    static func remove(for path: String) {
        try? FileManager.default.removeItem(atPath: sidecarPath(for: path))
    }
}
