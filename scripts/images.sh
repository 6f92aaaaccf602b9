#!/usr/bin/env bash
# Container images of the operator, the node agent, the gateway launcher and the client data plane,
# built without a daemon: buildah (vfs storage, chroot isolation) on a Debian root made by mmdebstrap.
#
#   scripts/images.sh [--build-dir DIR] [--only COMPONENT]...
#
# writes DIR/images/<component>.oci.tar (image ghcr.io/rdmastack/<component>:<project version>, the
# chart's default image.registry; RDMASTACK_IMAGE_REGISTRY changes it), for
# component = operator, agent, gateway, client; DIR defaults to build/ (the dev preset's tree).
# Each image's manifest digest is printed and written to DIR/images/<component>.digest
# (sha256:<hex>), and DIR/images/digests.yaml is a values file for the chart with the digests of
# the operator, agent and client (`helm install -f build/images/digests.yaml`: the chart then
# deploys them as <registry>/<component>@sha256:..., docs/images.md "Digests").
#
# An image is two layers: a base with only the Debian packages its binary needs at run time (the
# owners of the shared libraries ldd resolves, found with dpkg -S, plus what the binary loads or
# runs later: EXTRA_PACKAGES) and a layer with the stripped binary and its files. A base is a
# tarball cached by content under ~/.cache/rdmastack/images/ (key: suite, apt mirror lines, package
# list, this recipe), so only the first run downloads. An image is rebuilt only when its inputs
# (binary sha256, base, recipe, version, commit) changed; DIR/images/<component>.oci.tar.inputs
# records them. Needs root (buildah's vfs storage, mmdebstrap's root mode). buildah's store is
# DIR/images/.buildah; the system's container storage is never used. docs/images.md describes the
# images.
set -euo pipefail
shopt -s inherit_errexit

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT_DIR="$(cd "$SCRIPT_DIR/.." && pwd)"
# shellcheck source=lib/components.sh
source "$SCRIPT_DIR/lib/components.sh"

log() { echo "images: $*" >&2; }

COMPONENTS=(operator agent gateway client)
IMAGE_REGISTRY="${RDMASTACK_IMAGE_REGISTRY:-ghcr.io/rdmastack}"
declare -A DESCRIPTION=(
  [operator]="rdmastack operator: GatewayPool, ClientProfile and RdmaNode controllers and the agent hub"
  [agent]="rdmastack node agent: verifies RDMA drivers and topology on its node and reports to the operator"
  [gateway]="rdmastack gateway launcher: checks the vgwrdma/libcuobjserver pair, resolves the RDMA address, execs the gateway; S3 readiness probe"
  [client]="rdmastack client data plane: prepares a GPU node for cuObject clients (peermem, cufile.json, endpoints)"
)
# Packages a binary needs at run time that ldd does not show.
declare -A EXTRA_PACKAGES=(
  [operator]=""
  # The probes dlopen libibverbs.so.1 and the mlx5 provider (libmlx5.so.1).
  [agent]="libibverbs1 ibverbs-providers"
  # vgwrdma and libcuobjserver arrive at deploy time (docs/gateway.md) and need rdma-core's
  # userspace (libibverbs + mlx5 provider, librdmacm) and libnuma.
  [gateway]="libibverbs1 ibverbs-providers librdmacm1 libnuma1"
  # The agent's probes (dlopen as above); the default --modprobe-command is `chroot /host modprobe
  # nvidia_peermem`, so the image needs chroot (only that file of coreutils is kept).
  [client]="libibverbs1 ibverbs-providers coreutils"
)
# The operator only talks to the API server and serves HTTPS: an unprivileged user (the usual
# "nonroot" 65532). The others act on the host, so they run as root and their pods grant the rest
# (securityContext set by the operator); the reason is also a label of the image.
declare -A IMAGE_USER=([operator]=65532:65532 [agent]=0:0 [gateway]=0:0 [client]=0:0)
declare -A ROOT_REASON=(
  [agent]="reads the host's root mounted at /host (sysfs, /proc, /lib/modules, /etc), whose files are root's and need not be world-readable, and opens /dev/infiniband and the GPUs (libibverbs, NVML)"
  [gateway]="IPC_LOCK for the pinned RDMA buffers takes effect only for root (Kubernetes gives no ambient capabilities), vgwrdma opens /dev/infiniband and writes the gateway root on the host's backend"
  [client]="loads nvidia_peermem into the host kernel (chroot /host modprobe, privileged pod) and writes /var/lib/rdmastack/client on the host"
)
# Packages listed as dependencies only for their maintainer scripts (creating groups, debconf
# questions). A base is extracted, never configured, so they and what only they pull in are left out.
SCRIPT_ONLY_PACKAGES=(adduser debconf passwd mawk)
# Packages of which only these files are kept (space-separated, as in the package's tar).
declare -A ONLY_FILES=([coreutils]="./usr/sbin/chroot")
DEFAULT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

