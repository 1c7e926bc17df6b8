import CourierCore
import CourierResponseSerialization
import FoundationEssentials
import HTTPTypes
import Testing

@Suite struct StringAndDataSerializerTests {
    /// Item 53: the plain serializer takes any type and returns the bytes.
    @Test func dataSerializerReturnsTheBody() throws {
        #expect(try DataResponseSerializer().serialize(response(contentType: "x/y", body: "raw")) == Data("raw".utf8))
        let error = #expect(throws: ResponseValidationError.self) { try DataResponseSerializer().serialize(response(404, body: "gone")) }
        #expect(error?.serializedValue as? Data == Data("gone".utf8))
    }

    @Test func stringUsesTheCharsetOrUTF8() throws {
        let serializer = StringResponseSerializer()
        #expect(try serializer.serialize(response(contentType: "text/plain", body: "héllo")) == "héllo")
        #expect(try serializer.serialize(response(contentType: "text/plain; charset=ISO-8859-1", data: Data([0x68, 0xE9]))) == "hé")
        #expect(try serializer.serialize(response(contentType: "text/plain; charset=windows-1252", data: Data([0x80]))) == "€")
        #expect(try StringResponseSerializer(forcedEncoding: .isoLatin1).serialize(response(contentType: "text/plain", data: Data([0xFC]))) == "ü")
        #expect(try serializer.serialize(response(contentType: "text/plain")) == "")
    }

    @Test func badBytesAndUnknownCharsetsAreTypedErrors() {
        let invalid = #expect(throws: ResponseSerializationError.self) {
            try StringResponseSerializer().serialize(response(contentType: "text/plain", data: Data([0x61, 0x62, 0xFF])))
        }
        #expect(invalid?.reason == .invalidEncoding)
        #expect(invalid?.offset == 2)
        let ascii = #expect(throws: ResponseSerializationError.self) {
            try StringResponseSerializer().serialize(response(contentType: "text/plain; charset=us-ascii", data: Data([0x61, 0xC3, 0xA9])))
        }
        #expect(ascii?.offset == 1)
        let unknown = #expect(throws: ResponseSerializationError.self) {
            try StringResponseSerializer().serialize(response(contentType: "text/plain; charset=ebcdic", body: "x"))
        }
        #expect(unknown?.reason == .unsupportedEncoding)
    }

    @Test func utf16WithAndWithoutAByteOrderMark() throws {
        #expect(try TextEncoding.utf16.decode(Data([0xFF, 0xFE, 0x41, 0x00])) == "A")
        #expect(try TextEncoding.utf16.decode(Data([0x00, 0x41])) == "A")
        #expect(try TextEncoding.utf16LittleEndian.decode(Data([0x3D, 0xD8, 0x00, 0xDE])) == "😀")
        #expect(throws: ResponseSerializationError.self) { try TextEncoding.utf16BigEndian.decode(Data([0xD8, 0x00])) }
        #expect(throws: ResponseSerializationError.self) { try TextEncoding.utf16.decode(Data([0x00])) }
    }
}

@Suite struct DecodableSerializerTests {
    struct Slide: Decodable, Sendable, Equatable { var title: String; var items: [String]? }

