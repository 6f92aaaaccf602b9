#pragma once
// The images our pod specs name that have no OCI archive here (the images this project builds do:
// oci_image_store.h): the vgwrdma stand-ins, the fake cuObject libraries, versitygw and the host
// image for application pods. Each image lists the repositories it is known by, its
// ENTRYPOINT/CMD/ENV/WORKDIR, and the files of the image that come from the build (bound into the
// container at their image paths). The container's root is otherwise the host's own userland.
// Together with the archives, the table covers every image a pod spec of ours names, so the specs
// that run on a real cluster run here unchanged.
//
// Values may use ${NAME}; names come from the runtime's --var NAME=VALUE flags.

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "tests/harness/node-runtime/launch_spec.h"

namespace rdmastack::sim {

struct ImageSpec {
  // Repositories (any tag), or repository:tag for one tag only; never a digest.
  std::vector<std::string> names;
  std::vector<std::string> entrypoint;
  std::vector<std::string> cmd;
  std::vector<std::pair<std::string, std::string>> env;  // in image order
  std::string working_dir;
  std::vector<BindMount> files;  // host file -> image path, read-only
};

// "docker.io/library/busybox:1.36" -> "busybox"; "ghcr.io/a/b@sha256:..." -> "ghcr.io/a/b";
// "registry:5000/a/b:v1" -> "registry:5000/a/b".
std::string ImageRepository(std::string_view reference);

// "registry:5000/a/b:v1" -> "v1"; "" when the reference has no tag.
std::string ImageTag(std::string_view reference);

// "ghcr.io/a/b@sha256:<hex>" -> "sha256:<hex>"; "" when the reference names no digest.
std::string ImageDigest(std::string_view reference);

// OK when every file the image takes from the build exists, else FailedPrecondition naming the
// first missing one (what a kubelet would report as ErrImagePull).
Status CheckImageFiles(const ImageSpec& image, std::string_view reference);

class ImageTable {
 public:
  static StatusOr<ImageTable> Parse(std::string_view yaml, std::string_view source,
                                    const std::map<std::string, std::string>& vars);
  static StatusOr<ImageTable> Load(const std::string& path,
                                   const std::map<std::string, std::string>& vars);

  // The image a reference names (an entry for its tag first, else one for its repository), or
  // NotFound with a message that says how to add it. A reference by digest is refused
  // (FailedPrecondition): these images have no manifest whose bytes could prove the digest.
  StatusOr<const ImageSpec*> Lookup(std::string_view reference) const;

  // One line per file of any image that does not exist: "IMAGE: TARGET comes from SOURCE". A
  // cluster checks this before its nodes start, so a missing build part stops `up` at once
  // instead of leaving pods in ErrImagePull.
  std::vector<std::string> MissingFiles() const;

  const std::vector<ImageSpec>& images() const { return images_; }

 private:
  std::string source_;
  std::vector<ImageSpec> images_;
};

}  // namespace rdmastack::sim
