// The umbrella module: one import for the whole SDK. Modules are re-exported here as they arrive
// (response serialization, multipart, security and reachability come with their issues).
@_exported import CourierCore
@_exported import CourierCurl
@_exported import CourierMultipart
@_exported import CourierRequestSerialization
@_exported import CourierResponseSerialization
@_exported import HTTPTypes
