#!/usr/bin/env bash
# Harness only: prints gateway/compatibility.yaml with the sha256 of the library files this
# build's library images ship (the fake libcuobjserver/libcuobjclient builds that
# tests/harness/node-runtime/images.yaml maps into registry.local/rdmastack/libcuobj*), for the
# demo and the e2e tests to load as the operator's compatibility ConfigMap: every gateway and
# client then checks the library's bytes (LibraryDigestMismatch otherwise, docs/images.md).
# The shipped gateway/compatibility.yaml carries no sha256 of NVIDIA's libraries: only a site that
# has the vendor's files can pin them.
#
#   pinned_compatibility.sh --build-dir DIR [--source-dir DIR]
set -euo pipefail

BUILD_DIR="" SOURCE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
while (($#)); do
  case "$1" in
    --build-dir) BUILD_DIR="$2"; shift ;;
    --source-dir) SOURCE_DIR="$2"; shift ;;
    *) echo "unknown argument $1 (usage: pinned_compatibility.sh --build-dir DIR [--source-dir DIR])" >&2; exit 2 ;;
  esac
  shift
done
[[ -n "$BUILD_DIR" ]] || { echo "usage: pinned_compatibility.sh --build-dir DIR [--source-dir DIR]" >&2; exit 2; }
ELF="$BUILD_DIR/tests/fixtures/gateway/elf"
[[ -d "$ELF" ]] || { echo "$ELF not found; build gateway_elf_fixtures" >&2; exit 1; }

# version -> sha256 of the regular file <stem><version> under ELF (one per version).
declare -A SERVER=() CLIENT=()
while IFS= read -r f; do
  name="${f##*/}"
  case "$name" in
    libcuobjserver.so.*.*.*) SERVER[${name#libcuobjserver.so.}]="$(sha256sum "$f" | cut -d' ' -f1)" ;;
    libcuobjclient.so.*.*.*) CLIENT[${name#libcuobjclient.so.}]="$(sha256sum "$f" | cut -d' ' -f1)" ;;
  esac
done < <(find "$ELF" -type f -name 'libcuobj*.so.*.*.*' | sort)
((${#SERVER[@]} && ${#CLIENT[@]})) || { echo "no libcuobjserver/libcuobjclient builds under $ELF" >&2; exit 1; }

echo "# gateway/compatibility.yaml with the sha256 of the harness's library files ($ELF)."
# A sha256 line after each serverLibraries entry whose version has a file here.
in_server=0
while IFS= read -r line; do
  printf '%s\n' "$line"
  [[ "$line" =~ ^[a-zA-Z] ]] && { [[ "$line" == serverLibraries:* ]] && in_server=1 || in_server=0; }
  if ((in_server)) && [[ "$line" =~ ^\ \ -\ version:\ *([0-9.]+) ]] && [[ -v "SERVER[${BASH_REMATCH[1]}]" ]]; then
    echo "    sha256: ${SERVER[${BASH_REMATCH[1]}]}"
  fi
done <"$SOURCE_DIR/gateway/compatibility.yaml"
echo
echo "clientLibraries:"
for v in $(printf '%s\n' "${!CLIENT[@]}" | sort); do
  echo "  - version: $v"
  echo "    sha256: ${CLIENT[$v]}"
done
