import Foundation

/// The text a run ends with: what ran, how fast, what went wrong, the table and the verdict.
public struct SoakReport {
    public var options: SoakOptions
    public var seconds: Double
    public var tally: SoakTally
    public var finishedInTime: Bool
    public var leftovers: [String]
    public var samples: [ResourceSample]
    public var verdict: FlatnessVerdict

    public init(options: SoakOptions, seconds: Double, tally: SoakTally, finishedInTime: Bool, leftovers: [String], samples: [ResourceSample], verdict: FlatnessVerdict) {
        self.options = options
        self.seconds = seconds
        self.tally = tally
        self.finishedInTime = finishedInTime
        self.leftovers = leftovers
        self.samples = samples
        self.verdict = verdict
    }

    /// Whether every request ended as it should, in time, leaving no file behind.
    public var outcomesPassed: Bool { finishedInTime && tally.failureCount == 0 && leftovers.isEmpty }

    /// 0 all right; 1 a wrong outcome, a file left behind or the time limit; 3 not flat or too short
    /// to judge (when flatness is judged).
    public var exitStatus: Int32 {
        if !outcomesPassed { return 1 }
        if options.judgesFlatness && !verdict.passed { return 3 }
        return 0
    }

    public var text: String {
        var lines: [String] = []
        let completed = tally.completed
        lines.append(String(format: "%d requests in %.1f s: %.0f requests/s, %d in flight, seed %llu", completed, seconds, Double(completed) / max(seconds, 0.001), options.concurrency, options.seed))
        lines.append("")
        lines.append("| kind | share | right | wrong |")
        lines.append("|---|---:|---:|---:|")
        let passed = tally.passed, failed = tally.failed
        for kind in RequestKind.allCases {
            lines.append("| \(kind.rawValue) | \(kind.weight) % | \(passed[kind, default: 0]) | \(failed[kind, default: 0]) |")
        }
        lines.append("")
        if !finishedInTime { lines.append("STOPPED by the time limit of \(Int(options.timeLimit)) s") }
        for failure in tally.firstFailures { lines.append("wrong: \(failure)") }
        if tally.failureCount > tally.firstFailures.count {
            lines.append("… and \(tally.failureCount - tally.firstFailures.count) more wrong outcomes")
        }
        for file in leftovers { lines.append("left behind: \(file)") }
        lines.append("outcomes: \(outcomesPassed ? "PASS" : "FAIL") (\(tally.failureCount) wrong of \(completed), \(leftovers.count) files left behind)")
        lines.append("")
        lines.append(SampleTable.markdown(samples, verdict: verdict))
        lines.append(verdictText)
        return lines.joined(separator: "\n")
    }

    private var verdictText: String {
        var lines: [String] = []
        if let end = verdict.warmUpEnd, end < samples.count {
            let sample = samples[end]
            lines.append(String(format: "warm-up ended at %.0f s (%d requests); %d samples after it, halves of %d and %d", sample.seconds, sample.completed, samples.count - end, verdict.firstHalf.count, verdict.secondHalf.count))
        }
        for check in verdict.checks {
            lines.append("\(check.passed ? "flat" : "GROWS"): \(check.measure): second half max \(check.secondMaximum), first half max \(check.firstMaximum), allowed ≤ \(check.allowed)")
        }
        if let trend = verdict.residentTrendBytesPerRequest {
            lines.append(String(format: "resident memory after warm-up moves %+.1f bytes per request (least squares; a figure, not a check)", trend))
        }
        if let reason = verdict.tooShort { lines.append("too short to judge: \(reason)") }
        let judged = options.judgesFlatness ? (verdict.passed ? "PASS" : "FAIL") : "not judged (--no-flatness)"
        lines.append("flatness: \(judged)")
        return lines.joined(separator: "\n")
    }
}