    @Test func decodesJSON() throws {
        let slide = try DecodableResponseSerializer<Slide>().serialize(response(contentType: "application/json", body: #"{"title":"Hi"}"#))
        #expect(slide == Slide(title: "Hi", items: nil))
    }

    @Test func decodingFailureNamesThePath() {
        let error = #expect(throws: ResponseSerializationError.self) {
            try DecodableResponseSerializer<Slide>().serialize(response(contentType: "application/json", body: #"{"title":"x","items":[1]}"#))
        }
        #expect(error?.reason == .decodingFailed)
        #expect(error?.detail.contains(".items[0]") == true)
    }

    @Test func emptyBodiesOnlyWhereExpected() throws {
        #expect(try DecodableResponseSerializer<Empty>().serialize(response(204)) == Empty.value)
        #expect(try DecodableResponseSerializer<Empty>().serialize(response(200, method: .head)) == Empty.value)
        #expect(try DecodableResponseSerializer<Slide?>().serialize(response(205)) == nil)
        let notExpected = #expect(throws: ResponseSerializationError.self) {
            try DecodableResponseSerializer<Empty>().serialize(response(200, contentType: "application/json"))
        }
        #expect(notExpected?.reason == .emptyBody)
        let noEmptyValue = #expect(throws: ResponseSerializationError.self) { try DecodableResponseSerializer<Slide>().serialize(response(204)) }
        #expect(noEmptyValue?.detail.contains("EmptyResponse") == true)
    }

    @Test func propertyListDecoderWorksToo() throws {
        let plist = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>title</key><string>P</string></dict></plist>"#
        let serializer = DecodableResponseSerializer<Slide>(decoder: PropertyListDecoder(), validator: ResponseValidator(acceptableContentTypes: ["application/x-plist"]))
        #expect(try serializer.serialize(response(contentType: "application/x-plist", body: plist)).title == "P")
    }
}

@Suite struct PropertyListSerializerTests {
    /// Item 64.
    @Test func parsesXMLPlistsAndRefusesOtherBytes() throws {
        let serializer = PropertyListResponseSerializer()
        #expect(serializer.validator.acceptableContentTypes == ["application/x-plist"])
        let plist = #"<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd"><plist version="1.0"><dict><key>foo</key><string>bar</string><key>n</key><integer>3</integer><key>list</key><array><true/><real>1.5</real></array></dict></plist>"#
        let value = try serializer.serialize(response(contentType: "application/x-plist", body: plist))
        #expect(value == .dictionary(["foo": .string("bar"), "n": .int(3), "list": .array([.bool(true), .double(1.5)])]))
        let error = #expect(throws: ResponseSerializationError.self) {
            try serializer.serialize(response(contentType: "application/x-plist", body: #"{"foo":"bar"}"#))
        }
        #expect(error?.reason == .invalidPropertyList)
        #expect(try serializer.serialize(response(204, contentType: "application/x-plist")) == nil)
        #expect(try serializer.serialize(response(204)) == nil)
    }
}

@Suite struct ImageSerializerTests {
    private func png(width: UInt32, height: UInt32) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        data.append(contentsOf: Array("IHDR".utf8))
        for value in [width, height] { data.append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]) }
        data.append(contentsOf: [8, 6, 0, 0, 0])
        return data
    }

