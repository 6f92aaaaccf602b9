#!/usr/bin/env bash
# Checks the OCI archives scripts/images.sh wrote (docs/images.md): for each component, `buildah
# from` the archive, `buildah run` (chroot isolation) its entrypoint with --version as the image's
# user, and the image config (entrypoint, user, OCI labels); the gateway's compatibility file and
# environment, the client's chroot. buildah uses a private store in a temporary directory, removed
# at the end with every working container.
#
#   images_test.sh --images-dir DIR --version VERSION --source-dir DIR
#
# Missing archives: exit 77 (ctest SKIP_RETURN_CODE), or a failure with RDMASTACK_REQUIRE_IMAGES=1.
set -euo pipefail

IMAGES_DIR="" VERSION="" SOURCE_DIR=""
while (($#)); do
  case "$1" in
    --images-dir) IMAGES_DIR="$2"; shift ;;
    --version) VERSION="$2"; shift ;;
    --source-dir) SOURCE_DIR="$2"; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[[ -n "$IMAGES_DIR" && -n "$VERSION" && -n "$SOURCE_DIR" ]] || { echo "usage: $0 --images-dir DIR --version VERSION --source-dir DIR" >&2; exit 2; }

COMPONENTS=(operator agent gateway client)
declare -A WANT_USER=([operator]=65532:65532 [agent]=0:0 [gateway]=0:0 [client]=0:0)

