// The umbrella module: one import for the whole SDK. Modules are re-exported here as they arrive
// (security comes with its issue).
@_exported import CourierCore
@_exported import CourierCurl
@_exported import CourierMultipart
@_exported import CourierReachability
@_exported import CourierRequestSerialization
@_exported import CourierResponseSerialization
@_exported import HTTPTypes
