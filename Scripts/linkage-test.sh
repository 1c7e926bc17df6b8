#!/usr/bin/env bash
# Proves with ldd that a consumer links only what it asked for: builds small executables that
# depend on chosen Courier products and checks which shared libraries they load.
# Usage: Scripts/linkage-test.sh   (run by Scripts/test.sh)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
ensure_swift

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
    "FoundationNetworking|libFoundation\.so|libxml2|libcurl|libssl|libcrypto" '
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

check ReachabilityOnly "CourierReachability" "CourierReachability" \
    "FoundationNetworking|libFoundation\.so|libxml2|libcurl|libssl" '
let monitor = ReachabilityMonitor(target: .address(IPAddress("127.0.0.1")!))
try monitor.start()
let reachable = await monitor.waitUntilReachable(timeout: .seconds(5))
precondition(reachable)
monitor.stop()
'