    private let samples: [(ImageInfo.Format, Data, Int, Int)] = [
        (.gif, Data(Array("GIF89a".utf8) + [0x40, 0x01, 0xF0, 0x00]), 320, 240),
        (.jpeg, Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0x2C, 0x01, 0x90]), 400, 300),
        (.bmp, Data(Array("BM".utf8) + Array(repeating: 0, count: 12) + [40, 0, 0, 0, 0x10, 0, 0, 0, 0xF8, 0xFF, 0xFF, 0xFF]), 16, 8),
        (.tiff, Data([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0, 2, 0, 0x00, 0x01, 3, 0, 1, 0, 0, 0, 0x20, 0x00, 0, 0, 0x01, 0x01, 4, 0, 1, 0, 0, 0, 0x10, 0, 0, 0]), 32, 16),
        (.tiff, Data([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0, 2, 0x01, 0x00, 0, 3, 0, 0, 0, 1, 0x00, 0x20, 0, 0, 0x01, 0x01, 0, 3, 0, 0, 0, 1, 0x00, 0x10, 0, 0]), 32, 16),
        (.ico, Data([0, 0, 1, 0, 2, 0, 16, 16, 0, 0, 1, 0, 32, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 32, 0]), 256, 256),
    ]

    @Test func readsFormatAndSizeFromTheHeader() throws {
        let serializer = ImageResponseSerializer()
        let info = try serializer.serialize(response(contentType: "image/png", data: png(width: 100, height: 50)))
        #expect(info.format == .png && info.width == 100 && info.height == 50)
        for (format, data, width, height) in samples {
            let info = try serializer.serialize(response(contentType: "image/png", data: data))
            #expect(info.format == format && info.width == width && info.height == height, "\(format)")
        }
    }

    /// Item 65: AFNetworking's types exactly; WebP and SVG refused unless WebP is turned on.
    @Test func acceptableTypesAndWebP() throws {
        let serializer = ImageResponseSerializer()
        #expect(serializer.validator.acceptableContentTypes == ["image/tiff", "image/jpeg", "image/gif", "image/png", "image/ico", "image/x-icon", "image/bmp", "image/x-bmp", "image/x-xbitmap", "image/x-win-bitmap"])
        let webp = Data(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0, 0, 0, 0, 0x3F, 0x01, 0x00, 0xC7, 0x00, 0x00])
        #expect(throws: ResponseValidationError.self) { try serializer.serialize(response(contentType: "image/webp", data: webp)) }
        #expect(throws: ResponseValidationError.self) { try serializer.serialize(response(contentType: "image/svg+xml", body: "<svg/>")) }
        let mislabelled = #expect(throws: ResponseSerializationError.self) { try serializer.serialize(response(contentType: "image/png", data: webp)) }
        #expect(mislabelled?.detail.contains("allowsWebP") == true)
        var withWebP = serializer
        withWebP.allowsWebP = true
        let info = try withWebP.serialize(response(contentType: "image/webp", data: webp))
        #expect(info.format == .webp && info.width == 320 && info.height == 200)
    }

    /// Found by the image-header fuzz target (Tests/Fuzz/Corpus/image-header/regression-gif-zero-height):
    /// headers stating a side of 0 pixels, or one past 2³¹ − 1, were returned as images.
    @Test func sidesOfNoPixelOrPastTheFormatsRangeAreNotImages() {
        let serializer = ImageResponseSerializer(allowsWebP: true)
        let png32 = png(width: 1 << 31, height: 1)
        for data in [
            Data(Array("GIF89a".utf8) + [0xCD, 0x04, 0x00, 0x00]),
            png(width: 0, height: 10), png(width: 10, height: 0), png32,
            Data(Array("BM".utf8) + Array(repeating: 0, count: 12) + [40, 0, 0, 0, 0x10, 0, 0, 0, 0x00, 0x00, 0x00, 0x80]),
            Data(Array("BM".utf8) + Array(repeating: 0, count: 12) + [12, 0, 0, 0, 0, 0, 8, 0]),
            Data([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0x2C, 0x00, 0x00]),
            Data([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0, 2, 0, 0x00, 0x01, 3, 0, 1, 0, 0, 0, 0x00, 0x00, 0, 0, 0x01, 0x01, 4, 0, 1, 0, 0, 0, 0x10, 0, 0, 0]),
            Data(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [0, 0, 0, 0, 0, 0, 0, 0x9D, 0x01, 0x2A, 0x00, 0x40, 0x10, 0x00]),
        ] {
            let error = #expect(throws: ResponseSerializationError.self) { try serializer.serialize(response(contentType: "image/png", data: data)) }
            #expect(error?.reason == .unrecognizedImage)
        }
    }

    /// A JPEG frame of 0 lines takes its height from the DNL segment after its first scan.
    @Test func jpegHeightFromADefineNumberOfLinesSegment() throws {
        var jpeg = Data([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x00, 0x01, 0x90, 0x01, 0x01, 0x11, 0x00])
        jpeg.append(contentsOf: [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00])   // scan header
        jpeg.append(contentsOf: [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, 0xFF, 0xFF])        // data, stuffing, restart, fill
        jpeg.append(contentsOf: [0xFF, 0xDC, 0x00, 0x04, 0x01, 0x2C, 0xFF, 0xD9])              // DNL: 300 lines
        let image = try ImageResponseSerializer().serialize(response(contentType: "image/jpeg", data: jpeg))
        #expect(image.format == .jpeg && image.width == 400 && image.height == 300)
        let withoutLines = jpeg.prefix(15 + 10 + 9) + Data([0xFF, 0xD9])
        #expect(throws: ResponseSerializationError.self) { try ImageResponseSerializer().serialize(response(contentType: "image/jpeg", data: withoutLines)) }
    }

    @Test func truncatedOrForeignBytesAreTypedErrors() {
        let serializer = ImageResponseSerializer()
        for data in [Data([0x89, 0x50, 0x4E, 0x47]), Data([0xFF, 0xD8, 0xFF]), Data("not an image".utf8), Data([0x49, 0x49, 0x2A, 0x00, 0xFF, 0xFF, 0xFF, 0x7F])] {
            let error = #expect(throws: ResponseSerializationError.self) { try serializer.serialize(response(contentType: "image/png", data: data)) }
            #expect(error?.reason == .unrecognizedImage)
        }
    }
}

