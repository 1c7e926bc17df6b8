#!/usr/bin/env bash
# Generates the TLS fixtures of Courier's test servers into OUTDIR (PEM files):
#   root.pem, root.key                  self-signed root CA ("Courier Test Root CA")
#   intermediate.pem, intermediate.key  intermediate CA signed by the root (pathlen 0)
#   leaf.pem, leaf.key                  server certificate signed by the intermediate,
#                                       SAN DNS:localhost, IP:127.0.0.1, serverAuth
#   chain.pem                           leaf + intermediate (what nginx serves)
# and the fixtures of CourierSecurity's tests (behaviour-spec section 4 E: R = root, I = intermediate, L = leaf):
#   root2.pem intermediate2.pem leaf2.pem (+ .key), chain2.pem   an unrelated chain R2 -> I2 -> L2, SAN DNS:other.test
#   ss-nd.pem ss-cn.pem ss-san.pem (+ .key)  self-signed: CN "No Domains" without SAN; CN foobar.com without SAN;
#                                       CN "Alt Name" with SAN DNS:foobar.com
#   expired.pem (+ .key)                LX: a leaf under the intermediate for localhost, valid only in January 2020
#   wrong-host.pem (+ .key)             a leaf under the intermediate for wrong.example only
#   client-ca.pem (+ .key)              a CA for client certificates (what the mutual-TLS server trusts)
#   client.pem client.key               a client certificate (clientAuth) under client-ca, its key unencrypted
#   client-encrypted.key                the same key, encrypted with the password in client-password.txt
#   other.key                           a key that belongs to no certificate (for a mismatched pair)
# and what the test proxy's intercepting users present in place of the origin (Integration/Servers/README.md):
#   interceptor.pem (+ .key), interceptor-chain.pem
#                                       a leaf under the intermediate for localhost and 127.0.0.1 with a key of
#                                       its own: what a proxy holding a trusted CA would forge
#   untrusted-interceptor.pem (+ .key), untrusted-interceptor-chain.pem
#                                       the same names under intermediate2, a CA the clients do not trust
# Idempotent: when every file is there, the chains verify and no certificate (but LX) expires within 30 days,
# nothing is written. Otherwise the whole set is generated anew in a temporary directory and moved in.
# COURIER_CERT_DAYS sets every certificate's lifetime in days (default: 3650 for CAs, 825 for the others);
# Tests/SecurityTests/Fixtures was made with 36500 (Tests/SecurityTests/Fixtures/README.md).
#
# To add a fixture: add a line to generate_all using make_key/make_ca/make_cert, add its files to FILES, and
# a check to is_valid when it needs one. Usage: gen-certs.sh OUTDIR
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
OUT="$1"
DAYS_CA="${COURIER_CERT_DAYS:-3650}"
DAYS_LEAF="${COURIER_CERT_DAYS:-825}"
CLIENT_PASSWORD="courier-test"
FILES=(root.pem root.key intermediate.pem intermediate.key leaf.pem leaf.key chain.pem
    root2.pem root2.key intermediate2.pem intermediate2.key leaf2.pem leaf2.key chain2.pem
    ss-nd.pem ss-nd.key ss-cn.pem ss-cn.key ss-san.pem ss-san.key expired.pem expired.key
    wrong-host.pem wrong-host.key client-ca.pem client-ca.key client.pem client.key client-encrypted.key
    client-password.txt other.key interceptor.pem interceptor.key interceptor-chain.pem
    untrusted-interceptor.pem untrusted-interceptor.key untrusted-interceptor-chain.pem)

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

# make_self_signed NAME SUBJECT [SAN]: a self-signed end-entity certificate (serverAuth) in NAME.pem.
make_self_signed() {
    local name="$1" subject="$2" san="${3:-}"
    make_key "$name"
    local lines=("basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature,keyCertSign"
        "extendedKeyUsage=serverAuth" "subjectKeyIdentifier=hash")
    [ -z "$san" ] || lines+=("subjectAltName=$san")
    write_extensions "$name.ext" ext "${lines[@]}"
    openssl req -new -x509 -key "$name.key" -subj "$subject" -days "$DAYS_LEAF" -sha256 \
        -set_serial "0x$(openssl rand -hex 16)" -extensions ext -config "$name.ext" -out "$name.pem"
}

