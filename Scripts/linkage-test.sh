#!/usr/bin/env bash
# Proves with ldd that a consumer links only what it asked for: builds small executables that
# depend on chosen Courier products and checks which shared libraries they load.
# Usage: Scripts/linkage-test.sh   (run by Scripts/test.sh)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
ensure_swift
# Its consumers build CourierCurl, CourierXML, CourierCookies and CourierSecurity: their C libraries' headers.
ensure_apt_packages "${COURIER_LIBRARY_PACKAGES[@]}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# check NAME "PRODUCT ..." "IMPORT ..." "FORBIDDEN-REGEX" SWIFT-BODY ["REQUIRED-REGEX"]
# The consumer must load no library matching FORBIDDEN-REGEX and, when given, one matching
# REQUIRED-REGEX (so a check cannot pass by looking at the wrong binary).
check() {
    local name="$1" products="$2" imports="$3" forbidden="$4" body="$5" required="${6:-}"
    local dir="$work/$name"
    mkdir -p "$dir/Sources/$name"
    local deps="" product
    for product in $products; do
        deps+=".product(name: \"$product\", package: \"courier\"), "
    done
    cat > "$dir/Package.swift" <<SWIFT
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "$name",
    dependencies: [.package(name: "courier", path: "$COURIER_ROOT")],
    targets: [.executableTarget(name: "$name", dependencies: [$deps])]
)
SWIFT
    {
        local module
        for module in $imports; do echo "import $module"; done
        printf '%s\n' "$body"
    } > "$dir/Sources/$name/main.swift"
    log "linkage: $name ($products)"
    (cd "$dir" && swift build --scratch-path "$work/.build" --product "$name" -q) \
        || die "the $name consumer did not build"
    local binary="$work/.build/debug/$name"
    "$binary" >/dev/null || die "the $name consumer did not run"
    local libraries
    libraries="$(ldd "$binary")"
    if grep -Ei "$forbidden" <<<"$libraries"; then
        die "$name links a library it did not ask for (above)"
    fi
    if [ -n "$required" ] && ! grep -Eiq "$required" <<<"$libraries"; then
        printf '%s\n' "$libraries" >&2
        die "$name does not load /$required/, which it asked for"
    fi
    echo "ok: $name loads none of /$forbidden/${required:+ and loads /$required/}"
}

check CoreOnly "CourierCore" "CourierCore HTTPTypes" \
    "FoundationNetworking|libFoundation\.so|libxml2|libcurl|libssl|libcrypto|libbrotli|libzstd" '
struct Echo: Transport {
    func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        Response(head: HTTPResponse(status: .ok), body: Body("hi"))
    }
}
let response = try await Session(transport: Echo())
    .data(for: HTTPRequest(method: .get, scheme: "http", authority: "x.test", path: "/"))
precondition(response.text == "hi")
'

check CoreCurl "CourierCore CourierCurl" "CourierCore CourierCurl HTTPTypes" \
    "FoundationNetworking|libFoundation\.so|libxml2" '
_ = try CurlTransport()
precondition(!CurlTransport.libcurlVersion.isEmpty)
'

check CoreCurlResponses "CourierCore CourierCurl CourierResponseSerialization" \
    "CourierCore CourierCurl CourierResponseSerialization FoundationEssentials HTTPTypes" \
    "FoundationNetworking|libFoundation\.so|libxml2" '
let validator = ResponseValidator(acceptableContentTypes: ["application/json"])
precondition(validator.validate(head: HTTPResponse(status: .ok), body: Data(), url: nil).isValid)
_ = try CurlTransport()
' "libcurl"

# The umbrella leaves CourierXML out, so its users do not load libxml2 either.
check Umbrella "Courier" "Courier" "FoundationNetworking|libxml2" '
_ = Session(transport: MockUmbrellaTransport())
struct MockUmbrellaTransport: Transport {
    func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        Response(head: HTTPResponse(status: .ok))
    }
}
'

# Only a program that uses CourierXML loads libxml2.
check XMLUser "CourierCore CourierXML" "CourierCore CourierXML FoundationEssentials" \
    "FoundationNetworking|libFoundation\.so|libcurl" '
let document = try XMLDocument(data: Data("<a><b>c</b></a>".utf8))
let text = try document.xpath("string(/a/b)").string
precondition(text == "c")
' "libxml2"

# A forms-only program: multipart names its fields by Core's flattening, so no query serializer comes with it.
check FormsOnly "CourierCore CourierMultipart" "CourierCore CourierMultipart FoundationEssentials" \
    "FoundationNetworking|libFoundation\.so|libxml2|libcurl|libssl|libcrypto" '
