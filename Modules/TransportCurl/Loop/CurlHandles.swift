internal import CCurl

/// An easy handle: one transfer's libcurl state. Used only on the loop thread.
struct CurlEasy {
    let raw: UnsafeMutableRawPointer

    init?() {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
    }

    @discardableResult
    func set(_ option: CURLoption, _ value: Int) -> CURLcode { ccurl_easy_setopt_long(raw, option, value) }
    @discardableResult
    func set(_ option: CURLoption, offset value: Int64) -> CURLcode { ccurl_easy_setopt_off(raw, option, curl_off_t(value)) }
    /// libcurl copies strings passed this way (since 7.17), so `value` may be temporary.
    @discardableResult
    func set(_ option: CURLoption, _ value: String) -> CURLcode {
        value.withCString { ccurl_easy_setopt_string(raw, option, $0) }
    }
    @discardableResult
    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) -> CURLcode {
        ccurl_easy_setopt_pointer(raw, option, value)
    }

    func info(_ info: CURLINFO) -> Int? {
        var value = 0
        return ccurl_easy_getinfo_long(raw, info, &value) == CURLE_OK ? value : nil
    }
    func info(offset info: CURLINFO) -> Int64? {
        var value: curl_off_t = 0
        return ccurl_easy_getinfo_off(raw, info, &value) == CURLE_OK ? Int64(value) : nil
    }
    func info(string info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>? = nil
        guard ccurl_easy_getinfo_string(raw, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    func cleanup() { curl_easy_cleanup(raw) }
}

/// A `curl_slist` of header lines, freed by its owner.
struct CurlHeaderList {
    private(set) var raw: UnsafeMutablePointer<curl_slist>? = nil

    mutating func append(_ line: String) {
        raw = line.withCString { curl_slist_append(raw, $0) } ?? raw
    }

    mutating func free() {
        curl_slist_free_all(raw)
        raw = nil
    }
}
