// The umbrella module: one import for the whole SDK. Later modules (curl transport, serializers,
// security, reachability) are re-exported here as they arrive.
@_exported import CourierCore
@_exported import HTTPTypes
