import CourierCore
import FoundationEssentials
import Testing

/// RFC 6265 §5.1.1's date algorithm (`HTTPDate`, in Core).
@Suite struct CookieDateTests {
    private let expected = Date(timeIntervalSince1970: 784_111_777)   // Sun, 06 Nov 1994 08:49:37 GMT

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",        // RFC 1123
        "Sunday, 06-Nov-94 08:49:37 GMT",       // RFC 850
        "Sun Nov  6 08:49:37 1994",             // asctime
        "06 Nov 1994 08:49:37",
        "Nov 06 08:49:37 1994 GMT",
        "sun, 06 nov 1994 08:49:37 gmt",
        "Sun, 06-Nov-1994 08:49:37 GMT",
        "1994 Nov 6 8:49:37",
        "Sun, 6 November 1994 08:49:37 +0000",
    ])
    func theFormatsServersSendAllRead(text: String) {
        #expect(HTTPDate.parse(text) == expected)
    }

    @Test(arguments: [
        "",
        "Sun, 06 Nov 1994",                      // no time
        "Sun, 32 Nov 1994 08:49:37 GMT",         // no 32nd
        "Sun, 31 Nov 1994 08:49:37 GMT",         // November has 30 days
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:00 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT",
        "Sun, 06 Nov 1600 08:49:37 GMT",         // before 1601
        "Sun, 06 Nov 19945 08:49:37 GMT",        // a five-digit year is no year
        "Sun, 006 Nov 1994 08:49:37 GMT",        // a three-digit day is no day (it reads as the year 2006)
    ])
    func impossibleDatesAreNoDate(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func twoDigitYearsAndLeapDays() {
        #expect(HTTPDate.parse("01 Jan 70 00:00:00") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("01 Jan 69 00:00:00") == Date(timeIntervalSince1970: 3_124_224_000))   // 2069
        #expect(HTTPDate.parse("29 Feb 2024 12:00:00") == Date(timeIntervalSince1970: 1_709_208_000))
        #expect(HTTPDate.parse("29 Feb 2023 12:00:00") == nil)
        #expect(HTTPDate.parse("29 Feb 2000 00:00:00") != nil && HTTPDate.parse("29 Feb 1900 00:00:00") == nil)
        #expect(HTTPDate.parse("01 Jan 1601 00:00:00") == Date(timeIntervalSince1970: -11_644_473_600))
    }
}
