#include "tests/harness/node-runtime/oci_image_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/sha256.h"
#include "operator/k8s/json_object.h"
#include "tests/harness/node-runtime/spawn.h"

namespace rdmastack::sim {
namespace fs = std::filesystem;
namespace {

constexpr char kRefAnnotation[] = "org.opencontainers.image.ref.name";
constexpr char kArchiveSuffix[] = ".oci.tar";
constexpr char kWhiteoutPrefix[] = ".wh.";
constexpr char kOpaqueWhiteout[] = ".wh..wh..opq";

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

StatusOr<k8s::JsonObject> ReadJson(const std::string& path) {
  RDMASTACK_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  StatusOr<k8s::JsonObject> parsed = k8s::JsonObject::Parse(text);
  if (!parsed.ok()) return parsed.status().WithContext(path);
  return parsed;
}

// "sha256:abc" -> "<layout>/blobs/sha256/abc", refusing anything that could leave the layout.
StatusOr<std::string> BlobPath(const std::string& layout, const std::string& digest) {
  const size_t colon = digest.find(':');
  if (colon == std::string::npos || digest.find('/') != std::string::npos ||
      digest.find("..") != std::string::npos) {
    return InvalidArgumentError("bad digest '" + digest + "'");
  }
  return layout + "/blobs/" + digest.substr(0, colon) + "/" + digest.substr(colon + 1);
}

// OK when the blob's bytes hash to `digest`: what names an image (its manifest digest) then
// names every byte of it. DataLoss otherwise, naming both digests.
Status VerifyBlob(const std::string& layout, const std::string& digest, std::string_view what) {
  if (digest.rfind("sha256:", 0) != 0) {
    return UnimplementedError(std::string(what) + " digest '" + digest + "' is not sha256");
  }
  RDMASTACK_ASSIGN_OR_RETURN(std::string path, BlobPath(layout, digest));
  RDMASTACK_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  const std::string found = "sha256:" + Sha256Hex(bytes);
  if (found != digest) {
    return DataLossError(std::string(what) + " blob " + digest + " holds bytes of " + found +
                         "; the archive was altered after it was written, rebuild it");
  }
  return OkStatus();
}

// A fresh, empty directory under `parent` (a unique name, so concurrent runtimes do not meet).
StatusOr<std::string> TempDir(const std::string& parent, const std::string& stem) {
  std::error_code ec;
  fs::create_directories(parent, ec);
  std::string pattern = parent + "/." + stem + ".XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return InternalError("mkdtemp " + pattern + ": " + std::strerror(errno));
  }
  return pattern;
}

// OCI whiteouts of the layer just extracted: `.wh.NAME` deletes NAME of the layers below, and
// `.wh..wh..opq` marks a directory whose lower contents are hidden. Our images never delete (two
// layers that only add files), so an opaque directory is refused rather than half-handled.
Status ApplyWhiteouts(const std::string& rootfs) {
  std::vector<fs::path> markers;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(rootfs, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(kWhiteoutPrefix, 0) == 0) markers.push_back(it->path());
  }
  if (ec) return InternalError("scan " + rootfs + ": " + ec.message());
  for (const fs::path& marker : markers) {
    const std::string name = marker.filename().string();
    if (name == kOpaqueWhiteout) {
      return UnimplementedError("opaque whiteout " + marker.string() +
                                " (a layer that replaces a directory) is not supported");
    }
    fs::remove_all(marker.parent_path() / name.substr(std::string(kWhiteoutPrefix).size()), ec);
    fs::remove(marker, ec);
  }
  return OkStatus();
}

std::vector<std::string> StringArray(const k8s::JsonObject& o, const k8s::JsonPath& path) {
  std::vector<std::string> out;
  for (const k8s::JsonObject& item : o.GetArray(path)) {
    if (auto s = item.GetString({})) out.push_back(*s);
  }
  return out;
}

}  // namespace

std::string NormalizedReference(std::string_view reference) {
  const std::string tag = ImageTag(reference);
  return ImageRepository(reference) + ":" + (tag.empty() ? "latest" : tag);
}

