#!/usr/bin/env bash
# Proves with ldd that a consumer links only what it asked for: builds small executables that
# depend on chosen Courier products and checks which shared libraries they load.
# Usage: Scripts/linkage-test.sh   (run by Scripts/test.sh)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
ensure_swift

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# check NAME "PRODUCT ..." "IMPORT ..." "FORBIDDEN-REGEX" SWIFT-BODY
check() {
    local name="$1" products="$2" imports="$3" forbidden="$4" body="$5"
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
    echo "ok: $name loads none of /$forbidden/"
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

check ReachabilityOnly "CourierReachability" "CourierReachability" \
    "FoundationNetworking|libFoundation\.so|libxml2|libcurl|libssl" '
let monitor = ReachabilityMonitor(target: .address(IPAddress("127.0.0.1")!))
try monitor.start()
let reachable = await monitor.waitUntilReachable(timeout: .seconds(5))
precondition(reachable)
monitor.stop()
'
