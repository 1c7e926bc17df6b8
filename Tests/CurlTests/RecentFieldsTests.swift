@testable import CourierCurl
import HTTPTypes
import Testing

@Suite("Recent fields")
struct RecentFieldsTests {
    /// Where a field's value bytes are: the same address means the same storage, reused rather than made again.
    func storage(_ field: HTTPField) -> UnsafeRawPointer? {
        field.value.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    func kept(_ fields: RecentFields, slot: Int, _ text: String) -> HTTPField? {
        Array(text.utf8).withUnsafeBytes { fields.field(slot: slot, value: $0) }
    }

    @Test func aFieldIsReusedOnlyForTheSameBytes() {
        let fields = RecentFields(slots: 4)
        #expect(kept(fields, slot: 1, "application/json") == nil)
        let field = HTTPField(name: .contentType, value: "application/json; charset=utf-8")
        fields.keep(field, slot: 1)
        let again = kept(fields, slot: 1, "application/json; charset=utf-8")
        #expect(again == field)
        // The same length with the last byte changed, a prefix, a value the kept one is a prefix of, and nothing.
        #expect(kept(fields, slot: 1, "application/json; charset=utf-9") == nil)
        #expect(kept(fields, slot: 1, "application/json; charset") == nil)
        #expect(kept(fields, slot: 1, "application/json; charset=utf-8x") == nil)
        #expect(kept(fields, slot: 1, "") == nil)
        // A new field takes the slot's place.
        let changed = HTTPField(name: .contentType, value: "text/plain")
        fields.keep(changed, slot: 1)
        #expect(kept(fields, slot: 1, "text/plain") == changed)
        #expect(kept(fields, slot: 1, "application/json; charset=utf-8") == nil)
        // An empty value is kept like any other.
        let empty = HTTPField(name: .contentType, value: "")
        fields.keep(empty, slot: 1)
        #expect(kept(fields, slot: 1, "") == empty)
        #expect(kept(fields, slot: 1, " ") == nil)
    }

    @Test func slotsAreKeptApart() {
        let fields = RecentFields(slots: 4)
        fields.keep(HTTPField(name: .date, value: "Sat, 28 Nov 2026 08:41:12 GMT"), slot: 0)
        #expect(kept(fields, slot: 3, "Sat, 28 Nov 2026 08:41:12 GMT") == nil)
        #expect(kept(fields, slot: 0, "Sat, 28 Nov 2026 08:41:12 GMT")?.name == .date)
    }

    /// A parser given the cache makes the same fields as one without it (values, spellings of the name, indexing),
    /// response after response: values that repeat, change by one byte, are short or long, go from a common name's
    /// one spelling to its other, and are not visible ASCII.
    @Test func parsersSharingTheCacheMakeTheSameHeads() {
        let fields = RecentFields()
        let heads: [[String]] = [
            ["Content-Type: application/json; charset=utf-8", "Date: Sat, 28 Nov 2026 08:41:12 GMT", "ETag: \"6924-258\"", "Server: nginx"],
            ["Content-Type: application/json; charset=utf-8", "Date: Sat, 28 Nov 2026 08:41:12 GMT", "ETag: \"6924-259\"", "Server: nginx"],
            ["Content-Type: application/json; charset=utf-9", "Date: Sat, 28 Nov 2026 08:41:13 GMT", "Server: nginx/1"],
            ["content-type: application/json; charset=utf-8", "date: Sat, 28 Nov 2026 08:41:13 GMT", "server: nginx"],
            ["Content-Type: text/plain", "Date:   Sat, 28 Nov 2026 08:41:13 GMT  ", "X-Other: a value longer than fifteen bytes"],
            ["Content-Type: application/json; charset=utf-8", "Date: Sat, 28 Nov 2026 08:41:12 GMT", "Vary:", "Vary: "],
            ["Content-Type: caf\u{E9}", "Content-Type: caf\u{E9}", "Server: nginx", "Server: nginx", "Vary:"],
        ]
        for (index, lines) in heads.enumerated() {
            let all = ["HTTP/1.1 200 OK"] + lines + [""]
            var shared = ResponseHeadParser(recentFields: fields)
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
            #expect(Array(sharedHead.headerFields.map(\.name.rawName)) == Array(plainHead.headerFields.map(\.name.rawName)), "head \(index)")
            #expect(Array(sharedHead.headerFields.map(\.indexingStrategy)) == Array(plainHead.headerFields.map(\.indexingStrategy)), "head \(index)")
        }
    }

    /// A repeated line gets the kept field itself (its value's storage is the earlier response's), and a folded line
    /// leaves its slot with the line's own field, not the folded value.
    @Test func aRepeatedLineGetsTheKeptField() throws {
        let fields = RecentFields()
        func head(_ lines: [String]) -> HTTPResponse? {
            var parser = ResponseHeadParser(recentFields: fields)
            var outcome = ResponseHeadParser.Outcome.needMore
            for line in ["HTTP/1.1 200 OK"] + lines + [""] { outcome = parser.consume(line: line) }
            guard case .head(let head) = outcome else { return nil }
            return head
        }
        func field(_ name: HTTPField.Name, of head: HTTPResponse?) -> HTTPField? { head?.headerFields.first { $0.name == name } }
        let first = head(["Content-Type: application/json; charset=utf-8", "Cache-Control: no-cache, no-transform, private", " must-revalidate"])
        let second = head(["Content-Type: application/json; charset=utf-8", "Cache-Control: no-cache, no-transform, private"])
        let firstType = try #require(field(.contentType, of: first)), secondType = try #require(field(.contentType, of: second))
        #expect(storage(secondType) == storage(firstType))
        let secondCache = try #require(field(.cacheControl, of: second))
        #expect(secondCache.value == "no-cache, no-transform, private")
        #expect(field(.cacheControl, of: first)?.value == "no-cache, no-transform, private must-revalidate")
        let slot = try #require(Array("Cache-Control".utf8).withUnsafeBufferPointer { CommonFieldNames.shared.slot(of: $0) })
        #expect(kept(fields, slot: slot, "no-cache, no-transform, private").map(storage) == storage(secondCache))
    }

    /// A folded line continues a reused field as it would a made one, and the slot keeps the line's own field.
    @Test func aFoldedLineAfterAReusedField() {
        let fields = RecentFields()
        for round in 0..<2 {
            var parser = ResponseHeadParser(recentFields: fields)
            var outcome = ResponseHeadParser.Outcome.needMore
            for line in ["HTTP/1.1 200 OK", "Cache-Control: no-cache,", " no-store", ""] { outcome = parser.consume(line: line) }
            guard case .head(let head) = outcome else { Issue.record("round \(round): no head"); continue }
            #expect(head.headerFields[.cacheControl] == "no-cache, no-store", "round \(round)")
        }
    }
}

@Suite("Recent heads")
struct RecentHeadsTests {
    /// The storage of a value that is one reference (`HTTPFields`: its array; `PseudoHeaderFields`: its object).
    func identity<Value>(_ value: Value) -> UnsafeRawPointer {
        precondition(MemoryLayout<Value>.size == MemoryLayout<UnsafeRawPointer>.size)
        return unsafeBitCast(value, to: UnsafeRawPointer.self)
    }

