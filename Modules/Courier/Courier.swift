// The umbrella module: one import for the whole SDK. Modules are re-exported here as they arrive
// (CourierXML stays out: its users ask for libxml2). CourierSecurity brings OpenSSL's libcrypto: a
// consumer that wants none links the modules it needs instead of the umbrella.
@_exported import CourierAuthentication
@_exported import CourierCache
@_exported import CourierCookies
@_exported import CourierCore
@_exported import CourierCurl
@_exported import CourierMultipart
@_exported import CourierReachability
@_exported import CourierRequestSerialization
@_exported import CourierResponseSerialization
@_exported import CourierSecurity
@_exported import CourierStreaming
@_exported import HTTPTypes
