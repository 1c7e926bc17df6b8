import CourierCore
@testable import CourierCurl
import HTTPTypes
import Testing

/// A head that repeats the loop's last template line for line is that template's head; any other head, however much of
/// the template it repeats first, is what a parser with no template makes of it, byte for byte.
@Suite("Head templates")
struct HeadTemplateTests {
    /// The outcome of `lines` through one parser, and the version it read.
    func parse(_ lines: [String], _ fields: RecentFields?) -> (ResponseHeadParser.Outcome, String?) {
        var parser = ResponseHeadParser(recentFields: fields)
        var outcome = ResponseHeadParser.Outcome.needMore
        for line in lines {
            outcome = parser.consume(line: line)
            if outcome != .needMore { break }
        }
        return (outcome, parser.version)
    }

    /// `lines` through `fields` and through a parser without them must agree, status, reason, every field's spelling
    /// and value bytes, indexing and version; returns the head made through `fields`.
    @discardableResult
    func expectAsPlain(_ lines: [String], _ fields: RecentFields, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) -> HTTPResponse? {
        let (outcome, version) = parse(lines, fields)
        let (plainOutcome, plainVersion) = parse(lines, nil)
        #expect(outcome == plainOutcome, "\(label)", sourceLocation: sourceLocation)
        #expect(version.map { Array($0.utf8) } == plainVersion.map { Array($0.utf8) }, "\(label): version", sourceLocation: sourceLocation)
        guard case .head(let head) = outcome, case .head(let plain) = plainOutcome else { return nil }
        #expect(Array(head.status.reasonPhrase.utf8) == Array(plain.status.reasonPhrase.utf8), "\(label): reason", sourceLocation: sourceLocation)
        #expect(head.headerFields.map { Array($0.name.rawName.utf8) } == plain.headerFields.map { Array($0.name.rawName.utf8) },
                "\(label): names", sourceLocation: sourceLocation)
        #expect(head.headerFields.map { Array($0.value.utf8) } == plain.headerFields.map { Array($0.value.utf8) },
                "\(label): values", sourceLocation: sourceLocation)
        #expect(head.headerFields.map(\.indexingStrategy) == plain.headerFields.map(\.indexingStrategy), "\(label): indexing",
                sourceLocation: sourceLocation)
        return head
    }

    /// The storage of a value that is one reference (`HTTPFields`: its array; `PseudoHeaderFields`: its object).
    func identity<Value>(_ value: Value) -> UnsafeRawPointer {
        precondition(MemoryLayout<Value>.size == MemoryLayout<UnsafeRawPointer>.size)
        return unsafeBitCast(value, to: UnsafeRawPointer.self)
    }

    static let base = ["HTTP/1.1 200 OK", "Server: nginx", "Date: Sat, 28 Nov 2026 08:41:12 GMT", "Content-Type: application/json",
                       "Content-Length: 602", "Connection: keep-alive", "X-Request-Id: 9f1c", ""]

    /// A template of the base head, then a head that repeats its first `k` lines and then does something else at line
    /// `k`, for every `k` and every kind of difference: what a plain parser makes of it.
    @Test func aHeadThatStopsRepeatingTheTemplateAnywhereIsParsedAsItCame() {
        let base = Self.base
        let differences: [(String, (Int) -> [String])] = [
            ("another value", { k in ["X-Other: \(k)"] }),
            ("the end", { _ in [""] }),
            ("a folded line", { _ in [" folded on"] }),
            ("a line without a colon", { _ in ["no colon here"] }),
            ("a name that is not a token", { _ in ["Bad Name: value"] }),
            ("a value taken leniently", { _ in ["X-Latin: caf\u{E9}"] }),
            ("a value with spaces around it", { _ in ["X-Spaced:   padded  "] }),
            ("the same field spelled otherwise", { k in [k == 0 ? "HTTP/1.1 200 OK" : base[k].lowercased()] }),
            ("the same value after no space", { k in [k == 0 ? "HTTP/1.1  200 OK" : base[k].split(separator: " ", maxSplits: 1).joined()] }),
        ]
        for (name, difference) in differences {
            for k in 0..<(base.count - 1) {
                let fields = RecentFields()
                expectAsPlain(base, fields, "template")
                #expect(fields.lastTemplate != nil)
                let lines = Array(base[..<k]) + difference(k) + Array(base[(k + 1)...])
                expectAsPlain(lines, fields, "\(name) at line \(k)")
                // And the base head again, through whatever template is now kept.
                expectAsPlain(base, fields, "\(name) at line \(k), then the base again")
            }
        }
    }

    /// A head made whole from the template shares its storage; one that repeats its status line shares that.
    @Test func aRepeatedHeadIsTheTemplatesHead() throws {
        let fields = RecentFields()
        let first = try #require(expectAsPlain(Self.base, fields, "first"))
        let template = try #require(fields.lastTemplate)
        let second = try #require(expectAsPlain(Self.base, fields, "second"))
        #expect(identity(second.headerFields) == identity(first.headerFields))
        #expect(identity(second.pseudoHeaderFields) == identity(first.pseudoHeaderFields))
        #expect(fields.lastTemplate === template)

        let longer = try #require(expectAsPlain(Self.base.dropLast() + ["Vary: Accept", ""], fields, "longer"))
        #expect(identity(longer.headerFields) != identity(first.headerFields))
        #expect(identity(longer.pseudoHeaderFields) == identity(first.pseudoHeaderFields))
    }

    /// Heads the parser writes out and reads back the same: no reason, a reason with spaces and tabs inside, tabs inside
    /// values, an empty value, HTTP/2's lines, text that is not ASCII in the reason, bytes that are not UTF-8 there.
    /// The second parse of each is the template's head (the same storage), and the same as a plain parser's.
    @Test func plainHeadsRepeatThroughTheirTemplate() throws {
        let heads: [[String]] = [
            ["HTTP/1.1 204", "Server: nginx", ""],
            ["HTTP/1.1 200 All  is\twell", "X-Tabs: a\tb  c", ""],
            // An empty value is written out after ": ", as libcurl writes HTTP/2's.
            ["HTTP/1.1 200 OK", "X-Empty: ", "Vary: ", ""],
            ["HTTP/2 200", "content-type: application/json", "date: Sat, 28 Nov 2026 08:41:12 GMT", ""],
            ["HTTP/1.1 200 Caf\u{E9}", "Server: nginx", ""],
            ["HTTP/1.0 404 Not Found", ""],
        ]
        for (index, lines) in heads.enumerated() {
            let fields = RecentFields()
            let first = try #require(expectAsPlain(lines, fields, "head \(index)"))
            let second = try #require(expectAsPlain(lines, fields, "head \(index) again"))
            // A head with no fields has no field storage to compare.
            if !first.headerFields.isEmpty { #expect(identity(second.headerFields) == identity(first.headerFields), "head \(index)") }
            #expect(identity(second.pseudoHeaderFields) == identity(first.pseudoHeaderFields), "head \(index)")
        }
        // A reason phrase that is not UTF-8: the parser's text has U+FFFD, so the template has its bytes, not these.
        let fields = RecentFields()
        let invalid: [UInt8] = Array("HTTP/1.1 200 ".utf8) + [0xFF, 0x0D, 0x0A]
        for round in 0..<3 {
            var parser = ResponseHeadParser(recentFields: fields), plain = ResponseHeadParser()
            var outcome = ResponseHeadParser.Outcome.needMore, plainOutcome = ResponseHeadParser.Outcome.needMore
            for line in [invalid, Array("Server: nginx\r\n".utf8), Array("\r\n".utf8)] {
                outcome = line.withUnsafeBytes { parser.consume($0) }
                plainOutcome = line.withUnsafeBytes { plain.consume($0) }
            }
            #expect(outcome == plainOutcome, "round \(round)")
            guard case .head(let head) = outcome else { Issue.record("round \(round): no head"); continue }
            #expect(head.status.reasonPhrase == "\u{FFFD}", "round \(round)")
        }
    }

    /// Heads the parser changes as it reads them (a folded line, a value taken leniently, a field dropped, spaces it
    /// skips) are not written out: read back, they would not be the lines that came.
    @Test func aHeadTakenOtherwiseThanItCameMakesNoTemplate() {
        let heads: [[String]] = [
            ["HTTP/1.1 200 OK", "Cache-Control: no-cache,", " no-store", ""],
            ["HTTP/1.1 200 OK", "X-Latin: caf\u{E9}", ""],
            ["HTTP/1.1 200 OK", "Bad Name: value", "Server: nginx", ""],
        ]
        for (index, lines) in heads.enumerated() {
            let fields = RecentFields()
            expectAsPlain(lines, fields, "head \(index)")
            #expect(fields.lastTemplate == nil, "head \(index)")
            expectAsPlain(lines, fields, "head \(index) again")
        }
        // Spaces the parser skips are written out as one: the template is made, and the head as it came is not it.
        let fields = RecentFields()
        let spaced = ["HTTP/1.1   200   OK  ", "Server:nginx", "Date:  Sat, 28 Nov 2026 08:41:12 GMT ", ""]
        let first = expectAsPlain(spaced, fields, "spaced")
        let again = expectAsPlain(spaced, fields, "spaced again")
        #expect(fields.lastTemplate != nil)
        if let first, let again { #expect(identity(again.headerFields) != identity(first.headerFields)) }
        // Written out as the parser reads it, the head repeats the template (made of the second head: a second miss).
        let canonical = expectAsPlain(["HTTP/1.1 200 OK", "Server: nginx", "Date: Sat, 28 Nov 2026 08:41:12 GMT", ""], fields, "canonical")
        if let again, let canonical { #expect(identity(canonical.headerFields) == identity(again.headerFields)) }
    }

    /// Heads that never repeat make a template at the 1st, 2nd, 4th, 8th… in a row; one that repeats the template
    /// starts the count again.
    @Test func templatesAreMadeAtPowersOfTwoMissesInARow() {
        let fields = RecentFields()
        var made: [Int] = []
        var last: HeadTemplate?
        for index in 1...40 {
            expectAsPlain(["HTTP/1.1 200 OK", "X-Request-Id: \(index)", ""], fields, "head \(index)")
            if fields.lastTemplate !== last { made.append(index) }
            last = fields.lastTemplate
        }
        #expect(made == [1, 2, 4, 8, 16, 32])
        // The last template (head 32) repeated: the count starts again, so the next new head makes one.
        expectAsPlain(["HTTP/1.1 200 OK", "X-Request-Id: 32", ""], fields, "32 again")
        #expect(fields.lastTemplate === last)
        expectAsPlain(["HTTP/1.1 200 OK", "X-Request-Id: 41", ""], fields, "41")
        #expect(fields.lastTemplate !== last)
    }

    /// An informational head before the final one is read as it came, and the final head can still be the template's.
    @Test func aHeadAfterAnInformationalOneCanRepeatTheTemplate() throws {
        let fields = RecentFields()
        let first = try #require(expectAsPlain(Self.base, fields, "first"))
        let second = try #require(expectAsPlain(["HTTP/1.1 100 Continue", ""] + Self.base, fields, "after a 100"))
        #expect(identity(second.headerFields) == identity(first.headerFields))
        // A 100 that begins like the template's status line is not mistaken for it.
        expectAsPlain(["HTTP/1.1 100 OK", "Server: nginx", ""] + Self.base, fields, "after a 100 OK")
    }

    /// What the transfer reads of a head, read once for its template: the same as from the head itself.
    @Test func aTemplateReadsLengthAndCodingsAsTheTransferWould() throws {
        let heads: [[String]] = [
            Self.base,
            ["HTTP/1.1 200 OK", "Content-Encoding: gzip", "Content-Length: 20", ""],
            ["HTTP/1.1 200 OK", "Content-Encoding: identity", ""],
            ["HTTP/1.1 200 OK", "Content-Encoding: compress", ""],
            ["HTTP/2 200", "content-encoding: br, zstd", "content-length: 7", ""],
        ]
        for (index, lines) in heads.enumerated() {
            let fields = RecentFields()
            let head = try #require(expectAsPlain(lines, fields, "head \(index)"))
            let template = try #require(fields.lastTemplate, "head \(index)")
            #expect(template.contentLength == head.headerFields.contentLength, "head \(index)")
            let expected = ContentCoding.decoding(head)
            switch (template.decoding, expected) {
            case (nil, nil): break
            case (.success(let codings)?, .success(let wanted)?): #expect(codings == wanted, "head \(index)")
            case (.failure?, .failure?): break
            default: Issue.record("head \(index): \(String(describing: template.decoding)) against \(String(describing: expected))")
            }
            // Repeated whole, the parser says which template it repeated.
            var parser = ResponseHeadParser(recentFields: fields)
            for line in lines { _ = parser.consume(line: line) }
            #expect(parser.repeatedTemplate === template, "head \(index)")
        }
        var plain = ResponseHeadParser()
        for line in Self.base { _ = plain.consume(line: line) }
        #expect(plain.repeatedTemplate == nil)
    }

    /// The lines of `text`, split at CRLF as libcurl hands them over, through `fields` and through a plain parser: the
    /// same outcome and the same reason phrase bytes.
    func expectBytesAsPlain(_ lines: [[UInt8]], _ fields: RecentFields, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var parser = ResponseHeadParser(recentFields: fields), plain = ResponseHeadParser()
        var outcome = ResponseHeadParser.Outcome.needMore, plainOutcome = ResponseHeadParser.Outcome.needMore
        for line in lines {
            outcome = line.withUnsafeBytes { parser.consume($0) }
            plainOutcome = line.withUnsafeBytes { plain.consume($0) }
            #expect(parser.version.map { Array($0.utf8) } == plain.version.map { Array($0.utf8) }, "\(label): version", sourceLocation: sourceLocation)
        }
        #expect(outcome == plainOutcome, "\(label)", sourceLocation: sourceLocation)
        if case .head(let head) = outcome, case .head(let plainHead) = plainOutcome {
            #expect(Array(head.status.reasonPhrase.utf8) == Array(plainHead.status.reasonPhrase.utf8), "\(label): reason",
                    sourceLocation: sourceLocation)
            #expect(head.headerFields.map { Array($0.value.utf8) } == plainHead.headerFields.map { Array($0.value.utf8) },
                    "\(label): values", sourceLocation: sourceLocation)
        }
    }

    /// A reason phrase swift-http-types changes (a control byte makes it turn every odd scalar into a space, so a space
    /// can end up at an end) is not written out: the line the template would have is read as it came, not as the
    /// template's head (a review found this one).
    @Test func aReasonThatIsNotItsBytesMakesNoTemplate() {
        let reasons: [[UInt8]] = [
            Array("OK".utf8) + [0x7F], [0x01], [0x01] + Array("OK".utf8), Array("OK".utf8) + [0xFF, 0x01],
            Array("OK".utf8) + [0x0D, 0x20, 0x41], [0xFF], Array("Caf".utf8) + [0xC3],
        ]
        for (index, reason) in reasons.enumerated() {
            let fields = RecentFields()
            let first = [Array("HTTP/1.1 200 ".utf8) + reason + [0x0D, 0x0A], Array("Server: x\r\n".utf8), Array("\r\n".utf8)]
            expectBytesAsPlain(first, fields, "reason \(index)")
            #expect(fields.lastTemplate == nil, "reason \(index)")
            // The status line as a template would have written the parsed reason, then other lines after it.
            var parsed = ResponseHeadParser()
            var outcome = ResponseHeadParser.Outcome.needMore
            for line in first { outcome = line.withUnsafeBytes { parsed.consume($0) } }
            guard case .head(let head) = outcome else { Issue.record("reason \(index): no head"); continue }
            let written = Array("HTTP/1.1 200 ".utf8) + Array(head.status.reasonPhrase.utf8) + [0x0D, 0x0A]
            expectBytesAsPlain([written, Array("Server: x\r\n".utf8), Array("\r\n".utf8)], fields, "reason \(index), written out")
            expectBytesAsPlain([written, Array("Server: y\r\n".utf8), Array("\r\n".utf8)], fields, "reason \(index), written out, then another field")
        }
    }

    /// libcurl writes HTTP/2's and HTTP/3's status lines with a space after the code; a server may end any line with
    /// spaces or tabs. Each repeats the template, and is the head a plain parser makes.
    @Test func linesEndingInSpacesRepeatTheTemplate() throws {
        for version in ["HTTP/2", "HTTP/3"] {
            let fields = RecentFields()
            let lines = ["\(version) 200 ", "content-type: application/json", "date: Sat, 28 Nov 2026 08:41:12 GMT", ""]
            let first = try #require(expectAsPlain(lines, fields, version))
            let second = try #require(expectAsPlain(lines, fields, "\(version) again"))
            #expect(identity(second.headerFields) == identity(first.headerFields), "\(version)")
        }
        let fields = RecentFields()
        let first = try #require(expectAsPlain(["HTTP/1.1 200 OK", "Server: nginx", "X-Empty:", ""], fields, "first"))
        let padded = ["HTTP/1.1 200 OK   ", "Server: nginx \t ", "X-Empty: \t", ""]
        let second = try #require(expectAsPlain(padded, fields, "padded"))
        #expect(identity(second.headerFields) == identity(first.headerFields))
        // A tab ends the reason phrase itself: that status line is another one.
        expectAsPlain(["HTTP/1.1 200 OK\t", "Server: nginx", "X-Empty:", ""], fields, "a tab after the reason")
        // Lines of spaces alone are folded lines, never the template's empty line.
        expectAsPlain(["HTTP/1.1 200 OK", "Server: nginx", "X-Empty:", "   ", ""], fields, "a line of spaces")
        expectAsPlain(["HTTP/1.1 200 OK", "Server: nginx", "X-Empty:", "\t", ""], fields, "a line of a tab")
    }

    /// Bytes with an LF inside, handed over as one line, are not two of the template's lines.
    @Test func aLineWithAnLFInsideIsNotTwoLines() throws {
        let fields = RecentFields()
        expectAsPlain(Self.base, fields, "template")
        let joined = [Self.base[0], Self.base[1] + "\n" + Self.base[2]] + Array(Self.base[3...])
        expectAsPlain(joined, fields, "joined")
    }

    /// A head that repeats a template is taken without the `Content-Length` check, so only a head that frames its body
    /// (``ContentLengthCheck``) makes one, and the template announces its count.
    @Test func onlyAHeadThatFramesItsBodyMakesATemplate() {
        for (values, status, expected) in [([String](), 200, .some(Int64?.none)), (["10"], 200, 10), (["10, 10"], 200, 10),
                                           (["0x5"], 200, nil), (["5", "10"], 200, nil), ([], 101, nil)] as [([String], Int, Int64??)] {
            var fields = HTTPFields()
            for value in values { fields.append(HTTPField(name: .contentLength, value: value)) }
            let template = HeadTemplate(head: HTTPResponse(status: .init(code: status), headerFields: fields), version: "HTTP/1.1")
            #expect(template.map { $0.contentLength } == expected, "\(values), \(status)")
        }
        // Framed both by chunks and by a length: the transfer retires such a head's connection, which a head taken
        // through a template would not.
        var both = HTTPFields()
        both.append(HTTPField(name: .transferEncoding, value: "chunked"))
        both.append(HTTPField(name: .contentLength, value: "10"))
        #expect(HeadTemplate(head: HTTPResponse(status: .ok, headerFields: both), version: "HTTP/1.1") == nil)
        both[.contentLength] = nil
        #expect(HeadTemplate(head: HTTPResponse(status: .ok, headerFields: both), version: "HTTP/1.1") != nil)
        #expect(HeadTemplate(head: HTTPResponse(status: .ok, headerFields: both), version: "HTTP/1.0") == nil, "a transfer coding in HTTP/1.0")
    }

    /// A head that repeats a template is taken without a look at how its body ends, so the template says whether it
    /// ends with its connection: an HTTP/1 head with neither `Content-Length` nor chunked coding, which over TLS needs
    /// the server's close_notify (``CloseNotifyWatch``). HTTP/2 ends every body with its stream.
    @Test func aTemplateSaysWhetherItsBodyEndsWithTheConnection() throws {
        let cases: [([(HTTPField.Name, String)], Int, String, Bool)] = [
            ([], 200, "HTTP/1.1", true), ([], 200, "HTTP/1.0", true), ([], 404, "HTTP/1.1", true),
            ([(.transferEncoding, "gzip")], 200, "HTTP/1.1", true),
            ([], 200, "HTTP/2", false), ([(.contentLength, "10")], 200, "HTTP/1.1", false),
            ([(.transferEncoding, "chunked")], 200, "HTTP/1.1", false), ([], 204, "HTTP/1.1", false),
            ([], 304, "HTTP/1.0", false),
        ]
        for (pairs, status, version, expected) in cases {
            var fields = HTTPFields()
            for (name, value) in pairs { fields.append(HTTPField(name: name, value: value)) }
            let template = try #require(HeadTemplate(head: HTTPResponse(status: .init(code: status), headerFields: fields), version: version))
            #expect(template.endsWithConnection == expected, "\(pairs), \(status), \(version)")
        }
    }
}
