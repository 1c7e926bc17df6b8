import FoundationEssentials
import Testing

/// Keeps every item of the behaviour spec's checklists A (1–31) and B (32–38) tied to a test:
/// each test names the items it checks in a comment such as `// Checklist 29 and 30.`
@Suite("Checklist coverage")
struct ChecklistCoverageTests {
    @Test func everyItemOfChecklistsAAndBHasATest() throws {
        let directory = URL(filePath: #filePath).deletingLastPathComponent()
        let files = [
            "HTTPRequestSerializerTests.swift", "JSONRequestSerializerTests.swift", "PercentEscapingTests.swift",
            "QueryStringTests.swift", "PropertyListRequestSerializerTests.swift", "DefaultHeadersTests.swift",
            "HeaderHelpersTests.swift", "SessionSerializationTests.swift",
        ]
        var covered = Set<Int>()
        for file in files {
            let text = String(decoding: try Data(contentsOf: directory.appending(path: file)), as: UTF8.self)
            for line in text.split(separator: "\n") {
                guard let mark = line.firstRange(of: "Checklist ") else { continue }
                // The numbers after the word, up to the first character that is not a digit,
                // space, comma or "and": "Checklist 32, 33 and 36 (offline part)."
                var numbers: [Int] = []
                for word in line[mark.upperBound...].split(whereSeparator: { $0 == " " || $0 == "," }) {
                    let digits = String(word.prefix { $0.isNumber })
                    if let number = Int(digits) {
                        numbers.append(number)
                    } else if word != "and" {
                        break
                    }
                    if digits.count < word.count { break }
                }
                covered.formUnion(numbers)
            }
        }
        let missing = Set(1...38).subtracting(covered).sorted()
        #expect(missing.isEmpty, "checklist items without a test: \(missing)")
    }
}
