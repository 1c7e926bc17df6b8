@testable import CourierCurl
import HTTPTypes
import Testing

@Suite("Recent field values")
struct RecentFieldValuesTests {
    /// Where a string's bytes are: the same address means the same storage, shared rather than made again.
    func storage(_ string: String) -> UnsafeRawPointer? {
        string.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    func value(_ values: RecentFieldValues, slot: Int, _ text: String) -> String {
        Array(text.utf8).withUnsafeBufferPointer { values.value(slot: slot, bytes: $0) }
    }

    @Test func aRepeatedValueIsSharedAndAChangedOneReplacesIt() {
        let values = RecentFieldValues(slots: 4)
        let first = value(values, slot: 1, "application/json; charset=utf-8")
        let again = value(values, slot: 1, "application/json; charset=utf-8")
        #expect(again == first)
        #expect(storage(again) == storage(first))
        // The same length, the last byte changed: a new string, which then is the one kept.
        let changed = value(values, slot: 1, "application/json; charset=utf-9")
        #expect(changed == "application/json; charset=utf-9")
        #expect(storage(changed) != storage(first))
        #expect(storage(value(values, slot: 1, "application/json; charset=utf-9")) == storage(changed))
        // A prefix of the kept value, and a value the kept one is a prefix of.
        #expect(value(values, slot: 1, "application/json; charset") == "application/json; charset")
        #expect(value(values, slot: 1, "application/json; charset=utf-8x") == "application/json; charset=utf-8x")
    }

    @Test func slotsAreKeptApart() {
        let values = RecentFieldValues(slots: 4)
        let inZero = value(values, slot: 0, "Sat, 28 Nov 2026 08:41:12 GMT")
        let inThree = value(values, slot: 3, "Sat, 28 Nov 2026 08:41:12 GMT")
        #expect(inZero == inThree)
        #expect(value(values, slot: 0, "Sat, 28 Nov 2026 08:41:13 GMT") == "Sat, 28 Nov 2026 08:41:13 GMT")
        #expect(storage(value(values, slot: 3, "Sat, 28 Nov 2026 08:41:12 GMT")) == storage(inThree))
    }

    /// A parser given the cache makes the same fields as one without it, response after response, with long values
    /// that repeat, change by one byte, and go from a common name's one spelling to its other.
    @Test func parsersSharingTheCacheMakeTheSameHeads() {
        let values = RecentFieldValues()
        let heads: [[String]] = [
            ["Content-Type: application/json; charset=utf-8", "Date: Sat, 28 Nov 2026 08:41:12 GMT", "ETag: \"6924-258\""],
            ["Content-Type: application/json; charset=utf-8", "Date: Sat, 28 Nov 2026 08:41:12 GMT", "ETag: \"6924-259\""],
            ["Content-Type: application/json; charset=utf-9", "Date: Sat, 28 Nov 2026 08:41:13 GMT"],
            ["content-type: application/json; charset=utf-8", "date: Sat, 28 Nov 2026 08:41:13 GMT"],
            ["Content-Type: text/plain", "Date:   Sat, 28 Nov 2026 08:41:13 GMT  ", "X-Other: a value longer than fifteen bytes"],
            ["Content-Type: application/json; charset=utf-8", "Date: Sat, 28 Nov 2026 08:41:12 GMT"],
        ]
        for (index, lines) in heads.enumerated() {
            let all = ["HTTP/1.1 200 OK"] + lines + [""]
            var shared = ResponseHeadParser(recentValues: values)
            var plain = ResponseHeadParser()
            var sharedOutcome = ResponseHeadParser.Outcome.needMore, plainOutcome = ResponseHeadParser.Outcome.needMore
            for line in all {
                sharedOutcome = shared.consume(line: line)
                plainOutcome = plain.consume(line: line)
            }
            guard case .head(let sharedHead) = sharedOutcome, case .head(let plainHead) = plainOutcome else {
                Issue.record("head \(index) not parsed"); continue
            }
            #expect(sharedHead == plainHead, "head \(index)")
            #expect(Array(sharedHead.headerFields.map(\.value)) == Array(plainHead.headerFields.map(\.value)), "head \(index)")
        }
    }
}
