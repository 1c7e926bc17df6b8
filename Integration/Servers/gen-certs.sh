#!/usr/bin/env bash
# Generates the TLS fixtures of Courier's test servers into OUTDIR (PEM files):
#   root.pem, root.key                  self-signed root CA ("Courier Test Root CA")
#   intermediate.pem, intermediate.key  intermediate CA signed by the root (pathlen 0)
#   leaf.pem, leaf.key                  server certificate signed by the intermediate,
#                                       SAN DNS:localhost, IP:127.0.0.1, serverAuth
#   chain.pem                           leaf + intermediate (what nginx serves)
# Idempotent: when every file is there, the chain verifies and no certificate expires within 30 days,
# nothing is written. Otherwise the whole set is generated anew in a temporary directory and moved in.
#
# To add a fixture (an expired leaf, a wrong-host leaf, a client certificate, ...): add a line to
# generate_all using make_key/make_ca/make_cert, add its files to FILES, and a check to is_valid when it
# needs one. Usage: gen-certs.sh OUTDIR
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
OUT="$1"
DAYS_CA=3650
DAYS_LEAF=825
FILES=(root.pem root.key intermediate.pem intermediate.key leaf.pem leaf.key chain.pem)

# make_key NAME: an EC P-256 private key in NAME.key (PKCS#8 PEM).
make_key() {
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key" 2>/dev/null
    chmod 600 "$1.key"
}

# write_extensions FILE SECTION LINES...: an openssl extension file with one section.
write_extensions() {
    local file="$1" section="$2"
    shift 2
    { printf '[%s]\n' "$section"; printf '%s\n' "$@"; } >"$file"
}

# make_ca NAME SUBJECT [ISSUER] [PATHLEN]: a CA certificate in NAME.pem; self-signed without ISSUER.
make_ca() {
    local name="$1" subject="$2" issuer="${3:-}" pathlen="${4:-}"
    local constraints="critical,CA:TRUE"
    [ -z "$pathlen" ] || constraints="$constraints,pathlen:$pathlen"
    make_key "$name"
    write_extensions "$name.ext" ext \
        "basicConstraints=$constraints" \
        "keyUsage=critical,keyCertSign,cRLSign" \
        "subjectKeyIdentifier=hash" \
        "authorityKeyIdentifier=keyid:always"
    if [ -z "$issuer" ]; then
        openssl req -new -x509 -key "$name.key" -subj "$subject" -days "$DAYS_CA" -sha256 \
            -set_serial "0x$(openssl rand -hex 16)" -extensions ext -config "$name.ext" -out "$name.pem"
    else
        openssl req -new -key "$name.key" -subj "$subject" -out "$name.csr"
        openssl x509 -req -in "$name.csr" -CA "$issuer.pem" -CAkey "$issuer.key" -days "$DAYS_CA" -sha256 \
            -set_serial "0x$(openssl rand -hex 16)" -extfile "$name.ext" -extensions ext -out "$name.pem" 2>/dev/null
    fi
}

# make_cert NAME SUBJECT ISSUER SAN [DAYS] [EXTENDED_KEY_USAGE]: an end-entity certificate in NAME.pem.
make_cert() {
    local name="$1" subject="$2" issuer="$3" san="$4" days="${5:-$DAYS_LEAF}" eku="${6:-serverAuth}"
    make_key "$name"
    write_extensions "$name.ext" ext \
        "basicConstraints=critical,CA:FALSE" \
        "keyUsage=critical,digitalSignature" \
        "extendedKeyUsage=$eku" \
        "subjectAltName=$san" \
        "subjectKeyIdentifier=hash" \
        "authorityKeyIdentifier=keyid:always"
    openssl req -new -key "$name.key" -subj "$subject" -out "$name.csr"
    openssl x509 -req -in "$name.csr" -CA "$issuer.pem" -CAkey "$issuer.key" -days "$days" -sha256 \
        -set_serial "0x$(openssl rand -hex 16)" -extfile "$name.ext" -extensions ext -out "$name.pem" 2>/dev/null
}

generate_all() {
    make_ca root "/O=Courier Tests/CN=Courier Test Root CA"
    make_ca intermediate "/O=Courier Tests/CN=Courier Test Intermediate CA" root 0
    make_cert leaf "/O=Courier Tests/CN=localhost" intermediate "DNS:localhost,IP:127.0.0.1"
    cat leaf.pem intermediate.pem >chain.pem
}

# The public key of a certificate and of a private key, to check that they belong together.
cert_pubkey() { openssl x509 -in "$1" -noout -pubkey; }
key_pubkey() { openssl pkey -in "$1" -pubout; }

is_valid() {
    local dir="$1" file cert
    for file in "${FILES[@]}"; do [ -s "$dir/$file" ] || return 1; done
    for cert in root intermediate leaf; do
        openssl x509 -in "$dir/$cert.pem" -noout -checkend $((30 * 86400)) >/dev/null 2>&1 || return 1
        [ "$(cert_pubkey "$dir/$cert.pem")" = "$(key_pubkey "$dir/$cert.key")" ] || return 1
    done
    openssl verify -CAfile "$dir/root.pem" -untrusted "$dir/intermediate.pem" "$dir/leaf.pem" >/dev/null 2>&1 || return 1
    openssl verify -CAfile "$dir/root.pem" -untrusted "$dir/chain.pem" "$dir/leaf.pem" >/dev/null 2>&1 || return 1
    openssl x509 -in "$dir/leaf.pem" -noout -checkhost localhost 2>/dev/null | grep -q 'does match' || return 1
    openssl x509 -in "$dir/leaf.pem" -noout -checkip 127.0.0.1 2>/dev/null | grep -q 'does match' || return 1
}

mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
if is_valid "$OUT"; then
    exit 0
fi

work="$(mktemp -d "$OUT/.gen.XXXXXX")"
trap 'rm -rf "$work"' EXIT
(cd "$work" && generate_all)
is_valid "$work" || { echo "gen-certs.sh: the generated certificates do not verify" >&2; exit 1; }
for file in "${FILES[@]}"; do mv -f "$work/$file" "$OUT/$file"; done
echo "gen-certs.sh: wrote ${FILES[*]} to $OUT" >&2
