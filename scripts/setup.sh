#!/usr/bin/env bash
# Installs the Debian packages and tools the build and the tests need. Idempotent: re-running
# installs nothing new and says so. Go-built parts of the harness are built by cluster.sh/test.sh
# (cached under ~/.cache/rdmastack), not here.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git curl ca-certificates python3 openssl ccache
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc libnghttp2-dev libmbedtls-dev
  libboost1.81-dev libssl-dev rapidjson-dev libyaml-cpp-dev libspdlog-dev libfmt-dev prometheus-cpp-dev
  libibverbs-dev rdma-core ibverbs-providers
  buildah mmdebstrap
  libgtest-dev libgmock-dev googletest
  clang-14 libclang-rt-14-dev clang-format-14 clang-tidy-14
  iproute2 procps psmisc
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#PACKAGES[@]} Debian packages already installed"
else
  echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/rdmastack-apt.log 2>&1 ||
    { echo "error: apt-get install failed; see /tmp/rdmastack-apt.log" >&2; exit 1; }
  echo "setup: installed ${missing[*]}"
fi

for tool in go npm; do
  command -v "$tool" >/dev/null 2>&1 || { echo "error: $tool is not installed; the harness builds the control plane with it" >&2; exit 1; }
done
echo "setup: go $(go env GOVERSION), npm $(npm --version) present"

# The kubectl plugin: kubectl finds kubectl-rdmastack on PATH (`kubectl rdmastack status`). The link
# points into the build tree; it works once the build (demo.sh or test.sh) has made the binary.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ln -sfn "$ROOT/build/bin/kubectl-rdmastack" /usr/local/bin/kubectl-rdmastack
echo "setup: /usr/local/bin/kubectl-rdmastack -> $ROOT/build/bin/kubectl-rdmastack (made by the build)"
