@testable import CourierCLI
import CourierCore
import CourierResponseSerialization
import Testing

@Suite("Request items")
struct ItemParsingTests {
    // MARK: Separators

    @Test(arguments: [
        ("Accept:application/json", RequestItem.Kind.header, "Accept", "application/json"),
        ("q==swift http", .query, "q", "swift http"),
        ("name=Ada", .data, "name", "Ada"),
        ("n:=42", .rawJSON, "n", "42"),
        ("avatar@/tmp/a.png", .file, "avatar", "/tmp/a.png"),
    ])
    func eachSeparatorGivesItsKind(argument: String, kind: RequestItem.Kind, name: String, value: String) throws {
        let item = try RequestItem.parse(argument)
        #expect(item.kind == kind)
        #expect(item.name == name)
        #expect(item.value == value)
    }

    @Test func theFirstSeparatorWinsAndTheValueIsVerbatim() throws {
        let header = try RequestItem.parse("Referer:http://x/?a=b")
        #expect(header.kind == .header)
        #expect(header.value == "http://x/?a=b")
        let data = try RequestItem.parse("url=http://x:8080/a==b")
        #expect(data.kind == .data)
        #expect(data.value == "http://x:8080/a==b")
    }

    @Test func longerSeparatorsArePreferredAtTheSamePlace() throws {
        #expect(try RequestItem.parse("a:=1").kind == .rawJSON)
        #expect(try RequestItem.parse("a==1").kind == .query)
        #expect(try RequestItem.parse("a=").kind == .data)
        #expect(try RequestItem.parse("a=").value == "")
        #expect(try RequestItem.parse("a===b").value == "=b")
    }