Status OciImageStore::Reindex() {
  std::error_code ec;
  std::map<std::string, Archive> seen;
  for (const auto& entry : fs::directory_iterator(archive_dir_, ec)) {
    const std::string path = entry.path().string();
    if (path.size() < sizeof(kArchiveSuffix) ||
        path.compare(path.size() - (sizeof(kArchiveSuffix) - 1), std::string::npos,
                     kArchiveSuffix) != 0) {
      continue;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) continue;
    Archive a;
    a.path = path;
    a.size = st.st_size;
    a.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    if (auto it = archives_.find(path);
        it != archives_.end() && it->second.size == a.size && it->second.mtime_ns == a.mtime_ns) {
      seen[path] = it->second;
      continue;
    }
    RDMASTACK_ASSIGN_OR_RETURN(std::string tmp, TempDir(cache_dir_, "index"));
    Status extracted =
        RunToCompletion({"/bin/tar", "-xf", path, "-C", tmp, "index.json"}, tmp + ".log");
    StatusOr<k8s::JsonObject> index =
        extracted.ok() ? ReadJson(tmp + "/index.json") : StatusOr<k8s::JsonObject>(extracted);
    fs::remove_all(tmp, ec);
    fs::remove(tmp + ".log", ec);
    if (!index.ok()) return index.status().WithContext("image archive " + path);
    const std::vector<k8s::JsonObject> manifests = index->GetArray({"manifests"});
    if (manifests.size() != 1) {
      return InvalidArgumentError("image archive " + path + " holds " +
                                  std::to_string(manifests.size()) +
                                  " manifests; scripts/images.sh writes exactly one");
    }
    a.manifest_digest = manifests[0].GetString({"digest"}).value_or("");
    a.reference =
        NormalizedReference(manifests[0].GetString({"annotations", kRefAnnotation}).value_or(""));
    if (a.manifest_digest.empty() || a.reference == ":latest") {
      return InvalidArgumentError("image archive " + path + ": its manifest has no digest or no " +
                                  kRefAnnotation);
    }
    seen[path] = std::move(a);
  }
  if (ec) return NotFoundError("image archives " + archive_dir_ + ": " + ec.message());
  archives_ = std::move(seen);
  return OkStatus();
}

