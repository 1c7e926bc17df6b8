// xml-bench: CourierXML's SAX streaming over a generated document of SIZE megabytes (default 200),
// fed as a Body of 64 KiB chunks made on the fly (the document never exists whole), against libxml2's
// push parser in Courier's hands. Prints one JSON line: MB/s, events, and the process's peak RSS
// (target ≤ 32 MiB: memory stays flat whatever the size).
//
//   xml-bench [SIZE_MB]
import CourierCore
import CourierXML
import Foundation

/// Chunks of a feed-like document: a root holding records with attributes, text and CDATA.
struct DocumentChunks: AsyncSequence, Sendable {
    let totalBytes: Int

    func makeAsyncIterator() -> Iterator { Iterator(totalBytes: totalBytes) }

    struct Iterator: AsyncIteratorProtocol {
        let totalBytes: Int
        var produced = 0
        var record = 0
        var finished = false

        mutating func next() async -> ArraySlice<UInt8>? {
            if finished { return nil }
            var chunk = ""
            if produced == 0 { chunk = #"<?xml version="1.0" encoding="UTF-8"?><feed xmlns="urn:courier:bench">"# }
            while chunk.utf8.count < 64 * 1024, produced + chunk.utf8.count < totalBytes {
                chunk += #"<entry id="\#(record)" kind="k\#(record % 7)"><title>Entry \#(record) &amp; friends</title><summary><![CDATA[Some <b>markup</b> inside]]></summary><value>\#(Double(record) * 0.5)</value></entry>"#
                record += 1
            }
            if produced + chunk.utf8.count >= totalBytes {
                chunk += "</feed>"
                finished = true
            }
            produced += chunk.utf8.count
            return ArraySlice(Array(chunk.utf8))
        }
    }
}

func peakRSSKiB() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss
}

/// Streams the document; nonisolated, so iterating does not hop to the main actor for each event
/// (top-level code runs on the main actor).
nonisolated func stream(megabytes: Int) async throws -> (seconds: Double, events: Int) {
    let body = Body(DocumentChunks(totalBytes: megabytes * 1_000_000), length: .unknown, iterationBehavior: .single)
    let start = DispatchTime.now().uptimeNanoseconds
    var events = 0
    for try await _ in XMLStream.events(in: body) { events += 1 }
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, events)
}

let megabytes = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 200 : 200
let (seconds, events) = try await Task.detached { try await stream(megabytes: megabytes) }.value
print(#"{"workload":"xml-sax","megabytes":\#(megabytes),"seconds":\#(String(format: "%.3f", seconds)),"mb_per_s":\#(String(format: "%.1f", Double(megabytes) / seconds)),"events":\#(events),"max_rss_kib":\#(peakRSSKiB())}"#)
