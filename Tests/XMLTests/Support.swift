import CourierCore
import FoundationEssentials
import HTTPTypes

/// A buffered response from the mock host with `status`, an optional `Content-Type` and `body`.
func response(
    _ status: Int = 200, contentType: String? = "application/xml", body: String? = nil, data: Data? = nil, path: String = "/"
) -> DataResponse {
    var fields = HTTPFields()
    if let contentType { fields[.contentType] = contentType }
    return DataResponse(
        request: HTTPRequest(method: .get, scheme: "http", authority: "mock.test", path: path),
        head: HTTPResponse(status: .init(code: status), headerFields: fields),
        data: data ?? Data((body ?? "").utf8)
    )
}

/// A streaming response (the body not read yet) with `status` and an optional `Content-Type`.
func streamingResponse(_ status: Int = 200, contentType: String? = "application/xml", body: Body) -> Response {
    var fields = HTTPFields()
    if let contentType { fields[.contentType] = contentType }
    return Response(
        head: HTTPResponse(status: .init(code: status), headerFields: fields), body: body,
        request: HTTPRequest(method: .get, scheme: "http", authority: "mock.test", path: "/feed")
    )
}

/// A single-pass body that delivers `chunks` one by one.
func chunkedBody(_ chunks: [String]) -> Body {
    let (body, writer) = Body.makeStream()
    for chunk in chunks { writer.yield(Data(chunk.utf8)) }
    writer.finish()
    return body
}

/// AFNetworking's XMLDocument test document.
let afDocument = #"<?xml version="1.0" encoding="UTF-8"?><foo attr1="1" attr2="2"><bar>someValue</bar></foo>"#
