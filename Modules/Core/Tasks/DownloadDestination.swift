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

    /// A destination computed from the response head and the suggested file name (made safe by
    /// ``SuggestedFileName``, `download` when the response suggests none).
    public init(options: Options = [], _ resolve: @escaping @Sendable (_ response: HTTPResponse, _ suggestedFilename: String) -> URL) {
        self.resolve = resolve
        self.options = options
    }

    /// A fixed destination.
    public init(url: URL, options: Options = []) {
        self.init(options: options) { _, _ in url }
    }

    /// The suggested file name inside `directory`: ``SuggestedFileName`` of the response's
    /// `Content-Disposition`, else of the URL's last path segment, else `download`. Whatever the
    /// server sends, the file is an entry of `directory` itself, never a hidden one.
    public static func suggested(in directory: URL, options: Options = [.createIntermediateDirectories]) -> DownloadDestination {
        DownloadDestination(options: options) { _, name in directory.appending(path: name) }
    }

    /// The name a download is given in ``suggested(in:options:)``: ``SuggestedFileName`` of the
    /// response's `Content-Disposition` and the request's URL, else `download`; never a path.
    static func suggestedFilename(for response: HTTPResponse, request: HTTPRequest) -> String {
        SuggestedFileName.from(contentDisposition: response.headerFields[.contentDisposition], url: request.url) ?? "download"
    }
}