# make_expired_cert NAME SUBJECT ISSUER SAN: a leaf valid from 2020-01-01 to 2020-01-02 only. `openssl x509`
# cannot date a certificate in the past, `openssl ca` can: it needs a throwaway database.
make_expired_cert() {
    local name="$1" subject="$2" issuer="$3" san="$4"
    make_key "$name"
    mkdir -p "$name.db"
    : >"$name.db/index.txt"
    openssl rand -hex 16 >"$name.db/serial"
    cat >"$name.cnf" <<CONF
[ca]
default_ca = throwaway
[throwaway]
database = $name.db/index.txt
serial = $name.db/serial
new_certs_dir = $name.db
default_md = sha256
policy = anything
unique_subject = no
copy_extensions = none
[anything]
organizationName = optional
commonName = supplied
[ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = $san
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
CONF
    openssl req -new -key "$name.key" -subj "$subject" -out "$name.csr"
    openssl ca -batch -config "$name.cnf" -cert "$issuer.pem" -keyfile "$issuer.key" -in "$name.csr" \
        -startdate 20200101000000Z -enddate 20200102000000Z -extensions ext -notext \
        -out "$name.pem" 2>/dev/null
}

generate_all() {
    make_ca root "/O=Courier Tests/CN=Courier Test Root CA"
    make_ca intermediate "/O=Courier Tests/CN=Courier Test Intermediate CA" root 0
    make_cert leaf "/O=Courier Tests/CN=localhost" intermediate "DNS:localhost,IP:127.0.0.1"
    cat leaf.pem intermediate.pem >chain.pem
    make_ca root2 "/O=Courier Tests/CN=Courier Test Other Root CA"
    make_ca intermediate2 "/O=Courier Tests/CN=Courier Test Other Intermediate CA" root2 0
    make_cert leaf2 "/O=Courier Tests/CN=other.test" intermediate2 "DNS:other.test"
    cat leaf2.pem intermediate2.pem >chain2.pem
    make_self_signed ss-nd "/CN=No Domains"
    make_self_signed ss-cn "/CN=foobar.com"
    make_self_signed ss-san "/CN=Alt Name" "DNS:foobar.com"
    make_expired_cert expired "/O=Courier Tests/CN=localhost" intermediate "DNS:localhost,IP:127.0.0.1"
    make_cert wrong-host "/O=Courier Tests/CN=wrong.example" intermediate "DNS:wrong.example"
    make_ca client-ca "/O=Courier Tests/CN=Courier Test Client CA"
    make_cert client "/O=Courier Tests/CN=Courier Test Client" client-ca "DNS:client.test" "$DAYS_LEAF" clientAuth
    printf '%s\n' "$CLIENT_PASSWORD" >client-password.txt
    openssl pkey -in client.key -aes-256-cbc -passout "pass:$CLIENT_PASSWORD" -out client-encrypted.key
    chmod 600 client-encrypted.key
    make_key other
    make_cert interceptor "/O=Courier Tests/CN=localhost" intermediate "DNS:localhost,IP:127.0.0.1"
    cat interceptor.pem intermediate.pem >interceptor-chain.pem
    make_cert untrusted-interceptor "/O=Courier Tests/CN=localhost" intermediate2 "DNS:localhost,IP:127.0.0.1"
    cat untrusted-interceptor.pem intermediate2.pem >untrusted-interceptor-chain.pem
}

# The public key of a certificate and of a private key, to check that they belong together.
cert_pubkey() { openssl x509 -in "$1" -noout -pubkey; }
key_pubkey() { openssl pkey -in "$1" -pubout; }

is_valid() {
    local dir="$1" file cert
    for file in "${FILES[@]}"; do [ -s "$dir/$file" ] || return 1; done
    for cert in root intermediate leaf root2 intermediate2 leaf2 ss-nd ss-cn ss-san wrong-host client-ca client \
        interceptor untrusted-interceptor; do
        openssl x509 -in "$dir/$cert.pem" -noout -checkend $((30 * 86400)) >/dev/null 2>&1 || return 1
        [ "$(cert_pubkey "$dir/$cert.pem")" = "$(key_pubkey "$dir/$cert.key")" ] || return 1
    done
    [ "$(cert_pubkey "$dir/expired.pem")" = "$(key_pubkey "$dir/expired.key")" ] || return 1
    openssl x509 -in "$dir/expired.pem" -noout -checkend 0 >/dev/null 2>&1 && return 1
    openssl verify -CAfile "$dir/root2.pem" -untrusted "$dir/chain2.pem" "$dir/leaf2.pem" >/dev/null 2>&1 || return 1
    openssl verify -CAfile "$dir/client-ca.pem" -purpose sslclient "$dir/client.pem" >/dev/null 2>&1 || return 1
    [ "$(openssl pkey -in "$dir/client-encrypted.key" -passin "file:$dir/client-password.txt" -pubout 2>/dev/null)" \
        = "$(cert_pubkey "$dir/client.pem")" ] || return 1
    openssl verify -CAfile "$dir/root.pem" -untrusted "$dir/intermediate.pem" "$dir/leaf.pem" >/dev/null 2>&1 || return 1
    openssl verify -CAfile "$dir/root.pem" -untrusted "$dir/chain.pem" "$dir/leaf.pem" >/dev/null 2>&1 || return 1
    openssl x509 -in "$dir/leaf.pem" -noout -checkhost localhost 2>/dev/null | grep -q 'does match' || return 1
    openssl x509 -in "$dir/leaf.pem" -noout -checkip 127.0.0.1 2>/dev/null | grep -q 'does match' || return 1
    openssl verify -CAfile "$dir/root.pem" -untrusted "$dir/interceptor-chain.pem" "$dir/interceptor.pem" \
        >/dev/null 2>&1 || return 1
    openssl verify -CAfile "$dir/root2.pem" -untrusted "$dir/untrusted-interceptor-chain.pem" \
        "$dir/untrusted-interceptor.pem" >/dev/null 2>&1 || return 1
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