StatusOr<OciImage> OciImageStore::Unpack(const Archive& archive) {
  if (auto it = unpacked_.find(archive.manifest_digest); it != unpacked_.end()) return it->second;
  const std::string hex = archive.manifest_digest.substr(archive.manifest_digest.find(':') + 1);
  const std::string dir = cache_dir_ + "/" + hex;
  std::error_code ec;
  auto what = [&](const Status& s) { return s.WithContext("unpack " + archive.path); };

  RDMASTACK_ASSIGN_OR_RETURN(std::string tmp, TempDir(cache_dir_, hex.substr(0, 12)));
  const std::string layout = tmp + "/layout";
  const std::string rootfs = tmp + "/rootfs";
  fs::create_directories(layout, ec);
  fs::create_directories(rootfs, ec);
  auto cleanup = [&] { fs::remove_all(tmp, ec); };
  if (Status s = RunToCompletion({"/bin/tar", "-xf", archive.path, "-C", layout}, tmp + "/tar.log");
      !s.ok()) {
    cleanup();
    return what(s);
  }
  if (Status s = VerifyBlob(layout, archive.manifest_digest, "manifest"); !s.ok()) {
    cleanup();
    return what(s);
  }
  StatusOr<std::string> manifest_path = BlobPath(layout, archive.manifest_digest);
  StatusOr<k8s::JsonObject> manifest = manifest_path.ok()
                                           ? ReadJson(*manifest_path)
                                           : StatusOr<k8s::JsonObject>(manifest_path.status());
  if (!manifest.ok()) {
    cleanup();
    return what(manifest.status());
  }
  const std::string config_digest = manifest->GetString({"config", "digest"}).value_or("");
  if (Status s = VerifyBlob(layout, config_digest, "config"); !s.ok()) {
    cleanup();
    return what(s);
  }
  StatusOr<std::string> config_path = BlobPath(layout, config_digest);
  StatusOr<k8s::JsonObject> config =
      config_path.ok() ? ReadJson(*config_path) : StatusOr<k8s::JsonObject>(config_path.status());
  if (!config.ok()) {
    cleanup();
    return what(config.status());
  }
  for (const k8s::JsonObject& layer : manifest->GetArray({"layers"})) {
    const std::string media = layer.GetString({"mediaType"}).value_or("");
    const std::string layer_digest = layer.GetString({"digest"}).value_or("");
    StatusOr<std::string> blob = BlobPath(layout, layer_digest);
    Status s = blob.status();
    if (s.ok()) s = VerifyBlob(layout, layer_digest, "layer");
    if (s.ok()) {
      std::vector<std::string> argv = {"/bin/tar", "--numeric-owner", "--same-permissions", "-x"};
      if (media.find("gzip") != std::string::npos) argv.push_back("-z");
      argv.insert(argv.end(), {"-f", *blob, "-C", rootfs});
      s = RunToCompletion(argv, tmp + "/tar.log");
    }
    if (s.ok()) s = ApplyWhiteouts(rootfs);
    if (!s.ok()) {
      cleanup();
      return what(s);
    }
  }
  fs::create_directories(dir, ec);
  fs::rename(rootfs, dir + "/rootfs", ec);
  if (ec && !fs::is_directory(dir + "/rootfs")) {
    cleanup();
    return InternalError("unpack " + archive.path + ": rename into " + dir + ": " + ec.message());
  }
  cleanup();

  OciImage image;
  image.reference = archive.reference;
  image.manifest_digest = archive.manifest_digest;
  image.rootfs = dir + "/rootfs";
  image.config.names = {archive.reference};
  image.config.entrypoint = StringArray(*config, {"config", "Entrypoint"});
  image.config.cmd = StringArray(*config, {"config", "Cmd"});
  for (const std::string& kv : StringArray(*config, {"config", "Env"})) {
    const size_t eq = kv.find('=');
    if (eq != std::string::npos) image.config.env.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  image.config.working_dir = config->GetString({"config", "WorkingDir"}).value_or("");
  image.user = config->GetString({"config", "User"}).value_or("");
  unpacked_[archive.manifest_digest] = image;
  return image;
}

const OciImageStore::Archive* OciImageStore::Find(std::string_view reference) const {
  const std::string digest = ImageDigest(reference);
  const std::string repository = ImageRepository(reference);
  const std::string want = NormalizedReference(reference);
  for (const auto& [path, archive] : archives_) {
    const bool match = digest.empty() ? archive.reference == want
                                      : archive.manifest_digest == digest &&
                                            ImageRepository(archive.reference) == repository;
    if (match) return &archive;
  }
  return nullptr;
}

StatusOr<OciImage> OciImageStore::Pull(std::string_view reference) {
  std::lock_guard lock(mu_);
  RDMASTACK_RETURN_IF_ERROR(Reindex());
  if (const Archive* archive = Find(reference)) return Unpack(*archive);
  const std::string digest = ImageDigest(reference);
  const std::string repository = ImageRepository(reference);
  std::vector<std::string> have;
  bool same_repository = false;
  for (const auto& [path, archive] : archives_) {
    have.push_back(archive.reference + "@" + archive.manifest_digest);
    same_repository |= ImageRepository(archive.reference) == repository;
  }
  std::sort(have.begin(), have.end());
  std::string list;
  for (const std::string& h : have) list += (list.empty() ? "" : ", ") + h;
  if (list.empty()) list = "nothing";
  // A digest of a repository we build is never looked for elsewhere: a stale or forged digest
  // must fail the pull, not run some other image of that name.
  if (!digest.empty() && same_repository) {
    return FailedPreconditionError("no image archive in " + archive_dir_ + " holds " + repository +
                                   " with manifest digest " + digest + " (they hold: " + list +
                                   "); deploy the digest " +
                                   "scripts/images.sh printed (build/images/digests.yaml)");
  }
  return NotFoundError(
      "no image archive in " + archive_dir_ + " holds " +
      (digest.empty() ? NormalizedReference(reference) : repository + "@" + digest) +
      " (they hold: " + list + ")");
}

bool OciImageStore::Has(std::string_view reference) {
  std::lock_guard lock(mu_);
  if (!Reindex().ok()) return false;
  return Find(reference) != nullptr;
}

std::vector<std::string> OciImageStore::References() {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  if (!Reindex().ok()) return out;
  for (const auto& [path, archive] : archives_) out.push_back(archive.reference);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace rdmastack::sim
