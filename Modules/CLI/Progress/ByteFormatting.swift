/// Sizes, rates and durations as the progress bar and the download summary print them.
///
/// ```swift
/// ByteFormatting.size(1_536)            // "1.5 KiB"
/// ByteFormatting.rate(2_411_724.8)      // "2.3 MiB/s"
/// ByteFormatting.clock(seconds: 3_725)  // "1:02:05"
/// ```
enum ByteFormatting {
    private static let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]

    /// `999 B`, then one decimal in binary units: `1.0 KiB`, `1.9 MiB`, `3.2 GiB`.
    static func size(_ bytes: Int64) -> String {
        guard bytes >= 1024 else { return "\(max(0, bytes)) B" }
        var value = Double(bytes) / 1024
        var unit = 0
        // Round first, so 1023.96 KiB reads 1.0 MiB rather than 1024.0 KiB.
        while (value * 10).rounded() >= 10240, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return oneDecimal(value) + " " + units[unit]
    }

    /// `size/s` for a rate in bytes per second; `-- B/s` when there is none yet.
    static func rate(_ bytesPerSecond: Double?) -> String {
        guard let bytesPerSecond, bytesPerSecond.isFinite, bytesPerSecond >= 0 else { return "-- B/s" }
        return size(Int64(bytesPerSecond.rounded())) + "/s"
    }

    /// `m:ss` below an hour, `h:mm:ss` from there; `--:--` when unknown.
    static func clock(seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0, seconds < 360_000 else { return "--:--" }
        let total = Int(seconds.rounded(.up))
        let hours = total / 3600
        let minutes = (total % 3600) / 60
        let secs = total % 60
        if hours > 0 { return "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" }
        return "\(minutes):\(twoDigits(secs))"
    }

    /// A duration for a summary: `45 ms`, `1.2s`, `12.4s`, `2:05`.
    static func elapsed(seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "-" }
        if seconds < 0.9995 { return "\(Int((seconds * 1000).rounded())) ms" }
        if seconds < 60 { return oneDecimal(seconds) + "s" }
        return clock(seconds: seconds)
    }

    /// `1 byte`, `40 bytes`.
    static func count(_ value: Int64, _ singular: String, _ plural: String) -> String {
        "\(value) " + (value == 1 ? singular : plural)
    }

    /// `value` with exactly one decimal, rounded half up.
    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
