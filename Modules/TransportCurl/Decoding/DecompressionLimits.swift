extension CurlTransport.Configuration {
    /// What a compressed response body may decode to before the transfer fails with a
    /// ``CourierCore/TransportError`` whose code is `.decompressionLimitExceeded`.
    ///
    /// The default refuses only what no real body does: a ratio above 2,048 (deflate, and so gzip,
    /// cannot pass about 1,032:1, so no gzip or deflate body is ever refused; brotli and zstd
    /// bombs reach tens of thousands to one), checked once the body passes 1 MiB decoded so tiny
    /// bodies of zeros pass. There is no size limit by default: a stream may be as long as its
    /// reader wants. AsyncHTTPClient's `decompression: .enabled(limit: .ratio(N))` is the same idea.
    public struct DecompressionLimits: Sendable, Hashable {
        /// The most decoded bytes a body may have; `nil` for no limit.
        public var maximumSize: Int64?
        /// The most decoded bytes per byte received; `nil` for no limit.
        public var maximumRatio: Int?
        /// Decoded bytes below which the ratio is not checked.
        public var ratioAppliesAbove: Int64

        /// Limits; the defaults are described on the type.
        public init(maximumSize: Int64? = nil, maximumRatio: Int? = 2048, ratioAppliesAbove: Int64 = 1024 * 1024) {
            self.maximumSize = maximumSize
            self.maximumRatio = maximumRatio
            self.ratioAppliesAbove = ratioAppliesAbove
        }

        /// No limits.
        public static let none = DecompressionLimits(maximumSize: nil, maximumRatio: nil)
    }
}