missing=()
for c in "${COMPONENTS[@]}"; do [[ -f "$IMAGES_DIR/$c.oci.tar" ]] || missing+=("$IMAGES_DIR/$c.oci.tar"); done
if ((${#missing[@]})); then
  msg="missing: ${missing[*]}; run scripts/images.sh (after the build) to make them"
  if [[ "${RDMASTACK_REQUIRE_IMAGES:-0}" == 1 ]]; then
    echo "FAIL: $msg (RDMASTACK_REQUIRE_IMAGES=1)" >&2
    exit 1
  fi
  echo "SKIP: $msg" >&2
  exit 77
fi
if ((EUID != 0)) || ! command -v buildah >/dev/null; then
  msg="needs root and buildah (scripts/setup.sh installs it)"
  [[ "${RDMASTACK_REQUIRE_IMAGES:-0}" == 1 ]] && { echo "FAIL: $msg" >&2; exit 1; }
  echo "SKIP: $msg" >&2
  exit 77
fi

STORE="$(mktemp -d "${TMPDIR:-/tmp}/rdmastack-images-test.XXXXXX")"
# shellcheck source=../../scripts/lib/buildah.sh
source "$SOURCE_DIR/scripts/lib/buildah.sh"
use_private_buildah_store "$STORE"
cleanup() {
  bh rm --all >/dev/null 2>&1 || true
  rm -rf "$STORE"
}
trap cleanup EXIT

failures=0
fail() { echo "FAIL [$1]: $2" >&2; failures=$((failures + 1)); }
# run_in COMPONENT CONTAINER ARGV...: sets out and rc. buildah 1.28's chroot runner now and then
# returns a process's output empty (exit status 0) on a loaded machine; an empty answer is asked
# again, a wrong one is not.
run_in() {
  local c="$1" ctr="$2" attempt; shift 2
  for attempt in 1 2 3; do
    rc=0
    out="$(bh run --isolation chroot "$ctr" -- "$@" 2>&1)" || rc=$?
    [[ $rc != 0 || -n "$out" ]] && return 0
    echo "note [$c]: buildah run $1 gave no output (attempt $attempt)" >&2
  done
}
label() { bh inspect --type container --format "{{index .OCIv1.Config.Labels \"$2\"}}" "$1"; }

for c in "${COMPONENTS[@]}"; do
  archive="$IMAGES_DIR/$c.oci.tar"
  failures_before=$failures
  ctr="$(bh from --quiet --name "images-test-$c" "oci-archive:$archive")"

  # One line per entrypoint element (buildah's templates have no json function).
  mapfile -t argv < <(bh inspect --type container --format '{{range .OCIv1.Config.Entrypoint}}{{println .}}{{end}}' "$ctr" | sed '/^$/d')
  [[ "${#argv[@]}" == 1 && "${argv[0]}" == "/usr/local/bin/rdmastack-$c" ]] ||
    fail "$c" "entrypoint is [${argv[*]}], want [/usr/local/bin/rdmastack-$c]"
  user="$(bh inspect --type container --format '{{.OCIv1.Config.User}}' "$ctr")"
  [[ "$user" == "${WANT_USER[$c]}" ]] || fail "$c" "user is '$user', want '${WANT_USER[$c]}'"
  version="$(label "$ctr" org.opencontainers.image.version)"
  [[ "$version" == "$VERSION" ]] || fail "$c" "label org.opencontainers.image.version is '$version', want $VERSION"
  revision="$(label "$ctr" org.opencontainers.image.revision)"
  [[ "$revision" =~ ^[0-9a-f]{40}$ ]] || fail "$c" "label org.opencontainers.image.revision is '$revision', want a 40-hex commit"
  for key in title source description; do
    [[ -n "$(label "$ctr" "org.opencontainers.image.$key")" ]] || fail "$c" "label org.opencontainers.image.$key is empty"
  done
  if [[ "${WANT_USER[$c]}" == 0:0 ]]; then
    [[ -n "$(label "$ctr" io.rdmastack.runs-as-root)" ]] || fail "$c" "runs as root without the label io.rdmastack.runs-as-root saying why"
  fi

  # The entrypoint itself, as the image's user (65532 for the operator), in a chroot of the image.
  run_in "$c" "$ctr" "${argv[@]}" --version
  if ((rc != 0)); then
    fail "$c" "'${argv[*]} --version' failed in the image (exit $rc): $out"
  elif [[ "$out" != *"rdmastack-$c"*"$VERSION"* ]]; then
    fail "$c" "'${argv[*]} --version' printed '$out', want rdmastack-$c $VERSION"
  fi
  version_out="$out"

  if [[ "$c" == gateway ]]; then
    mnt="$(bh mount "$ctr")"
    cmp -s "$mnt/etc/rdmastack/compatibility.yaml" "$SOURCE_DIR/gateway/compatibility.yaml" ||
      fail "$c" "/etc/rdmastack/compatibility.yaml differs from gateway/compatibility.yaml"
    bh umount "$ctr" >/dev/null
    env="$(bh inspect --type container --format '{{range .OCIv1.Config.Env}}{{println .}}{{end}}' "$ctr")"
    grep -qx 'RDMASTACK_GW_COMPATIBILITY_FILE=/etc/rdmastack/compatibility.yaml' <<<"$env" ||
      fail "$c" "RDMASTACK_GW_COMPATIBILITY_FILE is not /etc/rdmastack/compatibility.yaml"
  fi
  if [[ "$c" == client ]]; then
    # The default --modprobe-command is `chroot /host modprobe nvidia_peermem`: chroot must be in PATH.
    run_in "$c" "$ctr" chroot --version
    [[ $rc == 0 && "$out" == chroot* ]] || fail "$c" "chroot is not runnable in the image (exit $rc: $out)"
  fi
  bh rm "$ctr" >/dev/null

  # The digest images.sh recorded is the sha256 of the manifest's bytes in the archive, and the
  # chart values carry it (the digest the chart deploys is the image that was built).
  digest="$(cat "$IMAGES_DIR/$c.digest" 2>/dev/null || true)"
  manifest_sha="$(tar -xOf "$archive" "blobs/sha256/${digest#sha256:}" 2>/dev/null | sha256sum | cut -d' ' -f1)"
  if [[ ! "$digest" =~ ^sha256:[0-9a-f]{64}$ ]]; then
    fail "$c" "$IMAGES_DIR/$c.digest holds '$digest', want sha256:<64 hex>"
  elif [[ "sha256:$manifest_sha" != "$digest" ]]; then
    fail "$c" "the archive's manifest blob ${digest#sha256:} hashes to $manifest_sha"
  elif [[ "$c" != gateway ]] && ! grep -qx "    $c: $digest" "$IMAGES_DIR/digests.yaml"; then
    fail "$c" "$IMAGES_DIR/digests.yaml does not give $c: $digest"
  fi
  ((failures == failures_before)) && echo "ok: $(basename "$archive"): $version_out; user ${WANT_USER[$c]}, labels version $VERSION, revision $revision"
done

((failures == 0)) || { echo "$failures check(s) failed" >&2; exit 1; }
echo "all ${#COMPONENTS[@]} images passed"