BUILD_DIR="$ROOT_DIR/build"
ONLY=()
while (($#)); do
  case "$1" in
    --build-dir) [[ $# -ge 2 ]] || die "--build-dir needs a directory"; BUILD_DIR="$2"; shift ;;
    --build-dir=*) BUILD_DIR="${1#*=}" ;;
    --only) [[ $# -ge 2 ]] || die "--only needs a component"; ONLY+=("$2"); shift ;;
    --only=*) ONLY+=("${1#*=}") ;;
    -h | --help) sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $1 (usage: scripts/images.sh [--build-dir DIR] [--only COMPONENT]...)" ;;
  esac
  shift
done
for c in "${ONLY[@]}"; do
  [[ -v "DESCRIPTION[$c]" ]] || die "unknown component '$c' (one of: ${COMPONENTS[*]})"
done
((${#ONLY[@]})) && COMPONENTS=("${ONLY[@]}")

((EUID == 0)) || die "images.sh needs root (buildah vfs storage with chroot isolation, mmdebstrap root mode)"
for tool in buildah mmdebstrap dpkg-deb dpkg-query ldd objcopy objdump sha256sum flock unshare git; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed; run scripts/setup.sh"
done

BUILD_DIR="$(cd "$BUILD_DIR" 2>/dev/null && pwd)" || die "build directory not found; build first (cmake --build --preset dev)"
OUT="$BUILD_DIR/images"
STORE="$OUT/.buildah"
BASE_CACHE="$RDMASTACK_CACHE/images"
mkdir -p "$OUT" "$BASE_CACHE"
exec 8>"$OUT/.lock"
flock -n 8 || { log "another images.sh is writing $OUT; waiting"; flock 8; }

PROJECT_VERSION="$(sed -n 's/^project(rdmastack VERSION \([0-9][0-9.]*\).*/\1/p' "$ROOT_DIR/CMakeLists.txt")"
[[ -n "$PROJECT_VERSION" ]] || die "no project version in $ROOT_DIR/CMakeLists.txt"
REVISION="$(git -C "$ROOT_DIR" rev-parse HEAD 2>/dev/null)" || die "$ROOT_DIR is not a git checkout (the image label org.opencontainers.image.revision needs the commit)"
# File times and the image's creation time are the commit's: the same inputs give the same digests.
EPOCH="$(git -C "$ROOT_DIR" log -1 --format=%ct)"
SOURCE_URL="${RDMASTACK_IMAGE_SOURCE:-$(git -C "$ROOT_DIR" config --get remote.origin.url 2>/dev/null || true)}"
SOURCE_URL="${SOURCE_URL:-https://github.com/rdmastack/rdmastack}"

# buildah with its own store under the build tree (scripts/lib/buildah.sh).
# shellcheck source=lib/buildah.sh
source "$SCRIPT_DIR/lib/buildah.sh"
use_private_buildah_store "$STORE"

sha256() { sha256sum "$1" | cut -d' ' -f1; }
mib() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

# ------------------------------------------------------------------ the Debian base

# The Debian release the binaries were built against (their libraries come from it).
SUITE="$( . /etc/os-release && echo "${VERSION_CODENAME:-}")"
[[ -n "$SUITE" ]] || die "cannot tell the Debian release from /etc/os-release"

# The host's apt sources for SUITE (SUITE, SUITE-updates, SUITE-security) as one-line entries:
# the same mirror apt uses here. Reads sources.list(.d/*.list) and deb822 .sources files.
apt_source_lines() {
  local f
  {
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [[ -f "$f" ]] || continue
      sed -e 's/#.*//' "$f" | awk '$1 == "deb"'
    done
    for f in /etc/apt/sources.list.d/*.sources; do
      [[ -f "$f" ]] || continue
      # deb822: stanzas separated by blank lines; one line per (URI, suite).
      awk 'function flush() {
             if (types ~ /(^| )deb( |$)/ && enabled != "no")
               for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++) print "deb", u[i], s[j], comps
             types = ""; comps = ""; enabled = ""; nu = 0; ns = 0 }
           /^[[:space:]]*#/ { next }
           /^[[:space:]]*$/ { flush(); next }
           /^[A-Za-z-]+:/ { key = tolower($1); $1 = ""; sub(/^ +/, "")
             if (key == "types:") types = $0
             else if (key == "uris:") nu = split($0, u, " ")
             else if (key == "suites:") ns = split($0, s, " ")
             else if (key == "components:") comps = $0
             else if (key == "enabled:") enabled = tolower($0) }
           END { flush() }' "$f"
    done
  } | awk -v suite="$SUITE" '{ for (i = 2; i <= NF; i++) if ($i !~ /^\[|=|\]$/) break
                               if ($(i + 1) == suite || index($(i + 1), suite "-") == 1) print }' | sort -u
}
mapfile -t APT_SOURCES < <(apt_source_lines)
((${#APT_SOURCES[@]})) || die "no apt source for $SUITE in /etc/apt/sources.list{,.d/}; mmdebstrap needs the mirror apt uses"

# Spellings of a library path as a package may list it: merged-/usr hosts resolve /lib/... where
# the package lists /usr/lib/... (or the other way round), and ldd may show a symlink.
path_spellings() {
  local c
  for c in "$1" "$(readlink -f "$1")"; do
    echo "$c"
    if [[ "$c" == /usr/* ]]; then echo "${c#/usr}"; else echo "/usr$c"; fi
  done
}

# Debian packages a component needs at run time: the owners of the shared libraries ldd resolves
# (one dpkg-query -S for all of them) + EXTRA_PACKAGES.
runtime_packages() {
  local component="$1" bin="$2" path c line found pkgs=() paths=() spellings=()
  local -A owner=()
  local ldd_out; ldd_out="$(ldd "$bin" 2>&1)" || true
  if ! grep -qE 'not a dynamic executable|statically linked' <<<"$ldd_out"; then
    grep -q 'not found' <<<"$ldd_out" && die "$bin: ldd cannot resolve every library on this machine:"$'\n'"$ldd_out"
    mapfile -t paths < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$ldd_out")
    for path in "${paths[@]}"; do mapfile -t -O "${#spellings[@]}" spellings < <(path_spellings "$path"); done
    # "libssl3:amd64: /usr/lib/x86_64-linux-gnu/libssl.so.3"
    while IFS= read -r line; do
      owner[${line#*: }]="${line%%:*}"
    done < <(dpkg-query -S "${spellings[@]}" 2>/dev/null | grep -v '^diversion' || true)
    for path in "${paths[@]}"; do
      found=""
      while IFS= read -r c; do
        [[ -n "${owner[$c]:-}" ]] && { found="${owner[$c]}"; break; }
      done < <(path_spellings "$path")
      [[ -n "$found" ]] || die "$bin links $path, which no Debian package owns; a base cannot provide it"
      pkgs+=("$found")
    done
  fi
  # shellcheck disable=SC2206
  pkgs+=(${EXTRA_PACKAGES[$component]})
  # base-files: /etc/os-release, which tells scanners what the image is.
  ((${#pkgs[@]})) && printf '%s\n' base-files "${pkgs[@]}" | sort -u
  return 0
}

# Keeps only what the included packages need: drops SCRIPT_ONLY_PACKAGES and whatever only they
# pulled in, trims ONLY_FILES packages, and records the kept packages (name and version in
# /usr/share/rdmastack/base-packages.txt, full control data in /var/lib/dpkg/status.d/ as
# distroless images do, so that scanners see them).
prune_base() {
  local root="$1" meta="$2"; shift 2
  local -A provider=() keep=() deps=() only=()
  local ctl p d alt alts drop=()
  for ctl in "$meta"/*.control; do
    p="$(basename "$ctl" .control)"
    provider[$p]="$p"
    for d in $(sed -n 's/^Provides: //p' "$ctl" | sed 's/([^)]*)//g' | tr ',' ' '); do provider[$d]="$p"; done
    # One line per dependency, its alternatives separated by spaces, without versions/arch.
    deps[$p]="$(sed -n 's/^\(Pre-\)\{0,1\}Depends: //p' "$ctl" |
      sed -e 's/([^)]*)//g' -e 's/:[a-z0-9]*//g' -e 's/|/ /g' | tr ',' '\n')"
  done
  for p in "${SCRIPT_ONLY_PACKAGES[@]}"; do keep[$p]=skip; done
  local queue=("$@")
  while ((${#queue[@]})); do
    p="${queue[0]}"; queue=("${queue[@]:1}")
    [[ -n "${keep[$p]:-}" ]] && continue
    [[ -f "$meta/$p.control" ]] || die "package $p was asked for but not downloaded"
    keep[$p]=yes
    [[ -v "ONLY_FILES[$p]" ]] && continue  # the kept files need only libc (finish_base checks)
    while read -r -a alts; do
      for alt in "${alts[@]}"; do # the first alternative that was downloaded
        [[ -n "${provider[$alt]:-}" ]] && { queue+=("${provider[$alt]}"); break; }
      done
    done <<<"${deps[$p]}"
  done
  mkdir -p "$root/usr/share/rdmastack" "$root/var/lib/dpkg/status.d"
  : >"$root/usr/share/rdmastack/base-packages.txt"
  for ctl in "$meta"/*.control; do
    p="$(basename "$ctl" .control)"
    if [[ "${keep[$p]:-}" == yes ]]; then
      echo "$p $(sed -n 's/^Version: //p' "$ctl")" >>"$root/usr/share/rdmastack/base-packages.txt"
      cp "$ctl" "$root/var/lib/dpkg/status.d/$p"
      [[ -v "ONLY_FILES[$p]" ]] || continue
      only=()
      for d in ${ONLY_FILES[$p]}; do only[$d]=1; done
    fi
    # Files only (directories stay); a package's ./lib/... lands in usr/lib through the symlink.
    while IFS= read -r d; do
      [[ "$d" == */ || -n "${only[$d]:-}" ]] && continue
      [[ -d "$root/$d" && ! -L "$root/$d" ]] || drop+=("$root/$d")
    done <"$meta/$p.files"
    only=()
  done
  ((${#drop[@]} == 0)) || rm -f -- "${drop[@]}"
  # Directories only dropped packages had, deepest first, when that left them empty.
  local -A kept_dirs=()
  for ctl in "$meta"/*.control; do
    p="$(basename "$ctl" .control)"
    [[ "${keep[$p]:-}" == yes ]] || continue
    while IFS= read -r d; do kept_dirs[$d]=1; done < <(grep '/$' "$meta/$p.files")
  done
  drop=()
  while IFS= read -r d; do
    [[ -n "${kept_dirs[$d]:-}" || -L "$root/${d%/}" ]] || drop+=("$root/$d")
  done < <(for ctl in "$meta"/*.control; do
             p="$(basename "$ctl" .control)"
             [[ "${keep[$p]:-}" == yes ]] || grep '/$' "$meta/$p.files"
           done | sort -ru)
  ((${#drop[@]} == 0)) || rmdir --ignore-fail-on-non-empty -- "${drop[@]}" 2>/dev/null || true
  sort -o "$root/usr/share/rdmastack/base-packages.txt" "$root/usr/share/rdmastack/base-packages.txt"
}

# Users, name service and the files a container runtime provides (or that only apt/dpkg use).
finish_base() {
  local root="$1"
  rm -rf "${root:?}"/dev/* "$root"/etc/apt "$root"/etc/dpkg "$root"/var/lib/apt "$root"/var/cache/apt \
    "$root"/var/log/* "$root"/etc/hostname "$root"/etc/resolv.conf "$root"/etc/fstab "$root"/tmp/*
  find "$root/var/lib/dpkg" -mindepth 1 -maxdepth 1 ! -name status.d -exec rm -rf {} +
  mkdir -p "$root"/etc "$root"/root "$root"/home/nonroot "$root"/run "$root"/var/tmp "$root"/tmp
  chmod 1777 "$root/tmp" "$root/var/tmp"
  chmod 0700 "$root/root"
  chown 65532:65532 "$root/home/nonroot"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"$root/etc/group"
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$root/etc/nsswitch.conf"
  # Every ELF file's DT_NEEDED must be in the loader's default directories (there is no
  # ld.so.cache), or beside it when its RUNPATH is $ORIGIN (glibc's gconv modules): the pruning
  # above removed nothing a kept file needs.
  local -A have=()
  local f needed runpath missing=()
  while IFS= read -r f; do have[${f##*/}]=1; done < <(find "$root/usr/lib/x86_64-linux-gnu" "$root/usr/lib" -maxdepth 1 ! -type d)
  while read -r f needed runpath; do
    [[ -n "${have[$needed]:-}" ]] && continue
    # shellcheck disable=SC2016 # a literal $ORIGIN
    [[ "$runpath" == *'$ORIGIN'* && -e "${f%/*}/$needed" ]] && continue
    missing+=("${f#"$root"} needs $needed")
  done < <(find "$root/usr" -type f \( -perm -u+x -o -name '*.so*' \) -print0 | xargs -0 -r objdump -p 2>/dev/null |
             awk '/:[[:space:]]+file format / { flush(); f = $1; sub(/:$/, "", f) }
                  $1 == "NEEDED" { n[++k] = $2 } $1 == "RUNPATH" || $1 == "RPATH" { rp = $2 }
                  function flush() { for (i = 1; i <= k; i++) print f, n[i], rp; k = 0; rp = "" }
                  END { flush() }')
  ((${#missing[@]} == 0)) || die "base lacks libraries: ${missing[*]}"
}

# mmdebstrap -> base-<key>.tar in the cache. --variant=extract: only the packages asked for and
# their dependencies are unpacked (no apt, no dpkg, no shell); nothing is configured.
MMDEBSTRAP_OPTS=(
  --variant=extract --mode=root --format=directory --quiet
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*'
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/lintian/*'
  --dpkgopt='path-exclude=/usr/share/gdb/*' --dpkgopt='path-exclude=/usr/share/gcc/*'
)
# mmdebstrap's apt reads none of this machine's apt settings: a snapshot mirror whose Release
# files are past their Valid-Until (or dated ahead) is accepted only where this machine's apt
# accepts it.
for opt in Check-Valid-Until Check-Date; do
  # grep reads everything (no -q): under pipefail an early exit would fail apt-config (SIGPIPE).
  if apt-config dump 2>/dev/null | grep -x "Acquire::$opt \"false\";" >/dev/null; then
    MMDEBSTRAP_OPTS+=(--aptopt="Acquire::$opt \"false\"")
  fi
done
base_key() { # packages...
  {
    echo "suite $SUITE"
    printf 'source %s\n' "${APT_SOURCES[@]}"
    printf 'package %s\n' "$@"
    printf 'mmdebstrap %s\n' "${MMDEBSTRAP_OPTS[@]}"
    declare -p SCRIPT_ONLY_PACKAGES ONLY_FILES
    declare -f prune_base finish_base make_base
  } | sha256sum | cut -c1-32
}
make_base() { # key packages...
  local key="$1"; shift
  local tar="$BASE_CACHE/base-$key.tar"
  [[ -f "$tar" ]] && return 0
  exec 7>"$BASE_CACHE/.lock"
  flock 7 # another build tree may be making the same base
  [[ -f "$tar" ]] && { exec 7>&-; return 0; }
  local work="$BASE_CACHE/base-$key.work" log="$BASE_CACHE/base-$key.log"
  rm -rf "$work"; mkdir -p "$work/meta"
  log "base $key: mmdebstrap $SUITE with $* (log: $log)"
  local hook
  # At extract time the .debs are still in the root's apt cache: keep each one's control data and
  # file list for prune_base.
  # shellcheck disable=SC2016 # expanded by the hook's shell
  printf -v hook 'for d in "$1"/var/cache/apt/archives/*.deb; do p=$(dpkg-deb -f "$d" Package); dpkg-deb -f "$d" >%q/$p.control; dpkg-deb --fsys-tarfile "$d" | tar -t >%q/$p.files; done' \
    "$work/meta" "$work/meta"
  if ! mmdebstrap "${MMDEBSTRAP_OPTS[@]}" --include="$(IFS=,; echo "$*")" --extract-hook="$hook" \
      "$SUITE" "$work/root" "${APT_SOURCES[@]}" >"$log" 2>&1; then
    die "mmdebstrap failed; see $log"
  fi
  prune_base "$work/root" "$work/meta" "$@" 2>>"$log"
  finish_base "$work/root" 2>>"$log"
  tar --sort=name --numeric-owner -C "$work/root" -cf "$tar.tmp" .
  cp "$work/root/usr/share/rdmastack/base-packages.txt" "$BASE_CACHE/base-$key.packages"
  mv "$tar.tmp" "$tar"
  rm -rf "$work"
  exec 7>&-
}

# The base as an image in buildah's store (imported from the cached tarball when missing).
base_image() { # key -> image name
  local key="$1" name="localhost/rdmastack-base:$1"
  if ! bh inspect --type image "$name" >/dev/null 2>&1; then
    local ctr; ctr="$(bh from --quiet scratch)"
    bh add --quiet "$ctr" "$BASE_CACHE/base-$key.tar" / >/dev/null
    bh config --created-by "scripts/images.sh: Debian $SUITE base $key" "$ctr"
    # Timestamp 0: the base layer's digest depends on its content only.
    bh commit --quiet --rm --timestamp 0 --identity-label=false "$ctr" "$name" >/dev/null
  fi
  echo "$name"
}

# ------------------------------------------------------------------ the images

build_image() { # component
  local c="$1" bin="rdmastack-$1"
  local src="$BUILD_DIR/bin/$bin" archive="$OUT/$c.oci.tar" name="$IMAGE_REGISTRY/$c:$PROJECT_VERSION"
  [[ -x "$src" ]] || die "$src not found; build it first (cmake --build --preset dev --target $bin)"
  local said; said="$("$src" --version 2>&1 | head -n1)" || true
  [[ "$said" == *"$PROJECT_VERSION"* ]] || die "$src --version says '$said', not the project version $PROJECT_VERSION; rebuild"

  local pkgs=() key="" base="scratch" list
  list="$(runtime_packages "$c" "$src")" || exit 1
  [[ -z "$list" ]] || mapfile -t pkgs <<<"$list"
  if ((${#pkgs[@]})); then
    key="$(base_key "${pkgs[@]}")"
    base="$key"
  fi

  local files=() # "source:destination:mode"
  local env=(--env "PATH=$DEFAULT_PATH")
  local cmd=()
  if [[ "$c" == gateway ]]; then
    files+=("$ROOT_DIR/gateway/compatibility.yaml:/etc/rdmastack/compatibility.yaml:0644")
    # Paths the DaemonSet fills (init containers) or mounts; the operator may override every one.
    env+=(--env RDMASTACK_GW_BINARY=/opt/rdmastack/gateway/vgwrdma
      --env RDMASTACK_GW_SERVER_LIB_DIR=/opt/rdmastack/cuobjserver
      --env RDMASTACK_GW_CONFIG_DIR=/run/rdmastack-gateway
      --env RDMASTACK_GW_COMPATIBILITY_FILE=/etc/rdmastack/compatibility.yaml
      --env RDMASTACK_HOST_ROOT=/host)
    cmd=(--cmd '["run"]')
  fi
  local labels=(
    --label "org.opencontainers.image.title=$bin"
    --label "org.opencontainers.image.version=$PROJECT_VERSION"
    --label "org.opencontainers.image.source=$SOURCE_URL"
    --label "org.opencontainers.image.revision=$REVISION"
    --label "org.opencontainers.image.description=${DESCRIPTION[$c]}"
    --label "io.rdmastack.base=debian-$SUITE-$base"
  )
  [[ -v "ROOT_REASON[$c]" ]] && labels+=(--label "io.rdmastack.runs-as-root=${ROOT_REASON[$c]}")
  local config=(--entrypoint "[\"/usr/local/bin/$bin\"]" "${cmd[@]}" --user "${IMAGE_USER[$c]}"
    --workingdir / --stop-signal SIGTERM "${env[@]}" "${labels[@]}")

  local f inputs
  inputs="$({
    echo "binary $(sha256 "$src")"
    echo "base $base"
    echo "image $name"
    for f in "${files[@]}"; do echo "file ${f#*:} $(sha256 "${f%%:*}")"; done
    printf 'config %s\n' "${config[@]}"
    echo "epoch $EPOCH"
    declare -f build_image
  } | sha256sum | cut -d' ' -f1)"
  if [[ -f "$archive" && -f "$archive.inputs" ]] &&
    grep -qx "inputs $inputs" "$archive.inputs" &&
    grep -qx "archive-sha256 $(sha256 "$archive")" "$archive.inputs"; then
    record_digest "$c" "$archive"
    printf '%-36s %-10s cached (inputs unchanged)  %s  %s\n' "$name" "$(mib "$archive")" "${archive#"$ROOT_DIR"/}" "$(<"$OUT/$c.digest")"
    return 0
  fi

  local t0=$SECONDS from="scratch"
  if [[ -n "$key" ]]; then
    make_base "$key" "${pkgs[@]}"
    from="$(base_image "$key")"
  fi
  local stage="$STORE/tmp/$c"
  rm -rf "$stage"; mkdir -p "$stage"
  # Debug info out, symbols kept (readable stack traces); build/bin is never touched.
  objcopy --strip-debug "$src" "$stage/$bin"
  local ctr; ctr="$(bh from --quiet --pull=never --name "rdmastack-images-$c-$$" "$from")"
  CONTAINERS+=("$ctr")
  bh copy --quiet --chown 0:0 --chmod 0755 "$ctr" "$stage/$bin" "/usr/local/bin/$bin" >/dev/null
  for f in "${files[@]}"; do
    local rest="${f#*:}"
    bh copy --quiet --chown 0:0 --chmod "${rest#*:}" "$ctr" "${f%%:*}" "${rest%%:*}" >/dev/null
  done
  bh config --created-by "scripts/images.sh: $bin $PROJECT_VERSION ($REVISION)" "${config[@]}" "$ctr"
  rm -f "$archive.tmp"
  bh commit --quiet --rm --format oci --timestamp "$EPOCH" --identity-label=false \
    --disable-compression=false "$ctr" "oci-archive:$archive.tmp:$name" >/dev/null
  CONTAINERS=("${CONTAINERS[@]/$ctr}")
  mv "$archive.tmp" "$archive"
  rm -rf "$stage"
  {
    echo "inputs $inputs"
    echo "archive-sha256 $(sha256 "$archive")"
    echo "image $name"
    echo "binary-sha256 $(sha256 "$src")"
    echo "base $base"
    echo "revision $REVISION"
  } >"$archive.inputs"
  record_digest "$c" "$archive"
  printf '%-36s %-10s built in %ds  %s  %s\n' "$name" "$(mib "$archive")" "$((SECONDS - t0))" "${archive#"$ROOT_DIR"/}" "$(<"$OUT/$c.digest")"
}

# The manifest digest of an archive (its index.json names the one manifest) into
# OUT/<component>.digest. It is what a registry and a runtime call the image: the sha256 of the
# manifest's bytes, which name the config's and every layer's digest in turn.
record_digest() { # component archive
  local digest
  digest="$(tar -xOf "$2" index.json | grep -o '"digest": *"sha256:[0-9a-f]\{64\}"' | grep -o 'sha256:[0-9a-f]*')" ||
    die "$2: index.json names no sha256 manifest digest"
  [[ "$(wc -l <<<"$digest")" == 1 ]] || die "$2: index.json names more than one manifest"
  echo "$digest" >"$OUT/$1.digest"
}

# OUT/digests.yaml: the chart values that deploy the images of this build by digest. Components
# not built yet (no .digest) are left out; the chart then uses the tag for them.
write_digest_values() {
  local c tmp="$OUT/digests.yaml.tmp"
  {
    echo "# Written by scripts/images.sh: the manifest digests of the images in $OUT."
    echo "# helm install ... -f $OUT/digests.yaml deploys them by digest (docs/images.md)."
    echo "image:"
    echo "  digests:"
    for c in operator agent client; do
      if [[ -f "$OUT/$c.digest" ]]; then echo "    $c: $(<"$OUT/$c.digest")"; fi
    done
  } >"$tmp"
  mv "$tmp" "$OUT/digests.yaml"
}

CONTAINERS=()
cleanup() {
  local ctr
  for ctr in "${CONTAINERS[@]}"; do [[ -n "$ctr" ]] && bh rm "$ctr" >/dev/null 2>&1; done
  return 0
}
trap cleanup EXIT

for c in "${COMPONENTS[@]}"; do
  build_image "$c"
done
write_digest_values
log "digests: $OUT/<component>.digest; chart values: $OUT/digests.yaml"
