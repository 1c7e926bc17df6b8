import Foundation

/// The samples as text: a Markdown table of buckets of whole seconds (at most about 30 rows, so it
/// reads in a terminal and pastes into docs/reliability.md), and every sample as TSV.
public enum SampleTable {
    /// The bucket width in seconds for a run of `duration` seconds: the smallest of 1, 2, 5, 10, 15, 20,
    /// 30, 60, 120, 300 and 600 that gives at most 30 buckets.
    public static func bucketSeconds(for duration: Double) -> Int {
        let widths = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600]
        return widths.first { (duration / Double($0)).rounded(.up) <= 30 } ?? widths.last!
    }

    /// The Markdown table: per bucket, the requests done by its end and their rate in it, the highest
    /// RSS, the peak RSS (`VmHWM`) at its end, the most descriptors and threads, and which phases of
    /// `verdict` its samples belong to.
    public static func markdown(_ samples: [ResourceSample], verdict: FlatnessVerdict?) -> String {
        guard let last = samples.last else { return "(no samples)\n" }
        let width = bucketSeconds(for: last.seconds)
        var lines = [
            "| seconds | requests done | requests/s | RSS MiB (max) | peak RSS MiB | descriptors (max) | threads (max) | phase |",
            "|---|---:|---:|---:|---:|---:|---:|---|",
        ]
        var previous: ResourceSample?
        var index = 0
        while index < samples.count {
            let bucket = Int(samples[index].seconds) / width
            var members: [(Int, ResourceSample)] = []
            while index < samples.count, Int(samples[index].seconds) / width == bucket {
                members.append((index, samples[index]))
                index += 1
            }
            let end = members.last!.1
            let startSeconds = previous?.seconds ?? 0, startCompleted = previous?.completed ?? 0
            let rate = end.seconds > startSeconds ? Double(end.completed - startCompleted) / (end.seconds - startSeconds) : 0
            var phases: [String] = []
            for (sampleIndex, _) in members {
                let phase = Self.phase(of: sampleIndex, in: verdict)
                if phases.last != phase { phases.append(phase) }
            }
            let range = width == 1 ? "\(bucket)" : "\(bucket * width)–\(bucket * width + width)"
            lines.append(
                "| \(range) | \(end.completed) | \(Int(rate.rounded())) | \(mebibytes(members.map(\.1.residentKiB).max()!)) | "
                    + "\(mebibytes(end.peakResidentKiB)) | \(members.map(\.1.descriptors).max()!) | \(members.map(\.1.threads).max()!) | "
                    + "\(phases.joined(separator: ", ")) |"
            )
            previous = end
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every sample, one a line, with a header.
    public static func tsv(_ samples: [ResourceSample]) -> String {
        var text = "seconds\tcompleted\trss_kib\thwm_kib\tdescriptors\tthreads\n"
        for sample in samples {
            text += "\(String(format: "%.3f", sample.seconds))\t\(sample.completed)\t\(sample.residentKiB)\t"
                + "\(sample.peakResidentKiB)\t\(sample.descriptors)\t\(sample.threads)\n"
        }
        return text
    }

    /// KiB as MiB with one decimal.
    public static func mebibytes(_ kibibytes: Int) -> String {
        String(format: "%.1f", Double(kibibytes) / 1024)
    }

    private static func phase(of index: Int, in verdict: FlatnessVerdict?) -> String {
        guard let verdict else { return "—" }
        if verdict.firstHalf.contains(index) { return "first half" }
        if verdict.secondHalf.contains(index) { return "second half" }
        return "warm-up"
    }
}
