#!/usr/bin/env bash
# Harness only (never a product image): the vgwrdma images that the tests' and samples'
# GatewayPools name, built the way a site builds its own gateway image (docs/gateway.md, "Image"):
# FROM our gateway launcher image (ghcr.io/rdmastack/gateway, the archive scripts/images.sh wrote),
# plus vgwrdma under /opt/rdmastack/gateway. NVIDIA's vgwrdma is not public and needs RDMA, so
# vgwrdma here is the stand-in (tests/fixtures/gateway/elf/vgwrdma_standin.c: links the fake
# libcuobjserver of the tag's major, then execs the real versitygw placed beside it). The
# launcher, its libraries, its environment and its user are the gateway image's own, so a gateway
# pod on a simulated node runs what a real one runs, except vgwrdma itself.
#
#   standin_images.sh --build-dir DIR --versitygw FILE
#
# writes DIR/images/standin-vgwrdma-<tag>.oci.tar (image registry.local/rdmastack/vgwrdma:<tag>)
# and DIR/images/standin-client-rollout.oci.tar (registry.local/rdmastack/client:rollout, the
# client image under a second name), each rebuilt only when an input changed (the .inputs file
# beside each archive records them).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT_DIR="$(cd "$SCRIPT_DIR/../../.." && pwd)"
# shellcheck source=../../../scripts/lib/components.sh
source "$ROOT_DIR/scripts/lib/components.sh"
# shellcheck source=../../../scripts/lib/buildah.sh
source "$ROOT_DIR/scripts/lib/buildah.sh"

BUILD_DIR="" VERSITYGW=""
while (($#)); do
  case "$1" in
    --build-dir) BUILD_DIR="$2"; shift ;;
    --versitygw) VERSITYGW="$2"; shift ;;
    *) die "unknown argument $1 (usage: standin_images.sh --build-dir DIR --versitygw FILE)" ;;
  esac
  shift
done
[[ -n "$BUILD_DIR" && -n "$VERSITYGW" ]] || die "usage: standin_images.sh --build-dir DIR --versitygw FILE"
OUT="$BUILD_DIR/images"
BASE="$OUT/gateway.oci.tar"
[[ -f "$BASE" ]] || die "$BASE not found; run scripts/images.sh first (the stand-ins are built FROM it)"
[[ -x "$VERSITYGW" ]] || die "versitygw not found at $VERSITYGW (scripts/lib/components.sh builds it)"

# tag -> the stand-in build of that tag's libcuobjserver major (-longlog: a build that writes about
# 4 KiB of log and exits 1, for tests of a long termination message)
declare -A STANDIN=(
  [1.8.0-cuobj1]="$BUILD_DIR/tests/fixtures/gateway/elf/standin-v1/vgwrdma"
  [1.8.0-cuobj2]="$BUILD_DIR/tests/fixtures/gateway/elf/standin-v2/vgwrdma"
  [1.8.0-cuobj1-longlog]="$BUILD_DIR/tests/fixtures/gateway/elf/standin-longlog/vgwrdma"
)
REPOSITORY=registry.local/rdmastack/vgwrdma
CLIENT="$OUT/client.oci.tar"
[[ -f "$CLIENT" ]] || die "$CLIENT not found; run scripts/images.sh first"

sha256() { sha256sum "$1" | cut -d' ' -f1; }
use_private_buildah_store "$OUT/.buildah-standins"
exec 9>"$OUT/.standins.lock"
flock 9
# A failed build leaves no working container in the store.
trap 'bh rm --all >/dev/null 2>&1 || true' EXIT

# build_standin ARCHIVE NAME BASE TITLE NOTE [FILE DEST]...: NAME = BASE plus each FILE at DEST,
# labelled as a stand-in; skipped when no input changed.
build_standin() {
  local archive="$1" name="$2" base="$3" title="$4" note="$5" inputs ctr t0
  shift 5
  inputs="$({
    echo "base $(sha256 "$base")"
    local i
    for ((i = 1; i <= $#; i += 2)); do echo "${!i} $(sha256 "${!i}")"; done
    echo "$name"
    sha256 "${BASH_SOURCE[0]}"
  } | sha256sum | cut -d' ' -f1)"
  if [[ -f "$archive" ]] && grep -qx "inputs $inputs" "$archive.inputs" 2>/dev/null; then
    echo "standin-images: $name cached (inputs unchanged)"
    return
  fi
  t0=$SECONDS
  ctr="$(bh from --quiet --pull=never "oci-archive:$base")"
  while (($#)); do
    bh copy --quiet --chown 0:0 --chmod 0755 "$ctr" "$1" "$2" >/dev/null
    shift 2
  done
  bh config --created-by "tests/harness/node-runtime/standin_images.sh: $title" \
    --label "org.opencontainers.image.title=$title (rdmastack test harness)" \
    --label "io.rdmastack.standin=$note; never push this image" "$ctr"
  rm -f "$archive.tmp"
  bh commit --quiet --rm --format oci --timestamp 0 --identity-label=false "$ctr" \
    "oci-archive:$archive.tmp:$name" >/dev/null
  mv "$archive.tmp" "$archive"
  echo "inputs $inputs" >"$archive.inputs"
  echo "standin-images: $name built in $((SECONDS - t0))s ($archive)"
}

for tag in "${!STANDIN[@]}"; do
  standin="${STANDIN[$tag]}"
  [[ -x "$standin" ]] || die "$standin not found; build it (cmake --build --preset dev --target gateway_elf_fixtures)"
  build_standin "$OUT/standin-vgwrdma-$tag.oci.tar" "$REPOSITORY:$tag" "$BASE" \
    "vgwrdma stand-in $tag" "vgwrdma is a stand-in that execs versitygw" \
    "$standin" /opt/rdmastack/gateway/vgwrdma "$VERSITYGW" /opt/rdmastack/gateway/versitygw
done

# The client image under a second name, for the tests that change the operator's client image (an
# operator upgrade) and watch every node's client pod get replaced.
build_standin "$OUT/standin-client-rollout.oci.tar" registry.local/rdmastack/client:rollout \
  "$CLIENT" "client image, second name" "the client image of this build under another name"
