import CourierCore
import HTTPTypes

extension HTTPRequestSerializer {
    /// What the JSON and property-list serializers share (AFNetworking's subclasses of
    /// `AFHTTPRequestSerializer`): the URI methods are serialized by this serializer, parameters
    /// in the query; any other method gets the defaults, then `encode`'s bytes as its body and
    /// `contentType` unless the request has one. `nil` parameters give neither body nor type.
    func serialize(
        _ request: HTTPRequest,
        parameters: Parameters?,
        contentType: String,
        encode: (Parameters) throws -> [UInt8]
    ) throws -> SerializedRequest {
        if encodesParametersInURI(request.method) {
            return try serialize(request, parameters: parameters)
        }
        var request = request
        request.headerFields.addMissing(defaultHeaderFields)
        guard let parameters else {
            return SerializedRequest(request: request, body: nil)
        }
        let bytes = try encode(parameters)
        if request.headerFields[.contentType] == nil {
            request.headerFields[.contentType] = contentType
        }
        return SerializedRequest(request: request, body: Body(bytes))
    }
}
