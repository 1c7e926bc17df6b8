import FoundationEssentials

/// A multipart form could not be built or sent as asked; nothing was sent when it comes from the
/// builder.
///
/// A struct with a reason rather than an enum, so new reasons never break a `switch`. The
/// message names the part and the file, in AFNetworking's words where it had some.
///
/// ```swift
/// do { try form.appendFile(at: "/missing.png", name: "avatar") }
/// catch let error as MultipartError where error.reason == .fileNotReachable { print(error) }
/// // File URL not reachable. (part "avatar", file /missing.png: No such file or directory)
/// ```
public struct MultipartError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        let name: String

        /// A URL given as a file was not a `file:` URL (AFNetworking: `NSURLErrorBadURL`,
        /// "Expected URL to be a file URL").
        public static let notAFileURL = Reason(name: "not a file URL")
        /// The file does not exist, is not a regular file, or cannot be opened (AFNetworking:
        /// `NSURLErrorBadURL`, "File URL not reachable.").
        public static let fileNotReachable = Reason(name: "file not reachable")
        /// A stream part has no known length, so the form's `Content-Length` cannot be exact.
        public static let unknownLength = Reason(name: "unknown length")
        /// A stream part delivered more or fewer bytes than it announced.
        public static let lengthMismatch = Reason(name: "length mismatch")
        /// A boundary given to ``MultipartFormData/init(boundary:mimeTypes:)`` that RFC 2046 does
        /// not allow (empty, over 70 characters, ending in a space, or holding a character such as
        /// CR, LF, `"` or a non-ASCII letter).
        public static let invalidBoundary = Reason(name: "invalid boundary")
        /// Parameters given to ``MultipartFormData/appendParameters(_:)`` whose top level is not a
        /// dictionary, so a part would have no name.
        public static let parametersNotDictionary = Reason(name: "parameters not a dictionary")
        /// `GET` and `HEAD` carry no body, so they cannot carry a form (AFNetworking asserts).
        public static let methodWithoutBody = Reason(name: "method without body")

        /// The reason's name.
        public var description: String { name }
    }

    /// What was wrong.
    public var reason: Reason
    /// The part's name, when one part is at fault.
    public var partName: String?
    /// The file or URL involved, if any.
    public var path: String?
    /// What the system or the check said.
    public var detail: String

    /// A multipart error.
    public init(_ reason: Reason, partName: String? = nil, path: String? = nil, detail: String) {
        self.reason = reason
        self.partName = partName
        self.path = path
        self.detail = detail
    }

    /// A sentence a user can act on; AFNetworking's wording first where it had one.
    public var description: String {
        var context: [String] = []
        if let partName { context.append("part \"\(partName)\"") }
        if let path { context.append("file \(path)") }
        let place = context.isEmpty ? "" : context.joined(separator: ", ") + ": "
        switch reason {
        case .notAFileURL:
            return "Expected URL to be a file URL (\(place)\(detail))"
        case .fileNotReachable:
            return "File URL not reachable. (\(place)\(detail))"
        default:
            return "multipart form \(reason): \(place)\(detail)"
        }
    }
}
