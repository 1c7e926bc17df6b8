internal import CCurl
import CourierCore

/// Reads `TransferMetrics` from a finished easy handle.
enum CurlMetrics {
    static func read(from easy: CurlEasy) -> TransferMetrics {
        func micros(_ info: CURLINFO) -> Int64? {
            guard let micros = easy.info(offset: info), micros > 0 else { return nil }
            return micros
        }
        let reused = (easy.info(CURLINFO_NUM_CONNECTS) ?? 1) == 0
        var address: String?
        if let ip = easy.info(string: CURLINFO_PRIMARY_IP), !ip.isEmpty {
            let port = easy.info(CURLINFO_PRIMARY_PORT) ?? 0
            // Bytes, not `Character`s: a grapheme walk per character cost every call about 2,000 instructions.
            address = ip.utf8.contains(UInt8(ascii: ":")) ? "[" + ip + "]:" + String(port) : ip + ":" + String(port)
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
            httpVersion: httpVersion(easy.info(CURLINFO_HTTP_VERSION) ?? 0),
            remoteAddress: address,
            reusedConnection: reused
        )
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
