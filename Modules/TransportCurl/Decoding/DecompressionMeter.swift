import CourierCore

/// Counts a body's bytes on the wire and decoded, and stops a decompression bomb: a body whose
/// decoded size passes ``CurlTransport/Configuration/DecompressionLimits/maximumSize`` or whose
/// ratio to the bytes received passes ``CurlTransport/Configuration/DecompressionLimits/maximumRatio``.
struct DecompressionMeter {
    let limits: CurlTransport.Configuration.DecompressionLimits
    private(set) var wireBytes: Int64 = 0
    private(set) var decodedBytes: Int64 = 0

    init(limits: CurlTransport.Configuration.DecompressionLimits) { self.limits = limits }

    mutating func received(_ count: Int) { wireBytes += Int64(count) }

    /// Counts decoded bytes handed to the reader.
    /// - Throws: ``CourierCore/TransportError`` with `.decompressionLimitExceeded`.
    mutating func decoded(_ count: Int) throws {
        decodedBytes += Int64(count)
        if let maximum = limits.maximumSize, decodedBytes > maximum {
            throw TransportError(
                .decompressionLimitExceeded,
                message: "the response body decodes to more than \(maximum) bytes (DecompressionLimits.maximumSize); \(wireBytes) bytes received so far"
            )
        }
        // The product saturates: a ratio of `Int.max` (a way to write "no limit") overflowed once 2 bytes had come.
        if let ratio = limits.maximumRatio, decodedBytes > limits.ratioAppliesAbove,
           case let (allowed, overflow) = Int64(ratio).multipliedReportingOverflow(by: max(wireBytes, 1)),
           ratio < 0 || (!overflow && decodedBytes > allowed) {
            throw TransportError(
                .decompressionLimitExceeded,
                message: "the response body decodes to \(decodedBytes) bytes from \(wireBytes), more than \(ratio) times its size (DecompressionLimits.maximumRatio): a decompression bomb?"
            )
        }
    }
}
