import CourierCore
import FoundationEssentials
import HTTPTypes

/// A buffered response from the mock host with `status`, an optional `Content-Type` and `body`.
func response(
    _ status: Int = 200,
    contentType: String? = nil,
    body: String? = nil,
    data: Data? = nil,
    method: HTTPRequest.Method = .get,
    path: String = "/"
) -> DataResponse {
    var fields = HTTPFields()
    if let contentType { fields[.contentType] = contentType }
    return DataResponse(
        request: HTTPRequest(method: method, scheme: "http", authority: "mock.test", path: path),
        head: HTTPResponse(status: .init(code: status), headerFields: fields),
        data: data ?? Data((body ?? "").utf8)
    )
}
