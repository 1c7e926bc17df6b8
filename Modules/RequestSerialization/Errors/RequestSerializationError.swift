/// Parameters could not be turned into a query string or a body: nothing was sent.
///
/// A struct with a reason rather than an enum, so new reasons never break a `switch`. The
/// message names the offending place in the parameter tree, e.g. `parameters["scores"][2]`.
///
/// ```swift
/// do { _ = try JSONRequestSerializer().serialize(request, parameters: ["ratio": .double(.nan)]) }
/// catch let error as RequestSerializationError where error.reason == .invalidJSON { … }
/// ```
public struct RequestSerializationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        let name: String

        /// The parameters have no JSON form: a set, a NaN or infinite number, or a top level that
        /// is neither an array nor a dictionary. AFNetworking reports this as
        /// `com.alamofire.error.serialization.request` code -1016.
        public static let invalidJSON = Reason(name: "invalid JSON")
        /// The default query-string rules need a dictionary at the top level (a key for every
        /// value); AFNetworking would render a `(null)` or empty key instead.
        public static let parametersNotDictionary = Reason(name: "parameters not a dictionary")
        /// The parameters have no property-list form: `.null` (property lists have no null) or a
        /// `.set` (no unordered collection), or a string holding a character XML 1.0 cannot
        /// carry (a control character other than tab, line feed and carriage return).
        /// AFNetworking fails the same way when `NSPropertyListSerialization` refuses them.
        public static let invalidPropertyList = Reason(name: "invalid property list")

        /// The reason's name.
        public var description: String { name }
    }

    /// What was wrong.
    public var reason: Reason
    /// Where in the parameter tree, e.g. `parameters` or `parameters["user"]["tags"][0]`.
    public var location: String
    /// What the value was and what to do instead.
    public var detail: String

    /// A request-serialization error.
    public init(_ reason: Reason, location: String, detail: String) {
        self.reason = reason
        self.location = location
        self.detail = detail
    }

    /// A sentence a user can act on, e.g. `parameters not a dictionary at parameters: …`. For
    /// ``Reason/invalidJSON`` it starts with AFNetworking's wording:
    /// ``The `parameters` argument is not valid JSON. parameters["ratio"]: nan is not a JSON number…``
    public var description: String {
        switch reason {
        case .invalidJSON:
            return "The `parameters` argument is not valid JSON. \(location): \(detail)"
        default:
            return "\(reason) at \(location): \(detail)"
        }
    }
}