var form = MultipartFormData()
try form.appendParameters(["user": ["name": "Ada"], "tags": ["a", "b"]])
form.append(Data("x".utf8), name: "file", fileName: "x.txt", mimeType: "text/plain")
precondition(form.contentLength > 0)
'
if nm "$work/.build/debug/FormsOnly" | grep -q '27CourierRequestSerialization'; then
    die "FormsOnly holds code of CourierRequestSerialization, which CourierMultipart no longer needs"
fi
echo "ok: FormsOnly holds no code of CourierRequestSerialization"

# Authentication is an interceptor over Core alone: it brings no library, and a Core-only consumer holds none of it.
check AuthenticationOnly "CourierCore CourierAuthentication" "CourierCore CourierAuthentication HTTPTypes" \
    "FoundationNetworking|libFoundation\.so|libxml2|libcurl|libssl|libcrypto" '
struct Token: AuthenticationCredential { var requiresRefresh: Bool { false } }
struct Tokens: Authenticator {
    func apply(_ credential: Token, to request: inout HTTPRequest) { request.headerFields[.authorization] = "Bearer t" }
    func refresh(_ credential: Token) async throws -> Token { credential }
}
struct Echo: Transport {
    func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        Response(head: HTTPResponse(status: request.headerFields[.authorization] == "Bearer t" ? .ok : .unauthorized))
    }
}
let configuration = SessionConfiguration(interceptors: [AuthenticationInterceptor(authenticator: Tokens(), credential: Token())])
let response = try await Session(configuration: configuration, transport: Echo())
    .data(for: HTTPRequest(method: .get, scheme: "http", authority: "x.test", path: "/"))
precondition(response.status == .ok)
'
grep -q '21CourierAuthentication' <<<"$(nm "$work/.build/debug/AuthenticationOnly")" ||
    die "AuthenticationOnly holds no CourierAuthentication code: the check below would look for the wrong name"
! grep -q '21CourierAuthentication' <<<"$(nm "$work/.build/debug/CoreOnly")" || die "CoreOnly holds code of CourierAuthentication"
echo "ok: CoreOnly holds no code of CourierAuthentication"

# Streaming reads Core's bodies alone: it brings no library either.
check StreamingOnly "CourierCore CourierStreaming" "CourierCore CourierStreaming HTTPTypes FoundationEssentials" \
    "FoundationNetworking|libFoundation\.so|libxml2|libcurl|libssl|libcrypto" '
struct Events: Transport {
    func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        if request.headerFields[HTTPField.Name("Last-Event-ID")!] != nil { return Response(head: HTTPResponse(status: .noContent)) }
        return Response(head: HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"]), body: Body("retry: 1\nid: 1\ndata: hi\n\n"))
    }
}
var received: [String] = []
for try await event in Session(transport: Events()).events(for: HTTPRequest(method: .get, scheme: "http", authority: "x.test", path: "/")) {
    received.append(event.data)
}
precondition(received == ["hi"])
'
grep -q '16CourierStreaming' <<<"$(nm "$work/.build/debug/StreamingOnly")" ||
    die "StreamingOnly holds no CourierStreaming code: the check below would look for the wrong name"
! grep -q '16CourierStreaming' <<<"$(nm "$work/.build/debug/CoreOnly")" || die "CoreOnly holds code of CourierStreaming"
echo "ok: CoreOnly holds no code of CourierStreaming"

# Cookies bring libpsl (which libcurl loads anyway) and nothing else.
check CookiesOnly "CourierCore CourierCookies" "CourierCore CourierCookies HTTPTypes FoundationEssentials" \
    "FoundationNetworking|libFoundation\.so|libxml2|libcurl|libssl|libcrypto" '
let jar = CookieJar()
jar.store(setCookieFields: ["a=1; Domain=co.uk", "b=2; Path=/"], for: URL(string: "https://shop.co.uk/")!)
precondition(jar.allCookies.map(\.name) == ["b"])
' "libpsl"
! grep -q '14CourierCookies' <<<"$(nm "$work/.build/debug/CoreOnly")" || die "CoreOnly holds code of CourierCookies"
! grep -q libpsl <<<"$(ldd "$work/.build/debug/CoreOnly")" || die "CoreOnly loads libpsl"
echo "ok: CoreOnly holds no code of CourierCookies and loads no libpsl"

# The cache is Core alone too.
check CacheOnly "CourierCore CourierCache" "CourierCore CourierCache HTTPTypes" \
    "FoundationNetworking|libFoundation\.so|libxml2|libcurl|libssl|libcrypto|libpsl" '
