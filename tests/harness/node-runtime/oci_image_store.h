#pragma once
// The images this project builds, as a node's container runtime keeps them: the OCI archives that
// scripts/images.sh writes (<dir>/<component>.oci.tar, each an OCI layout with one manifest named
// by its org.opencontainers.image.ref.name annotation). A reference is looked up by repository
// and tag ("docker.io/" and "library/" implied, no tag = latest); the first use of a manifest
// unpacks its layers, in order, into <cache>/<manifest digest>/rootfs, which every container of
// that image then shares as its lower (read-only) root. Archives are re-indexed when they change
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

  // The image for a reference, unpacked; NotFound when no archive holds that reference (the
  // message lists what the archives hold); other errors when an archive cannot be read.
  StatusOr<OciImage> Pull(std::string_view reference);
  // Whether some archive holds the reference (no unpacking).
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

  std::string archive_dir_;
  std::string cache_dir_;
  std::mutex mu_;                             // pod workers pull from their own threads
  std::map<std::string, Archive> archives_;   // by path
  std::map<std::string, OciImage> unpacked_;  // by manifest digest
};

}  // namespace rdmastack::sim