    func parse(_ lines: [String], _ fields: RecentFields?) -> HTTPResponse? {
        var parser = ResponseHeadParser(recentFields: fields)
        var outcome = ResponseHeadParser.Outcome.needMore
        for line in lines { outcome = parser.consume(line: line) }
        guard case .head(let head) = outcome else { return nil }
        return head
    }

    /// Heads one after the other through one cache, each against a parser without it: the same status, reason,
    /// fields, order, spellings and indexing, whether a head repeats the last one whole, in part, in another
    /// order, with a field more or less, a folded line, another status or reason, or after a 1xx.
    @Test func headsSharingTheLastOneAreTheHeadsAPlainParserMakes() throws {
        let fields = RecentFields()
        let common = ["Server: nginx", "Date: Sat, 28 Nov 2026 08:41:12 GMT", "Content-Type: application/json", "Content-Length: 602"]
        let heads: [[String]] = [
            ["HTTP/1.1 200 OK"] + common,
            ["HTTP/1.1 200 OK"] + common,
            ["HTTP/1.1 200 OK"] + common + ["Connection: keep-alive"],
            ["HTTP/1.1 200 OK"] + common,
            ["HTTP/1.1 200 OK"] + common.dropLast(),
            ["HTTP/1.1 200 OK"] + common.reversed(),
            ["HTTP/1.1 200 OK"] + common,
            ["HTTP/1.1 200 OK", "Server: nginx", "Date: Sat, 28 Nov 2026 08:41:13 GMT", "Content-Type: application/json", "Content-Length: 602"],
            ["HTTP/1.1 200 OK", "Server: nginx", " extra", "Date: Sat, 28 Nov 2026 08:41:13 GMT"],
            ["HTTP/1.1 200 OK", "Server: nginx", "Date: Sat, 28 Nov 2026 08:41:13 GMT"],
            ["HTTP/1.1 200 Fine", "Server: nginx", "Date: Sat, 28 Nov 2026 08:41:13 GMT"],
            ["HTTP/1.1 404 Fine", "Server: nginx", "Date: Sat, 28 Nov 2026 08:41:13 GMT"],
            ["HTTP/1.1 404", "Server: nginx", "Date: Sat, 28 Nov 2026 08:41:13 GMT"],
            ["HTTP/1.1 100 Continue", "Server: nginx", "", "HTTP/1.1 404", "Server: nginx", "Date: Sat, 28 Nov 2026 08:41:13 GMT"],
            ["HTTP/2 404", "server: nginx", "date: Sat, 28 Nov 2026 08:41:13 GMT"],
            ["HTTP/2 404", "X-Request-Id: 1", "server: nginx"],
            ["HTTP/2 404", "X-Request-Id: 1", "server: nginx"],
            ["HTTP/2 204"],
            ["HTTP/2 204"],
            ["HTTP/2 204", "server: nginx"],
            // The same name in its other spelling, each kept: the last head's field is equal but not the same.
            ["HTTP/2 204", "Server: nginx"],
            ["HTTP/2 204", "server: nginx"],
        ]
        for (index, lines) in heads.enumerated() {
            let shared = try #require(parse(lines + [""], fields), "head \(index)")
            let plain = try #require(parse(lines + [""], nil), "head \(index)")
            expectSameBytes(shared, plain, "head \(index)")
        }
    }

