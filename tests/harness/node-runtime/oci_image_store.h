#pragma once
// The images this project builds, as a node's container runtime keeps them: the OCI archives that
// scripts/images.sh writes (<dir>/<component>.oci.tar, each an OCI layout with one manifest named
// by its org.opencontainers.image.ref.name annotation). A reference is looked up by repository
// and tag ("docker.io/" and "library/" implied, no tag = latest), or by repository and manifest
// digest (repo@sha256:<hex>, any tag: the digest alone says which image). The first use of a
// manifest checks every blob's bytes against its digest (the manifest's against the digest the
// archive's index names, the config's and each layer's against the manifest) and refuses the image
// when one differs, as a registry pull would; then it unpacks the layers, in order, into
// <cache>/<manifest digest>/rootfs, which every container of that image then shares as its lower
// (read-only) root. Archives are re-indexed when they change
// (images.sh rebuilt one), so a new build gives a new digest and a new root; a root never changes
// once unpacked.

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "tests/harness/node-runtime/image_table.h"

namespace rdmastack::sim {

struct OciImage {
  std::string reference;        // as found in the archive, normalised (repository:tag)
  std::string manifest_digest;  // sha256:...
  std::string rootfs;           // the unpacked layers; never written by containers
  ImageSpec config;             // Entrypoint, Cmd, Env, WorkingDir (no files)
  std::string user;             // the image config's User ("65532:65532", "0:0", "name", "")
};

// "ghcr.io/rdmastack/agent:0.1.0" -> itself; "rdmastack/agent" -> "rdmastack/agent:latest".
std::string NormalizedReference(std::string_view reference);

class OciImageStore {
 public:
  // `archive_dir`: where the *.oci.tar files are; `cache_dir`: where roots are unpacked.
  OciImageStore(std::string archive_dir, std::string cache_dir)
      : archive_dir_(std::move(archive_dir)), cache_dir_(std::move(cache_dir)) {}

  // The image for a reference, unpacked; NotFound when no archive holds that repository, or that
  // tag (the message lists what the archives hold); FailedPrecondition when archives hold the
  // repository but none has the digest asked for (never a fall-back to the image table); DataLoss
  // when a blob's bytes do not match its digest; other errors when an archive cannot be read.
  StatusOr<OciImage> Pull(std::string_view reference);
  // Whether some archive holds the reference (no unpacking, so no byte check).
  bool Has(std::string_view reference);
  // Every reference the archives hold, normalised and sorted.
  std::vector<std::string> References();

 private:
  struct Archive {
    std::string path;
    int64_t size = 0;
    int64_t mtime_ns = 0;
    std::string reference;
    std::string manifest_digest;
  };
  Status Reindex();
  StatusOr<OciImage> Unpack(const Archive& archive);
  // The archive a reference names, or null.
  const Archive* Find(std::string_view reference) const;

  std::string archive_dir_;
  std::string cache_dir_;
  std::mutex mu_;                             // pod workers pull from their own threads
  std::map<std::string, Archive> archives_;   // by path
  std::map<std::string, OciImage> unpacked_;  // by manifest digest
};

}  // namespace rdmastack::sim
