# shellcheck shell=bash
# buildah without a daemon and without the system's container storage: vfs (plain directories, no
# overlay mounts), chroot isolation (no runc), and a store of the caller's. Sourced by
# scripts/images.sh, tests/images/images_test.sh and tests/harness/node-runtime/standin_images.sh.
#
#   use_private_buildah_store DIR   # then: bh <buildah args>
#
# TMPDIR moves buildah's temporary blobs into DIR/tmp (out of /var/tmp). Run as root, buildah would
# also keep a blob-info cache in /var/lib/containers/cache (no option moves it); in a private mount
# namespace where /var/lib is read-only it keeps that cache in memory.
use_private_buildah_store() {
  BUILDAH_STORE="$1"
  mkdir -p "$BUILDAH_STORE/tmp"
  export STORAGE_DRIVER=vfs BUILDAH_ISOLATION=chroot TMPDIR="$BUILDAH_STORE/tmp"
}
# shellcheck disable=SC2016 # $0 and $@ are for the inner sh
bh() {
  unshare --mount --propagation private -- sh -c \
    'mount --bind /var/lib /var/lib && mount -o remount,bind,ro /var/lib && exec "$0" "$@"' \
    buildah --root "$BUILDAH_STORE/root" --runroot "$BUILDAH_STORE/run" --storage-driver vfs "$@"
}