    /// Status, reason, and every field's name spelling, value and indexing, compared as bytes (`String`'s `==` takes
    /// canonically equivalent text as equal).
    func expectSameBytes(_ shared: HTTPResponse, _ plain: HTTPResponse, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(shared.status.code == plain.status.code, "\(label)", sourceLocation: sourceLocation)
        #expect(Array(shared.status.reasonPhrase.utf8) == Array(plain.status.reasonPhrase.utf8), "\(label)", sourceLocation: sourceLocation)
        #expect(shared.headerFields.map { Array($0.value.utf8) } == plain.headerFields.map { Array($0.value.utf8) }, "\(label)", sourceLocation: sourceLocation)
        #expect(shared.headerFields.map { Array($0.name.rawName.utf8) } == plain.headerFields.map { Array($0.name.rawName.utf8) }, "\(label)", sourceLocation: sourceLocation)
        #expect(shared.headerFields.map(\.indexingStrategy) == plain.headerFields.map(\.indexingStrategy), "\(label)", sourceLocation: sourceLocation)
    }

    /// Text that is canonically equivalent but not the same bytes is not the same head: a value of `K` after one of
    /// KELVIN SIGN, a semicolon after GREEK QUESTION MARK, a decomposed reason phrase after a precomposed one.
    @Test func equivalentTextIsNotTheSameBytes() throws {
        let fields = RecentFields()
        let heads: [[String]] = [
            ["HTTP/1.1 200 OK", "Server: K"],
            ["HTTP/1.1 200 OK", "Server: \u{212A}"],
            ["HTTP/1.1 200 OK", "Server: K"],
            ["HTTP/1.1 200 OK", "Content-Type: text/html; charset=utf-8"],
            ["HTTP/1.1 200 OK", "Content-Type: text/html\u{37E} charset=utf-8"],
            ["HTTP/1.1 200 OK", "Content-Type: text/html; charset=utf-8"],
            ["HTTP/1.1 200 Caf\u{E9}"],
            ["HTTP/1.1 200 Cafe\u{301}"],
            ["HTTP/1.1 200 Caf\u{E9}"],
        ]
        for (index, lines) in heads.enumerated() {
            let shared = try #require(parse(lines + [""], fields), "head \(index)")
            let plain = try #require(parse(lines + [""], nil), "head \(index)")
            expectSameBytes(shared, plain, "head \(index)")
        }
    }

