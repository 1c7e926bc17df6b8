#!/usr/bin/env bash
# Regenerates the OpenAPI client the integration tests call httpbin with
# (Integration/OpenAPI/HTTPBinAPI/*.swift) from the document beside it.
# Builds swift-openapi-generator once in .build-openapi-generator/ (a package of its own, so neither
# Courier nor CI builds the generator), then runs it. Commit what it writes.
# Usage: Scripts/generate-openapi.sh [--check]   (--check: fail if the committed files are out of date)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
ensure_swift

check=false
[ "${1:-}" = "--check" ] && check=true

tool_dir="$COURIER_ROOT/.build-openapi-generator"
api_dir="$COURIER_ROOT/Integration/OpenAPI/HTTPBinAPI"
mkdir -p "$tool_dir/Sources/Placeholder"
cat > "$tool_dir/Package.swift" <<'SWIFT'
// swift-tools-version:6.1
// Written by Scripts/generate-openapi.sh: a package whose only job is to build the generator.
import PackageDescription
let package = Package(
    name: "CourierOpenAPIGenerator",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3")],
    targets: [.target(name: "Placeholder", path: "Sources/Placeholder")]
)
SWIFT
# SwiftPM wants a target of the package's own; this empty one is never built.
echo "// Intentionally empty: the package exists to build swift-openapi-generator." > "$tool_dir/Sources/Placeholder/Empty.swift"

log "building swift-openapi-generator 1.14.3 in $tool_dir"
swift build --package-path "$tool_dir" -c release --product swift-openapi-generator 2>&1 | tail -3
generator="$(swift build --package-path "$tool_dir" -c release --show-bin-path)/swift-openapi-generator"

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$generator" generate "$api_dir/openapi.yaml" \
    --config "$api_dir/openapi-generator-config.yaml" --output-directory "$out" >/dev/null
if $check; then
    for file in "$out"/*.swift; do
        cmp -s "$file" "$api_dir/$(basename "$file")" ||
            die "$api_dir/$(basename "$file") is out of date: run Scripts/generate-openapi.sh"
    done
else
    rm -f "$api_dir"/*.swift
    cp "$out"/*.swift "$api_dir/"
fi
log "generated client up to date in $api_dir"
