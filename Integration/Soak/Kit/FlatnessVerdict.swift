/// When a soak's resources count as flat.
///
/// Warm-up ends at the first sample by which both ``SoakOptions/warmUpFraction`` of the requests have
/// completed and ``SoakOptions/warmUpSeconds`` have passed: connections are open, pools and caches
/// filled, the allocator's arenas grown. The samples from there to the end are split into two halves
/// by count (the first ⌊n/2⌋, then the rest), and the run is flat when, for each measure,
///
///     max(second half) ≤ max(first half) + slack
///
/// with slacks: resident memory (`VmRSS`) 8 MiB or 5 % of the first half's maximum, whichever is more;
/// peak resident memory (`VmHWM` at the last sample against `VmHWM` at the end of the first half) the
/// same; descriptors 16; threads 4. Each half needs at least 3 samples, otherwise the run is too short
/// to judge, which fails it too. A leak that grows with the requests grows through the second half as
/// it did through the first, so a second half ending above the first by more than the slack is one
/// the first half did not show. The slacks cover what moves without a leak: a few MiB of allocator
/// fragmentation and of bodies in flight at a sample; a connection closed by a cancellation and
/// reopened; a download's file open at a sample; a Dispatch worker thread started for a burst.
public struct FlatnessCriterion: Sendable {
    public var residentSlackKiB = 8 * 1024
    public var residentSlackFraction = 0.05
    public var descriptorSlack = 16
    public var threadSlack = 4
    public var minimumSamplesPerHalf = 3

    public init() {}

    /// The slack of a memory measure whose first-half maximum is `firstMaximum` KiB.
    func residentSlack(above firstMaximum: Int) -> Int {
        max(residentSlackKiB, Int((Double(firstMaximum) * residentSlackFraction).rounded(.up)))
    }
}

/// The judgement of one run's samples.
public struct FlatnessVerdict: Sendable {
    /// One measure's comparison.
    public struct Check: Sendable {
        public var measure: String
        public var firstMaximum: Int
        public var secondMaximum: Int
        public var allowed: Int
        public var passed: Bool { secondMaximum <= allowed }
    }

    /// The index of the first sample after warm-up, nil when warm-up never ended.
    public var warmUpEnd: Int?
    /// The sample indices of the two halves.
    public var firstHalf: Range<Int>
    public var secondHalf: Range<Int>
    public var checks: [Check]
    /// Why the run could not be judged, when it could not.
    public var tooShort: String?
    /// The least-squares slope of resident memory against completed requests after warm-up, in bytes
    /// per request: a figure to read beside the checks (what a leak per request would look like).
    public var residentTrendBytesPerRequest: Double?

    public var passed: Bool { tooShort == nil && checks.allSatisfy(\.passed) }

    /// Judges `samples` of a run of `requests` requests.
    public static func judge(
        _ samples: [ResourceSample],
        requests: Int,
        warmUpFraction: Double,
        warmUpSeconds: Double,
        criterion: FlatnessCriterion = FlatnessCriterion()
    ) -> FlatnessVerdict {
        let warmUpRequests = Int((Double(requests) * warmUpFraction).rounded(.up))
        let warmUpEnd = samples.firstIndex { $0.completed >= warmUpRequests && $0.seconds >= warmUpSeconds }
        let start = warmUpEnd ?? samples.count
        let middle = start + (samples.count - start) / 2
        var verdict = FlatnessVerdict(
            warmUpEnd: warmUpEnd, firstHalf: start..<middle, secondHalf: middle..<samples.count, checks: [], tooShort: nil
        )
        guard warmUpEnd != nil else {
            verdict.tooShort = "warm-up (\(warmUpRequests) requests and \(warmUpSeconds) s) never ended"
            return verdict
        }
        guard verdict.firstHalf.count >= criterion.minimumSamplesPerHalf,
              verdict.secondHalf.count >= criterion.minimumSamplesPerHalf
        else {
            verdict.tooShort = "\(samples.count - start) samples after warm-up; at least \(2 * criterion.minimumSamplesPerHalf) are needed"
            return verdict
        }
        let first = samples[verdict.firstHalf], second = samples[verdict.secondHalf]
        verdict.residentTrendBytesPerRequest = slope(samples[start...].map { (Double($0.completed), Double($0.residentKiB) * 1024) })
        func compare(_ measure: String, _ value: (ResourceSample) -> Int, slack: (Int) -> Int) -> Check {
            let firstMaximum = first.map(value).max()!, secondMaximum = second.map(value).max()!
            return Check(measure: measure, firstMaximum: firstMaximum, secondMaximum: secondMaximum, allowed: firstMaximum + slack(firstMaximum))
        }
        let residentSlack = criterion.residentSlack(above:)
        let firstPeak = first.last!.peakResidentKiB, lastPeak = second.last!.peakResidentKiB
        verdict.checks = [
            compare("resident memory (KiB)", \.residentKiB, slack: residentSlack),
            Check(measure: "peak resident memory (KiB)", firstMaximum: firstPeak, secondMaximum: lastPeak, allowed: firstPeak + residentSlack(firstPeak)),
            compare("open descriptors", \.descriptors) { _ in criterion.descriptorSlack },
            compare("threads", \.threads) { _ in criterion.threadSlack },
        ]
        return verdict
    }
}

/// The least-squares slope of y against x; nil when x does not vary.
func slope(_ points: [(x: Double, y: Double)]) -> Double? {
    guard points.count >= 2 else { return nil }
    let meanX = points.map(\.x).reduce(0, +) / Double(points.count)
    let meanY = points.map(\.y).reduce(0, +) / Double(points.count)
    let spread = points.map { ($0.x - meanX) * ($0.x - meanX) }.reduce(0, +)
    guard spread > 0 else { return nil }
    return points.map { ($0.x - meanX) * ($0.y - meanY) }.reduce(0, +) / spread
}