    /// Another transfer's head ends between two lines of this one (libcurl hands a head over as it arrives, and one
    /// loop's transfers share the cache): this head is still the one its own lines make.
    @Test func aHeadEndingInTheMiddleOfAnotherChangesNothingInIt() throws {
        let fields = RecentFields()
        let mine = ["HTTP/1.1 200 OK", "Server: nginx", "Date: Sat, 28 Nov 2026 08:41:12 GMT", "Content-Type: application/json"]
        let theirs = ["HTTP/1.1 200 OK", "Set-Cookie: sid=B", "Server: nginx", ""]
        _ = parse(mine + [""], fields)
        let plain = try #require(parse(mine + [""], nil))
        // Their head ends after each of my lines in turn, and after my first field with mine then ending at once.
        for split in 1..<mine.count {
            for ending in [Array(mine[split...]) + [""], [""]] {
                _ = parse(mine + [""], fields)
                var parser = ResponseHeadParser(recentFields: fields)
                for line in mine[..<split] { _ = parser.consume(line: line) }
                _ = parse(theirs, fields)
                var outcome = ResponseHeadParser.Outcome.needMore
                for line in ending { outcome = parser.consume(line: line) }
                guard case .head(let head) = outcome else { Issue.record("split \(split): no head"); continue }
                let expected = ending.count == 1 ? try #require(parse(Array(mine[..<split]) + [""], nil)) : plain
                expectSameBytes(head, expected, "split \(split), \(ending.count) lines after")
            }
        }
    }

    /// A head that repeats the last one whole is the same field list and status storage; one field more, or a
    /// status line that differs, makes its own.
    @Test func aRepeatedHeadSharesTheLastOnesStorage() throws {
        let fields = RecentFields()
        let lines = ["HTTP/1.1 200 OK", "Server: nginx", "Date: Sat, 28 Nov 2026 08:41:12 GMT", "Content-Type: application/json", ""]
        let first = try #require(parse(lines, fields))
        let second = try #require(parse(lines, fields))
        #expect(identity(second.headerFields) == identity(first.headerFields))
        #expect(identity(second.pseudoHeaderFields) == identity(first.pseudoHeaderFields))

        let longer = try #require(parse(lines.dropLast() + ["Vary: Accept", ""], fields))
        #expect(identity(longer.headerFields) != identity(second.headerFields))
        #expect(identity(longer.pseudoHeaderFields) == identity(second.pseudoHeaderFields))
        #expect(longer.headerFields.count == 4)

        let otherReason = try #require(parse(["HTTP/1.1 200 Fine"] + lines.dropFirst(), fields))
        #expect(identity(otherReason.pseudoHeaderFields) != identity(longer.pseudoHeaderFields))
        #expect(otherReason.status.reasonPhrase == "Fine")
        #expect(otherReason.headerFields.count == 3)
    }
}
