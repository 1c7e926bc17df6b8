import FoundationEssentials
import HTTPTypes

/// Where a download task puts its file once the body has arrived.
///
/// ```swift
/// let fixed = DownloadDestination(url: URL(filePath: "/tmp/report.pdf"), options: .removePreviousFile)
/// let named = DownloadDestination.suggested(in: URL(filePath: "/tmp/downloads"))
/// ```
public struct DownloadDestination: Sendable {
    /// What to do around the move.
    public struct Options: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Create missing parent directories.
        public static let createIntermediateDirectories = Options(rawValue: 1 << 0)
        /// Replace a file already at the destination (otherwise the move fails).
        public static let removePreviousFile = Options(rawValue: 1 << 1)
    }

    let resolve: @Sendable (HTTPResponse, String) -> URL
    /// The move options.
    public var options: Options

    /// A destination computed from the response head and the suggested file name.
    public init(options: Options = [], _ resolve: @escaping @Sendable (_ response: HTTPResponse, _ suggestedFilename: String) -> URL) {
        self.resolve = resolve
        self.options = options
    }

    /// A fixed destination.
    public init(url: URL, options: Options = []) {
        self.init(options: options) { _, _ in url }
    }

    /// The suggested file name (from `Content-Disposition`, else the URL's last path segment)
    /// inside `directory`.
    public static func suggested(in directory: URL, options: Options = [.createIntermediateDirectories]) -> DownloadDestination {
        DownloadDestination(options: options) { _, name in directory.appending(path: name) }
    }

    /// A safe file name for a response: `Content-Disposition`'s `filename`, else the last path
    /// segment of the request, else `download`; never a path.
    static func suggestedFilename(for response: HTTPResponse, request: HTTPRequest) -> String {
        var candidate: String?
        if let disposition = response.headerFields[.contentDisposition],
           let range = disposition.firstRange(of: "filename=") {
            var value = disposition[range.upperBound...].prefix { $0 != ";" }
            value = value.drop { $0 == " " || $0 == "\"" }
            while value.last == "\"" || value.last == " " { value = value.dropLast() }
            candidate = String(value)
        }
        if candidate?.isEmpty ?? true {
            candidate = request.url?.lastPathComponent
        }
        let cleaned = (candidate ?? "")
            .split(separator: "/").last.map(String.init)?
            .filter { $0 != "\0" } ?? ""
        return cleaned.isEmpty || cleaned == "." || cleaned == ".." ? "download" : cleaned
    }
}