struct Origin: Transport {
    func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        Response(head: HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=60", .contentLength: "2"]), body: Body("hi"))
    }
}
let cache = try HTTPCache(.memory(maximumBytes: 1 << 20))
let session = Session(configuration: SessionConfiguration(networkInterceptors: [cache.interceptor]), transport: Origin())
let request = HTTPRequest(method: .get, scheme: "http", authority: "x.test", path: "/")
_ = try await session.data(for: request)
_ = try await session.data(for: request)
precondition(cache.statistics.hits == 1)
'
! grep -q '12CourierCache' <<<"$(nm "$work/.build/debug/CoreOnly")" || die "CoreOnly holds code of CourierCache"
echo "ok: CoreOnly holds no code of CourierCache"

# --- Observability and OpenAPI: each product links its own package of the ecosystem and no other -----------
# Swift packages link statically, so ldd cannot tell: the symbols can. Module names as Swift mangles them.
SWIFT_LOG='7Logging6Logger' TRACING='7Tracing' METRICS='11CoreMetrics' OPENAPI='14OpenAPIRuntime'
# (From a here-string: `nm | grep -q` would fail under pipefail when grep stops reading early.)
holds() { grep -q "$2" <<<"$(nm "$work/.build/debug/$1")"; }
only_its_own() { # only_its_own CONSUMER OWN-MODULE-SYMBOL OWN-PACKAGE-SYMBOL
    local consumer="$1" own="$2" package="$3" other
    holds "$consumer" "$own" || die "$consumer holds no code of its product: the checks below would look for the wrong name"
    holds "$consumer" "$package" || die "$consumer holds no code of its package ($package)"
    ! holds CoreOnly "$own" || die "CoreOnly holds code of $own"
    ! holds CoreOnly "$package" || die "CoreOnly holds code of the package $package"
    for other in "$SWIFT_LOG" "$TRACING" "$METRICS" "$OPENAPI"; do
        [ "$other" = "$package" ] && continue
        ! holds "$consumer" "$other" || die "$consumer holds code of $other, which it did not ask for"
    done
    echo "ok: $consumer holds its product and $package only; CoreOnly holds neither"
}

check LoggingOnly "CourierCore CourierLogging" "CourierCore CourierLogging Logging HTTPTypes" \
    "FoundationNetworking|libFoundation\.so|libxml2|libcurl|libssl|libcrypto|libpsl" '
struct Echo: Transport {
    func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        Response(head: HTTPResponse(status: .ok), body: Body("hi"))
    }
}
var configuration = SessionConfiguration()
configuration.addLogging(RequestLogging(logger: Logger(label: "linkage")))
_ = try await Session(configuration: configuration, transport: Echo())
    .data(for: HTTPRequest(method: .get, scheme: "http", authority: "x.test", path: "/"))
'
only_its_own LoggingOnly '14CourierLogging' "$SWIFT_LOG"

check TracingOnly "CourierCore CourierTracing" "CourierCore CourierTracing Tracing HTTPTypes" \
    "FoundationNetworking|libFoundation\.so|libxml2|libcurl|libssl|libcrypto|libpsl" '
struct Echo: Transport {
    func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        Response(head: HTTPResponse(status: .ok))
    }
}
var configuration = SessionConfiguration()
configuration.addTracing(RequestTracing(tracer: NoOpTracer()))
_ = try await Session(configuration: configuration, transport: Echo())
    .data(for: HTTPRequest(method: .get, scheme: "http", authority: "x.test", path: "/"))
'
only_its_own TracingOnly '14CourierTracing' "$TRACING"

check MetricsOnly "CourierCore CourierMetrics" "CourierCore CourierMetrics CoreMetrics HTTPTypes" \
    "FoundationNetworking|libFoundation\.so|libxml2|libcurl|libssl|libcrypto|libpsl" '
struct Echo: Transport {
    func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        Response(head: HTTPResponse(status: .ok))
    }
}
var configuration = SessionConfiguration()
configuration.addMetrics(RequestMetrics(factory: NOOPMetricsHandler.instance))
_ = try await Session(configuration: configuration, transport: Echo())
    .data(for: HTTPRequest(method: .get, scheme: "http", authority: "x.test", path: "/"))
'
only_its_own MetricsOnly '14CourierMetrics' "$METRICS"

# swift-openapi-runtime builds on Foundation (its default trait), so this one may load libFoundation.so: that is
# the runtime's own dependency; libcurl, libxml2 and FoundationNetworking stay out.
check OpenAPIOnly "CourierCore CourierOpenAPI" "CourierCore CourierOpenAPI OpenAPIRuntime HTTPTypes FoundationEssentials" \
    "FoundationNetworking|libxml2|libcurl|libpsl" '
