#!/bin/bash
# Test-only PKI for AgentServerTlsTest, generated once and checked in (the build never runs this).
# RSA 2048, unencrypted PKCS#8 keys ("BEGIN PRIVATE KEY"), 100-year validity. Re-run from this directory to
# regenerate every file.
set -euo pipefail
cd "$(dirname "$0")"
DAYS=36500
key() { openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1"; }
ext() { printf '%s\n' "$@" >ext.cnf; }

# CA trusted by the server (tlsClientCaFile) and by the test clients.
key ca-key.pem
openssl req -x509 -new -key ca-key.pem -subj "/CN=WiSlice test CA" -days $DAYS -out ca.pem \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"

# Server certificate for localhost / 127.0.0.1, signed by the CA.
key server-key.pem
openssl req -new -key server-key.pem -subj "/CN=localhost" -out server.csr
ext "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
    "extendedKeyUsage=serverAuth" "subjectAltName=DNS:localhost,IP:127.0.0.1"
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days $DAYS -extfile ext.cnf \
    -out server.pem

# Client certificate of agent ap-1 (CN = agent_id, spec/agent/PROTOCOL.md tls-client-cert), signed by the CA.
key client-key.pem
openssl req -new -key client-key.pem -subj "/CN=ap-1" -out client.csr
ext "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature" "extendedKeyUsage=clientAuth"
openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days $DAYS -extfile ext.cnf \
    -out client.pem

# The same CN from a CA the server does not trust (its key is thrown away).
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out untrusted-ca-key.pem
openssl req -x509 -new -key untrusted-ca-key.pem -subj "/CN=Untrusted test CA" -days $DAYS -out untrusted-ca.pem \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
key untrusted-client-key.pem
openssl req -new -key untrusted-client-key.pem -subj "/CN=ap-1" -out untrusted.csr
openssl x509 -req -in untrusted.csr -CA untrusted-ca.pem -CAkey untrusted-ca-key.pem -CAcreateserial -days $DAYS \
    -extfile ext.cnf -out untrusted-client.pem

rm -f ./*.csr ./*.srl ext.cnf untrusted-ca-key.pem untrusted-ca.pem