@Suite struct CompoundSerializerTests {
    /// Item 66.
    @Test func firstSerializerWithAValueWins() throws {
        let compound = CompoundResponseSerializer([ImageResponseSerializer(), JSONResponseSerializer()])
        let value = try compound.serialize(response(contentType: "application/json", body: #"{"key":"value"}"#))
        #expect(value as? JSONValue? == .some(.object(["key": "value"])))
    }

    /// Item 67: nothing fits, so the raw body comes back.
    @Test func fallsBackToTheRawBody() throws {
        let compound = CompoundResponseSerializer([ImageResponseSerializer(), JSONResponseSerializer()])
        #expect(try compound.serialize(response(contentType: "text/plain", body: "plain")) as? Data == Data("plain".utf8))
        let strict = CompoundResponseSerializer([JSONResponseSerializer()], validator: ResponseValidator(acceptableContentTypes: ["application/json"]))
        #expect(throws: ResponseValidationError.self) { try strict.serialize(response(contentType: "text/plain", body: "plain")) }
    }

    @Test func statusOnlyFailureWithAValueWins() {
        let compound = CompoundResponseSerializer([JSONResponseSerializer(), DataResponseSerializer()])
        let error = #expect(throws: ResponseValidationError.self) { try compound.serialize(response(422, contentType: "application/json", body: #"{"e":1}"#)) }
        #expect((error?.serializedValue as? JSONValue?) == .some(.object(["e": 1])))
    }

    /// Item 68: serializers are values: a copy is independent.
    @Test func copiesAreIndependent() {
        var original = JSONResponseSerializer()
        original.validator.acceptableStatusCodes = [100]
        original.validator.acceptableContentTypes = ["test/type"]
        var copy = original
        #expect(copy.validator == original.validator)
        copy.validator.acceptableStatusCodes.insert(200)
        copy.removesKeysWithNullValues = true
        #expect(original.validator.acceptableStatusCodes == [100])
        #expect(!original.removesKeysWithNullValues)
    }
}

/// Item 69, adapted: the settings of serializers are Codable values that survive a round trip.
@Suite struct PersistenceTests {
    @Test func settingsRoundTripThroughCodable() throws {
        let validator = ResponseValidator(acceptableStatusCodes: [100, 200], acceptableContentTypes: ["test/type"])
        let policy = EmptyResponsePolicy(methods: [.head, .options], statusCodes: [204, 304])
        let encoding = TextEncoding.windows1252
        let decodedValidator = try JSONDecoder().decode(ResponseValidator.self, from: JSONEncoder().encode(validator))
        let decodedPolicy = try JSONDecoder().decode(EmptyResponsePolicy.self, from: JSONEncoder().encode(policy))
        let decodedEncoding = try JSONDecoder().decode(TextEncoding.self, from: JSONEncoder().encode(encoding))
        #expect(decodedValidator == validator)
        #expect(decodedPolicy == policy)
        #expect(decodedEncoding == encoding)
    }
}

/// Findings of the review of this module, each pinned by a test.
@Suite struct ReviewFindingTests {
    @Test func hostilePropertyListsAreRefusedNotACrash() throws {
        let deep = "<plist version=\"1.0\">" + String(repeating: "<array>", count: 100_000) + String(repeating: "</array>", count: 100_000) + "</plist>"
        let error = #expect(throws: ResponseSerializationError.self) {
            try PropertyListResponseSerializer().serialize(response(contentType: "application/x-plist", body: deep))
        }
        #expect(error?.detail.contains("deeper than") == true)
        // The same with a line feed, a tab or an attribute in the tags, which the decoder reads as arrays: the check
        // once counted only `<array>`, `<array/>` and `<array …>`, and the decoder's recursion crashed the process.
        for (open, close) in [("<array\n>", "</array>"), ("<array\t>", "</array\n>"), ("<dict\r\n>", "</dict>"), ("<array a=\"x>y\">", "</array>")] {
            let nested = "<plist version=\"1.0\">" + String(repeating: open, count: 100_000) + String(repeating: close, count: 100_000) + "</plist>"
            let error = #expect(throws: ResponseSerializationError.self, "\(open)") {
                try PropertyListResponseSerializer().serialize(response(contentType: "application/x-plist", body: nested))
            }
            #expect(error?.detail.contains("deeper than") == true, "\(open)")
        }
        // Tags inside comments, CDATA and processing instructions nest nothing.
        let hidden = String(repeating: "<array>", count: 600)
        let commented = "<?xml version=\"1.0\"?><!-- \(hidden) --><?pi \(hidden) ?><plist version=\"1.0\"><array><string><![CDATA[\(hidden)]]></string></array></plist>"
        #expect(try PropertyListResponseSerializer().serialize(response(contentType: "application/x-plist", body: commented)) != nil)
        // A binary plist whose only array holds itself: bplist00, object 0 = array of 1 ref (0).
        var binary = Data("bplist00".utf8)
        binary.append(contentsOf: [0xA1, 0x00])                       // object 0 at offset 8
        let table = binary.count
        binary.append(0x08)                                          // offset table: object 0 at 8
        binary.append(contentsOf: [0, 0, 0, 0, 0, 0, 1, 1])          // trailer: sizes 1 and 1
        binary.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 1])          // one object
        binary.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 0])          // top object 0
        binary.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, UInt8(table)])
        #expect(throws: ResponseSerializationError.self) {
            try PropertyListResponseSerializer().serialize(response(contentType: "application/x-plist", data: binary))
        }
        // The same array naming itself 3 and 1,000,000 times. The depth check once skipped a container with more
        // references than twice the objects, and the decoder's recursion then crashed the process (3 times, a
        // 60-byte body); a walk pushing a million children per level would have held gigabytes.
        for count in [3, 1_000_000] {
            let error = #expect(throws: ResponseSerializationError.self) {
                try PropertyListResponseSerializer().serialize(response(contentType: "application/x-plist", data: Self.arrayHoldingItself(count)))
            }
            #expect(error?.reason == .invalidPropertyList)
        }
        // The decoder takes any `bplist0?` header for binary (found by the `property-list` fuzz target): so does the check.
        for header in ["bplist01", "bplist0-"] {
            var binary = Self.arrayHoldingItself(3)
            binary.replaceSubrange(0..<8, with: Array(header.utf8))
            let error = #expect(throws: ResponseSerializationError.self, "\(header)") {
                try PropertyListResponseSerializer().serialize(response(contentType: "application/x-plist", data: binary))
            }
            #expect(error?.detail.contains("deeper than") == true, "\(header)")
        }
        // An array whose count is an 8-byte 2^64 - 1: Foundation's decoder traps on a count past Int.max (found by
        // the fuzz target); the check refuses lengths the file cannot hold.
        let huge = Self.binaryPlist(holding: [0xAF, 0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00])
        #expect(throws: ResponseSerializationError.self) {
            try PropertyListResponseSerializer().serialize(response(contentType: "application/x-plist", data: huge))
        }
        let shallow = #"<plist version="1.0"><array><array/><dict/><array><string>x</string></array></array></plist>"#
        #expect(try PropertyListResponseSerializer().serialize(response(contentType: "application/x-plist", body: shallow)) != nil)
    }

    /// A binary plist of one array that names itself `count` times (1-byte references).
    static func arrayHoldingItself(_ count: Int) -> Data {
        // An array whose length follows as a 4-byte integer, then `count` references to object 0: itself.
        binaryPlist(holding: [0xAF, 0x12] + (0..<4).map { UInt8(truncatingIfNeeded: count >> (24 - 8 * $0)) } + [UInt8](repeating: 0, count: count))
    }

    /// A binary plist whose only object, the top one, is `object` (its marker and bytes), with 1-byte references.
    static func binaryPlist(holding object: [UInt8]) -> Data {
        var binary = Data("bplist00".utf8)
        binary.append(contentsOf: object)
        let table = binary.count
        binary.append(0x08)                                      // offset table: object 0 at 8
        binary.append(contentsOf: [0, 0, 0, 0, 0, 0, 1, 1])      // trailer: sizes 1 and 1
        binary.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 1])      // one object
        binary.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 0])      // top object 0
        binary.append(contentsOf: (0..<8).map { UInt8(truncatingIfNeeded: table >> (56 - 8 * $0)) })
        return binary
    }

    @Test func jpegFrameAfterLargeSegmentsAndTIFFDirectoryAfterPixels() throws {
        var jpeg = Data([0xFF, 0xD8])
        for _ in 0..<3 {   // three 60 KiB APP1 segments before the frame header
            jpeg.append(contentsOf: [0xFF, 0xE1, 0xF0, 0x00])
            jpeg.append(Data(count: 0xF000 - 2))
        }
        jpeg.append(contentsOf: [0xFF, 0xC2, 0x00, 0x11, 0x08, 0x02, 0x00, 0x03, 0x00])
        let image = try ImageResponseSerializer().serialize(response(contentType: "image/jpeg", data: jpeg))
        #expect(image.format == .jpeg && image.width == 768 && image.height == 512)

        var tiff = Data([0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x02, 0x00])   // IFD at 131,080
        tiff.append(Data(count: 131_072))
        tiff.append(contentsOf: [2, 0, 0x00, 0x01, 4, 0, 1, 0, 0, 0, 0x40, 0x01, 0, 0, 0x01, 0x01, 4, 0, 1, 0, 0, 0, 0xF0, 0, 0, 0])
        let info = try ImageResponseSerializer().serialize(response(contentType: "image/tiff", data: tiff))
        #expect(info.format == .tiff && info.width == 320 && info.height == 240)
    }

    @Test func emptyAnswersWithAnotherTypeAreNotErrors() throws {
        #expect(try DecodableResponseSerializer<Empty>().serialize(response(200, contentType: "text/html", method: .head)) == Empty.value)
        #expect(try DecodableResponseSerializer<Empty>().serialize(response(204, contentType: "text/html")) == Empty.value)
    }

    @Test func stringSerializerValidatesBeforeReadingTheCharset() {
        // As for JSON in AFNetworking: the decoding error, with the status error kept beneath it.
        let error = #expect(throws: ResponseSerializationError.self) {
            try StringResponseSerializer().serialize(response(404, contentType: "text/html; charset=x-sjis", body: "gone"))
        }
        #expect(error?.reason == .unsupportedEncoding)
        #expect(error?.validationError?.statusCode == 404)
        #expect((try? StringResponseSerializer().serialize(response(204, contentType: "text/plain; charset=x-sjis"))) == "")
    }

    @Test func contentTypesSetLaterMatchWithoutRegardToCase() {
        var validator = ResponseValidator()
        validator.acceptableContentTypes = ["application/vnd.api+JSON"]
        #expect(validator.validate(response(contentType: "application/vnd.api+json", body: "{}")).isValid)
    }

    @Test func lastDuplicateKeyWinsBeforeNullsGo() throws {
        var serializer = JSONResponseSerializer()
        serializer.removesKeysWithNullValues = true
        #expect(try serializer.serialize(response(contentType: "application/json", body: #"{"a":1,"a":null,"b":2}"#)) == .object(["b": 2]))
    }
}
