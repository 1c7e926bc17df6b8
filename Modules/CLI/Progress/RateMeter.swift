/// The transfer rate over a sliding window, so the rate and the ETA follow speed changes within
/// a few seconds without jumping at every chunk.
struct RateMeter: Sendable {
    /// How far back samples count, in seconds.
    var window: Double
    private var samples: [(time: Double, bytes: Int64)] = []

    /// A meter averaging over the last `window` seconds.
    init(window: Double = 3) {
        self.window = window
    }

    /// Records that `bytes` had moved `time` seconds after the start.
    mutating func record(bytes: Int64, at time: Double) {
        samples.append((time, bytes))
        if let first = samples.firstIndex(where: { time - $0.time <= window }), first > 0 {
            // Keep one sample older than the window so the span covers the whole window.
            samples.removeFirst(first - 1)
        }
    }

    /// Bytes per second across the window; `nil` until two samples are a moment apart.
    var bytesPerSecond: Double? {
        guard let first = samples.first, let last = samples.last, last.time - first.time >= 0.05 else { return nil }
        return Double(last.bytes - first.bytes) / (last.time - first.time)
    }
}
