internal import CCurl
import CourierCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads `TransferMetrics` from a finished easy handle.
enum CurlMetrics {
    /// The metrics of `easy`'s transfer, whose `CURLINFO_HTTP_VERSION` (read once by the caller, which needs it
    /// too) is `httpVersion`.
    static func read(from easy: CurlEasy, httpVersion version: Int) -> TransferMetrics {
        func micros(_ info: CURLINFO) -> Int64? {
            guard let micros = easy.info(offset: info), micros > 0 else { return nil }
            return micros
        }
        let reused = (easy.info(CURLINFO_NUM_CONNECTS) ?? 1) == 0
        var address: String?
        if let ip = easy.info(cString: CURLINFO_PRIMARY_IP) {
            address = self.address(ip: UnsafeRawBufferPointer(start: ip, count: strlen(ip)), port: easy.info(CURLINFO_PRIMARY_PORT) ?? 0)
        }
        return TransferMetrics(
            microseconds: (
                domainLookup: reused ? nil : micros(CURLINFO_NAMELOOKUP_TIME_T),
                connect: reused ? nil : micros(CURLINFO_CONNECT_TIME_T),
                secureConnection: reused ? nil : micros(CURLINFO_APPCONNECT_TIME_T),
                requestSent: micros(CURLINFO_PRETRANSFER_TIME_T),
                firstByte: micros(CURLINFO_STARTTRANSFER_TIME_T),
                total: micros(CURLINFO_TOTAL_TIME_T)
            ),
            bytesSent: easy.info(offset: CURLINFO_SIZE_UPLOAD_T) ?? 0,
            bytesReceived: easy.info(offset: CURLINFO_SIZE_DOWNLOAD_T) ?? 0,
            httpVersion: httpVersion(version),
            remoteAddress: address,
            reusedConnection: reused
        )
    }

    /// `ip:port`, or `[ip]:port` for an IPv6 address (one with a colon); nil for no address. Written into one buffer
    /// and made a string once: searching a `String`'s bytes for the colon and joining four strings cost about 600
    /// instructions per call.
    static func address(ip: UnsafeRawBufferPointer, port: Int) -> String? {
        guard let base = ip.baseAddress, !ip.isEmpty else { return nil }
        let isIPv6 = memchr(base, Int32(UInt8(ascii: ":")), ip.count) != nil
        // Brackets, colon, and the digits of any Int (20 with a sign).
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ip.count + 3 + 20) { buffer in
            var offset = 0
            func write(_ byte: UInt8) { buffer[offset] = byte; offset += 1 }
            if isIPv6 { write(UInt8(ascii: "[")) }
            for byte in ip { write(byte) }
            if isIPv6 { write(UInt8(ascii: "]")) }
            write(UInt8(ascii: ":"))
            if port < 0 { write(UInt8(ascii: "-")) }
            var digits = port.magnitude, start = offset
            repeat {
                write(UInt8(ascii: "0") + UInt8(digits % 10))
                digits /= 10
            } while digits > 0
            // The digits went in backwards.
            var end = offset - 1
            while start < end {
                buffer.swapAt(start, end)
                start += 1
                end -= 1
            }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<offset]), as: UTF8.self)
        }
    }

    static func httpVersion(_ code: Int) -> String? {
        switch code {
        case 1: return "HTTP/1.0"
        case 2: return "HTTP/1.1"
        case 3: return "HTTP/2"
        case 30: return "HTTP/3"
        default: return nil
        }
    }
}
