/// One line of the progress bar, as a pure function of what has moved: tested without a terminal.
///
/// ```text
///  37% [=======>             ] 736.0 KiB / 1.9 MiB  1.2 MiB/s  ETA 0:01
///      [     <=>             ] 736.0 KiB  1.2 MiB/s                      (total unknown)
/// 100% [=====================] 1.9 MiB  2.3 MiB/s  done in 0.8s
/// ```
struct ProgressBar: Sendable {
    /// Bytes moved so far.
    var completed: Int64
    /// The expected total, when known.
    var total: Int64?
    /// The current rate in bytes per second, when measured; once ``finished``, the average.
    var rate: Double?
    /// Seconds since the transfer started.
    var elapsed: Double
    /// True once the transfer ended.
    var finished = false

    /// The line, fitted to `width` columns (the bar shrinks first, then disappears).
    func render(width: Int) -> String {
        let fraction: Double? = total.flatMap { $0 > 0 ? min(1, Double(completed) / Double($0)) : nil }
        let percent = fraction.map { Self.padLeft("\(Int(($0 * 100).rounded(.down)))%", to: 4) } ?? ""
        var details: String
        if finished {
            details = ByteFormatting.size(completed) + "  "
                + ByteFormatting.rate(rate ?? (elapsed > 0 ? Double(completed) / elapsed : nil))
                + "  done in " + ByteFormatting.elapsed(seconds: elapsed)
        } else if let total {
            details = ByteFormatting.size(completed) + " / " + ByteFormatting.size(total) + "  "
                + ByteFormatting.rate(rate) + "  ETA " + ByteFormatting.clock(seconds: eta(total: total))
        } else {
            details = ByteFormatting.size(completed) + "  " + ByteFormatting.rate(rate)
                + "  " + ByteFormatting.elapsed(seconds: elapsed)
        }
        let fixed = (percent.isEmpty ? 0 : percent.count + 1) + 3 + details.count
        let barWidth = min(30, width - fixed - 1)
        guard barWidth >= 5 else {
            return percent.isEmpty ? details : percent + " " + details
        }
        let bar = fraction.map { Self.bar(fraction: finished ? 1 : $0, width: barWidth) }
            ?? Self.bouncer(elapsed: elapsed, width: barWidth)
        return (percent.isEmpty ? "" : percent + " ") + "[" + bar + "] " + details
    }

    /// Seconds left at the current rate, when it can be told.
    func eta(total: Int64) -> Double? {
        guard let rate, rate > 0 else { return nil }
        return Double(max(0, total - completed)) / rate
    }

    /// `=======>    ` filled to `fraction` of `width`.
    static func bar(fraction: Double, width: Int) -> String {
        let filled = Int((fraction * Double(width)).rounded(.down))
        if filled >= width { return String(repeating: "=", count: width) }
        return String(repeating: "=", count: max(0, filled)) + ">" + String(repeating: " ", count: width - max(0, filled) - 1)
    }

    /// `   <=>     ` bouncing across `width`, for an unknown total.
    static func bouncer(elapsed: Double, width: Int) -> String {
        let span = max(1, width - 3)
        let step = Int(elapsed * 8) % (2 * span)
        let position = step < span ? step : 2 * span - step
        return String(repeating: " ", count: position) + "<=>" + String(repeating: " ", count: width - position - 3)
    }

    private static func padLeft(_ text: String, to width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
