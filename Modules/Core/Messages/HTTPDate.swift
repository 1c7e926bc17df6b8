import FoundationEssentials

/// HTTP dates read by the cookie date algorithm of RFC 6265 §5.1.1, the lenient reading every browser applies
/// to `Expires` and that accepts the three formats RFC 9110 §5.6.7 asks recipients to read:
/// the text is cut into tokens at delimiters, and the first token that looks like a time, a day of the
/// month, a month name and a year fills each part, whatever the order (`Sun, 06 Nov 1994 08:49:37 GMT`,
/// `Sunday, 06-Nov-94 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994` all read the same). Cookies' `Expires` and the
/// cache's `Date`, `Expires` and `Last-Modified` use it. Pure; fuzzed (the `cookies` target).
package enum HTTPDate {
    /// The instant `text` names, or `nil` when it names none (a missing part, a part out of range, a
    /// year before 1601).
    package static func parse(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in tokens(of: Array(text.utf8)) {
            if time == nil, let found = timeOf(token) { time = found; continue }
            if day == nil, let found = leadingNumber(token, minimumDigits: 1, maximumDigits: 2) { day = found; continue }
            if month == nil, let found = monthOf(token) { month = found; continue }
            if year == nil, let found = leadingNumber(token, minimumDigits: 2, maximumDigits: 4) { year = found; continue }
        }
        guard var year, let day, let month, let time else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59 else { return nil }
        guard day <= daysIn(month: month, year: year) else { return nil }
        let days = daysFromEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + time.hour * 3600 + time.minute * 60 + time.second))
    }

    /// Tokens: runs of non-delimiters. Delimiters are TAB, 0x20–0x2F, 0x3B–0x40, 0x5B–0x60, 0x7B–0x7E.
    private static func tokens(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(whereSeparator: isDelimiter)
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// 1 or 2 digits `:` 1 or 2 digits `:` 1 or 2 digits, then anything that is not a digit.
    private static func timeOf(_ token: ArraySlice<UInt8>) -> (Int, Int, Int)? {
        var parts: [Int] = []
        var index = token.startIndex
        for part in 0..<3 {
            var digits = 0
            var value = 0
            while index < token.endIndex, isDigit(token[index]), digits < 2 {
                value = value * 10 + Int(token[index] - 0x30)
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            parts.append(value)
            if part < 2 {
                guard index < token.endIndex, token[index] == UInt8(ascii: ":") else { return nil }
                index += 1
            }
        }
        if index < token.endIndex, isDigit(token[index]) { return nil }
        return (parts[0], parts[1], parts[2])
    }

    /// `minimumDigits` to `maximumDigits` digits, then anything that is not a digit.
    private static func leadingNumber(_ token: ArraySlice<UInt8>, minimumDigits: Int, maximumDigits: Int) -> Int? {
        var value = 0
        var digits = 0
        var index = token.startIndex
        while index < token.endIndex, isDigit(token[index]) {
            digits += 1
            if digits > maximumDigits { return nil }
            value = value * 10 + Int(token[index] - 0x30)
            index += 1
        }
        return digits >= minimumDigits ? value : nil
    }

    /// A token starting with a month's three-letter name, any case.
    private static func monthOf(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
        return months.firstIndex(of: prefix).map { $0 + 1 }
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian), negative before it.
    private static func daysFromEpoch(year: Int, month: Int, day: Int) -> Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