struct Echo: Transport {
    func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        Response(head: HTTPResponse(status: .ok), body: Body("hi"))
    }
}
let (head, body) = try await CourierClientTransport(session: Session(transport: Echo()))
    .send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/"), body: nil,
          baseURL: URL(string: "https://x.test")!, operationID: "op")
precondition(head.status == .ok && body != nil)
'
only_its_own OpenAPIOnly '14CourierOpenAPI' "$OPENAPI"

check ReachabilityOnly "CourierReachability" "CourierReachability" \
    "FoundationNetworking|libFoundation\.so|libxml2|libcurl|libssl" '
let monitor = ReachabilityMonitor(target: .address(IPAddress("127.0.0.1")!))
try monitor.start()
let reachable = await monitor.waitUntilReachable(timeout: .seconds(5))
precondition(reachable)
monitor.stop()
'

# --- OpenSSL: only CourierSecurity brings OpenSSL code of Courier's -----------------------------------
# libcurl itself links libssl and libcrypto, so ldd lists them for every curl consumer: that is libcurl's
# doing, not Courier's. What Courier adds shows in the binary itself: the libraries it needs directly
# (DT_NEEDED) and the functions it imports. CourierCurl runs trust evaluators through OpenSSL functions it
# looks up at run time in the libssl libcurl loaded (Modules/TransportCurl/TLS/OpenSSLRuntime.swift), so a
# consumer without CourierSecurity needs no OpenSSL library itself, imports no OpenSSL function and holds
# no code of COpenSSL or CourierSecurity.
OPENSSL_FUNCTIONS='^(SSL|X509|EVP|PEM|BIO|ERR|CRYPTO|OPENSSL|d2i|i2d)_'
openssl_imports() { nm -D --undefined-only "$1" | awk '{print $NF}' | sed 's/@.*//' | grep -E "$OPENSSL_FUNCTIONS" || true; }
openssl_needed() { readelf -d "$1" | grep -E 'NEEDED.*lib(ssl|crypto)\.so' || true; }

check CoreCurlTrust "CourierCore CourierCurl" "CourierCore CourierCurl HTTPTypes" \
    "FoundationNetworking|libFoundation\.so|libxml2" '
struct PinNothing: ServerTrustEvaluator, Hashable { func evaluate(_ trust: ServerTrust) throws {} }
var configuration = SessionConfiguration()
configuration.trustEvaluator = PinNothing()
_ = Session(configuration: configuration, transport: try CurlTransport())
'
binary="$work/.build/debug/CoreCurlTrust"
# (Outputs are kept before grep reads them: `grep -q` closing a pipe early would fail it under pipefail.)
libraries="$(ldd "$binary")"
grep -q libcurl <<<"$libraries" || die "CoreCurlTrust does not load libcurl: the check looks at the wrong binary"
# The hook is there: the name of the OpenSSL function it looks up, as a string, not as an import.
grep -qx SSL_CTX_set_cert_verify_callback <<<"$(strings "$binary")" ||
    die "CoreCurlTrust holds no handshake hook: the check looks at the wrong binary"
[ -z "$(openssl_needed "$binary")" ] || die "CoreCurlTrust needs OpenSSL directly: $(openssl_needed "$binary")"
[ -z "$(openssl_imports "$binary")" ] || die "CoreCurlTrust imports OpenSSL functions: $(openssl_imports "$binary" | tr '\n' ' ')"
! grep -Eq 'copenssl_|15CourierSecurity' <<<"$(nm "$binary")" || die "CoreCurlTrust holds code of COpenSSL or CourierSecurity"
echo "ok: CoreCurlTrust (CourierCurl with a trust evaluator) needs no OpenSSL library itself, imports no OpenSSL function, holds no COpenSSL or CourierSecurity code"

check SecurityUser "CourierCore CourierSecurity" "CourierCore CourierSecurity" \
    "FoundationNetworking|libFoundation\.so|libxml2|libcurl" '
precondition(SecurityPolicy.default.pinningMode == .none)
precondition(!SecurityPolicy.default.evaluate(chain: [[0x30]], domain: nil))
'
binary="$work/.build/debug/SecurityUser"
[ -n "$(openssl_needed "$binary")" ] || die "SecurityUser does not need libcrypto: the contrast above proves nothing"
grep -qx X509_verify_cert <<<"$(openssl_imports "$binary")" || die "SecurityUser does not import X509_verify_cert"
echo "ok: SecurityUser (CourierSecurity) needs $(openssl_needed "$binary" | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')and imports $(openssl_imports "$binary" | wc -l) OpenSSL functions, without libcurl"