    @Test func aBackslashEscapesASeparator() throws {
        let item = try RequestItem.parse(#"a\=b=c"#)
        #expect(item.kind == .data)
        #expect(item.rawName == #"a\=b"#)
        #expect(item.name == "a=b")
        #expect(item.value == "c")

        let colon = try RequestItem.parse(#"time\:zone==UTC"#)
        #expect(colon.kind == .query)
        #expect(colon.name == "time:zone")

        let at = try RequestItem.parse(#"user\@host=x"#)
        #expect(at.kind == .data)
        #expect(at.name == "user@host")

        let backslash = try RequestItem.parse(#"a\\=b"#)
        #expect(backslash.name == #"a\"#)
        #expect(backslash.value == "b")
    }

    @Test func anArgumentWithoutSeparatorIsRefused() {
        #expect(throws: CLIError.self) { try RequestItem.parse("justaword") }
        #expect(throws: CLIError.self) { try RequestItem.parse(#"a\=b"#) }
    }

    @Test func anEmptyNameIsRefused() throws {
        let error = try #require(throws: CLIError.self) { try RequestItem.parse("=value") }
        #expect(error.message == "item \"=value\" has no name before its separator")
    }

    @Test func bodyItemsAreTheDataJSONAndFileOnes() throws {
        #expect(try RequestItem.parse("a=1").isBodyItem)
        #expect(try RequestItem.parse("a:=1").isBodyItem)
        #expect(try RequestItem.parse("a@f").isBodyItem)
        #expect(try !RequestItem.parse("a==1").isBodyItem)
        #expect(try !RequestItem.parse("A:1").isBodyItem)
    }

    // MARK: Names

    @Test func namesNestWithBrackets() throws {
        #expect(try ItemName.parse("user", item: "").components == [.key("user")])
        #expect(try ItemName.parse("user[name]", item: "").components == [.key("user"), .key("name")])
        #expect(try ItemName.parse("a[b][c]", item: "").components == [.key("a"), .key("b"), .key("c")])
        #expect(try ItemName.parse("tags[]", item: "").components == [.key("tags"), .append])
        #expect(try ItemName.parse("a[][x]", item: "").components == [.key("a"), .append, .key("x")])
        #expect(try ItemName.parse("a[0]", item: "").components == [.key("a"), .key("0")])
    }

    @Test func escapedBracketsAreLiteral() throws {
        #expect(try ItemName.parse(#"a\[1\]"#, item: "").components == [.key("a[1]")])
        #expect(try ItemName.parse(#"a[b\]c]"#, item: "").components == [.key("a"), .key("b]c")])
    }

    @Test(arguments: [
        ("a[b", "unclosed '['"),
        ("a]", "']' without a matching '['"),
        ("[a]", "the name must start with a key before '['"),
        ("a[b]c", "text after ']' must start a new '['"),
        ("a[[b]]", "'[' inside brackets"),
    ])
    func malformedNamesAreRefused(name: String, problem: String) throws {
        let error = try #require(throws: CLIError.self) { try ItemName.parse(name, item: name + "=1") }
        #expect(error.message == "item \"\(name)=1\": \(problem)")
    }

    // MARK: Trees

    private func tree(_ items: [(String, Parameters)]) throws -> ParameterTree {
        var tree = ParameterTree()
        for (name, value) in items {
            try tree.insert(value, at: ItemName.parse(name, item: name), item: name)
        }
        return tree
    }

    @Test func nestedNamesBuildObjects() throws {
        let built = try tree([("user[name]", "x"), ("user[role]", "admin"), ("id", 1)])
        #expect(built.parameters(repeatedNamesAs: .array) == ["user": ["name": "x", "role": "admin"], "id": 1])
    }

    @Test func emptyBracketsBuildArraysInOrder() throws {
        let built = try tree([("tags[]", "a"), ("tags[]", "b"), ("tags[]", "c")])
        #expect(built.parameters(repeatedNamesAs: .array) == ["tags": ["a", "b", "c"]])
    }

    @Test func eachEmptyBracketStartsANewElement() throws {
        let built = try tree([("items[][name]", "a"), ("items[][name]", "b")])
        #expect(built.parameters(repeatedNamesAs: .array) == ["items": [["name": "a"], ["name": "b"]]])
    }

    @Test func aRepeatedPlainNameIsAnArrayInJSONAndASetInForms() throws {
        let built = try tree([("a", "2"), ("a", "1")])
        #expect(built.parameters(repeatedNamesAs: .array) == ["a": ["2", "1"]])
        #expect(built.parameters(repeatedNamesAs: .set) == ["a": .set(["1", "2"])])
    }

    @Test func aValueCannotAlsoHoldFields() throws {
        let error = try #require(throws: CLIError.self) { try tree([("a", "1"), ("a[b]", "2")]) }
        #expect(error.message == "item \"a[b]\": a is a value, so it cannot hold the field \"b\"")
        let reverse = try #require(throws: CLIError.self) { try tree([("a[b]", "2"), ("a", "1")]) }
        #expect(reverse.message == "item \"a\": a already holds nested fields and cannot also be a value")
        let array = try #require(throws: CLIError.self) { try tree([("a[x]", "1"), ("a[]", "2")]) }
        #expect(array.message == "item \"a[]\": a is an object, so '[]' cannot add to it")
    }

    @Test func namesNestAsDeepAsJSONValuesAndNoDeeper() throws {
        // Found by the cli-item fuzz target: 64 arguments nesting a few hundred levels took 25 s, each level
        // copying the path walked so far and spelling it for a message that was never shown.
        let deepest = "a" + String(repeating: "[]", count: ItemName.maximumDepth - 1)
        let name = try ItemName.parse(deepest, item: deepest + "=x")
        #expect(name.components.count == ItemName.maximumDepth)
        var built = try tree(Array(repeating: (deepest, "x"), count: 64))
        let top = built.parameters(repeatedNamesAs: .array)
        guard case .dictionary(let children) = top, case .array(let elements)? = children["a"] else {
            Issue.record("a is not an array: \(top)")
            return
        }
        #expect(elements.count == 64)
        var level = elements[0]
        for _ in 0..<ItemName.maximumDepth - 2 {
            guard case .array(let inner) = level, inner.count == 1 else {
                Issue.record("not one element deep: \(level)")
                return
            }
            level = inner[0]
        }
        #expect(level == "x")
        let error = try #require(throws: CLIError.self) { try ItemName.parse(deepest + "[]", item: "deep") }
        #expect(error.message == "item \"deep\": more than \(ItemName.maximumDepth) levels of nesting")
        // A refused insert leaves the tree as it was.
        #expect(throws: CLIError.self) { try built.insert("y", at: ItemName.parse("a[x]", item: "a[x]=y"), item: "a[x]=y") }
        #expect(built.parameters(repeatedNamesAs: .array) == (try tree(Array(repeating: (deepest, "x"), count: 64))).parameters(repeatedNamesAs: .array))
    }

    @Test func anEmptyTreeSaysSo() throws {
        #expect(ParameterTree().isEmpty)
        #expect(try !tree([("a", "1")]).isEmpty)
    }

    // MARK: Raw JSON

    @Test func rawJSONValuesParse() throws {
        #expect(try RawJSONValue.parse("42") == 42)
        #expect(try RawJSONValue.parse("-1.5e2") == .double(-150))
        #expect(try RawJSONValue.parse("true") == true)
        #expect(try RawJSONValue.parse("null") == .null)
        #expect(try RawJSONValue.parse(#" "a\"b\u00e9\ud83d\ude00" "#) == "a\"bé😀")
        #expect(try RawJSONValue.parse(#"{"a":[1,{"b":false}],"c":{}}"#) == ["a": [1, ["b": false]], "c": .dictionary([:])])
        #expect(try RawJSONValue.parse("[]") == .array([]))
        #expect(try RawJSONValue.parse("12345678901234567890") == .double(12345678901234567168))
    }

    @Test func rawJSONStringsMustBeUTF8() {
        // Found by fuzzing the CLI's former parser against the response parser: invalid UTF-8 inside a string was read
        // as U+FFFD; a body that is not UTF-8 is not pretty-printed as JSON either. One parser now reads both.
        #expect(!RawJSONValue.isValid([0x22, 0x20, 0xFF, 0xFE, 0x22]))
        #expect(!RawJSONValue.isValid([0x5B, 0x22, 0xC3, 0x22, 0x5D]))
        #expect(!RawJSONValue.isValid([0x7B, 0x22, 0x61, 0xED, 0xA0, 0x80, 0x22, 0x3A, 0x31, 0x7D]))
        #expect(RawJSONValue.isValid(Array(#"{"é":"\u00e9"}"#.utf8)))
    }

    @Test(arguments: [
        ("", "invalid JSON at line 1, column 1: the document is empty"),
        ("[1,]", "invalid JSON at line 1, column 4: unexpected character ']'"),
        ("{\"a\" 1}", "invalid JSON at line 1, column 6: expected ':' after an object key"),
        ("[1 2]", "invalid JSON at line 1, column 4: expected ',' or ']' in an array, found '2'"),
        ("tru", "invalid JSON at line 1, column 1: the document ended inside a literal"),
        ("01", "invalid JSON at line 1, column 2: a number cannot have a leading zero"),
        ("\"abc", "invalid JSON at line 1, column 5: the document ended inside a string"),
        ("1.", "invalid JSON at line 1, column 3: a fraction needs digits"),
        ("[1] x", "invalid JSON at line 1, column 5: unexpected data after the document"),
        ("swift", "invalid JSON at line 1, column 1: unexpected character 's'"),
        ("[1,\n 2,\n x]", "invalid JSON at line 3, column 2: unexpected character 'x'"),
    ])
    func invalidJSONSaysWhereAndWhat(text: String, message: String) throws {
        let error = try #require(throws: JSONParser.Failure.self) { try RawJSONValue.parse(text) }
        #expect(error.description == message)
    }

    @Test func deepNestingIsRefused() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONParser.Failure.self) { try RawJSONValue.parse(deep) }
        let deepest = String(repeating: "[", count: RawJSONValue.maximumDepth) + String(repeating: "]", count: RawJSONValue.maximumDepth)
        #expect(try RawJSONValue.parse(deepest) != .null)
    }
}
