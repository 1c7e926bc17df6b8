import CourierCore

/// `--timing`: the final exchange's metrics as an aligned table.
///
/// ```text
/// DNS lookup         0.1 ms
/// connect            0.3 ms
/// TLS handshake      -
/// first byte         4.2 ms
/// total              4.9 ms
/// bytes              sent 0, received 312
/// HTTP version       HTTP/1.1
/// remote address     127.0.0.1:18080
/// reused connection  no
/// ```
/// Every duration is measured from the start of the exchange; a phase that did not happen
/// (no lookup for an IP address, no TLS over `http`, a reused connection) shows `-`.
enum TimingReport {
    static func format(_ metrics: TransferMetrics) -> String {
        let rows: [(String, String)] = [
            ("DNS lookup", milliseconds(metrics.domainLookup)),
            ("connect", milliseconds(metrics.connect)),
            ("TLS handshake", milliseconds(metrics.secureConnection)),
            ("first byte", milliseconds(metrics.firstByte)),
            ("total", milliseconds(metrics.total)),
            ("bytes", "sent \(metrics.bytesSent), received \(metrics.bytesReceived)"),
            ("HTTP version", metrics.httpVersion ?? "-"),
            ("remote address", metrics.remoteAddress ?? "-"),
            ("reused connection", metrics.reusedConnection.map { $0 ? "yes" : "no" } ?? "-"),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { label, value in
            label + String(repeating: " ", count: width - label.count + 2) + value + "\n"
        }.joined()
    }

    /// `12.3 ms`, or `-` for a phase that did not happen.
    static func milliseconds(_ duration: Duration?) -> String {
        guard let duration else { return "-" }
        // Tenths of a millisecond, rounded to the nearest: 1 s = 10 000 tenths, 1 tenth = 10¹⁴ as.
        let (seconds, attoseconds) = duration.components
        let tenths = seconds * 10_000 + (attoseconds + 50_000_000_000_000) / 100_000_000_000_000
        let whole = tenths / 10
        let fraction = tenths % 10
        return "\(whole).\(fraction) ms"
    }
}
