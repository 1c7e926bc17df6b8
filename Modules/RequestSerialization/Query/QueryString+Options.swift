import CourierCore

extension QueryString {
    /// How arrays, booleans and spaces are written; the defaults are AFNetworking's rules.
    ///
    /// ```swift
    /// let options = QueryString.Options(arrays: .indexed, booleans: .literal, spaces: .plus)
    /// try QueryString.encode(["ids": [7, 8], "on": true, "q": "a b+c"], options: options)
    /// // "ids%5B0%5D=7&ids%5B1%5D=8&on=true&q=a+b%2Bc"
    /// ```
    ///
    /// Servers differ: PHP and Rails read `ids[]=1`, many Go and Java frameworks read `ids=1&ids=2`,
    /// and HTML forms send spaces as `+`. The defaults keep AFNetworking's bytes exactly.
    public struct Options: Sendable, Hashable {
        /// How each element of an array is named (Core's, shared with multipart forms).
        public typealias ArrayStyle = QueryPair.ArrayStyle

        /// How a boolean reads (Core's, shared with multipart forms).
        public typealias BoolStyle = QueryPair.BoolStyle

        /// How a space is written.
        public enum SpaceStyle: Sendable, Hashable {
            /// `%20` (AFNetworking's rule; RFC 3986).
            case percentEscaped
            /// `+`, as HTML forms send it (`application/x-www-form-urlencoded` in the WHATWG URL
            /// standard). A literal `+` is still `%2B`, so the two never mix up.
            case plus
        }

        /// How each element of an array is named; ``ArrayStyle/brackets`` by default.
        public var arrays: ArrayStyle
        /// How a boolean reads; ``BoolStyle/numeric`` by default.
        public var booleans: BoolStyle
        /// How a space is written; ``SpaceStyle/percentEscaped`` by default.
        public var spaces: SpaceStyle

        /// Options; the defaults give AFNetworking's bytes.
        public init(arrays: ArrayStyle = .brackets, booleans: BoolStyle = .numeric, spaces: SpaceStyle = .percentEscaped) {
            self.arrays = arrays
            self.booleans = booleans
            self.spaces = spaces
        }

        /// AFNetworking's rules: `key[]`, `1`/`0`, `%20`.
        public static let `default` = Options()
    }
}
