#include "tests/harness/node-runtime/image_table.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace rdmastack::sim {
namespace {

StatusOr<std::string> Expand(const std::string& value,
                             const std::map<std::string, std::string>& vars) {
  std::string out;
  for (size_t i = 0; i < value.size(); ++i) {
    if (value.compare(i, 2, "${") != 0) {
      out.push_back(value[i]);
      continue;
    }
    size_t end = value.find('}', i);
    if (end == std::string::npos) return InvalidArgumentError("unclosed ${ in '" + value + "'");
    const std::string name = value.substr(i + 2, end - i - 2);
    auto it = vars.find(name);
    if (it == vars.end()) {
      return InvalidArgumentError("'" + value + "' uses ${" + name +
                                  "}, which is not set (pass --var " + name + "=VALUE)");
    }
    out += it->second;
    i = end;
  }
  return out;
}

StatusOr<std::vector<std::string>> Strings(const YAML::Node& node, const std::string& field,
                                           const std::map<std::string, std::string>& vars) {
  std::vector<std::string> out;
  if (!node) return out;
  if (!node.IsSequence()) return InvalidArgumentError(field + " must be a list of strings");
  for (const YAML::Node& item : node) {
    RDMASTACK_ASSIGN_OR_RETURN(std::string v, Expand(item.as<std::string>(), vars));
    out.push_back(std::move(v));
  }
  return out;
}

StatusOr<ImageSpec> ParseImage(const YAML::Node& node,
                               const std::map<std::string, std::string>& vars) {
  ImageSpec image;
  RDMASTACK_ASSIGN_OR_RETURN(image.names, Strings(node["names"], "names", vars));
  if (image.names.empty()) return InvalidArgumentError("an image needs at least one name");
  const std::string what = "image " + image.names.front() + ": ";
  for (std::string& n : image.names) {
    const std::string tag = ImageTag(n);
    n = ImageRepository(n) + (tag.empty() ? "" : ":" + tag);
  }
  auto entry = Strings(node["entrypoint"], "entrypoint", vars);
  if (!entry.ok()) return entry.status().WithContext(what);
  image.entrypoint = *entry;
  auto cmd = Strings(node["cmd"], "cmd", vars);
  if (!cmd.ok()) return cmd.status().WithContext(what);
  image.cmd = *cmd;
  if (const YAML::Node env = node["env"]) {
    if (!env.IsMap()) return InvalidArgumentError(what + "env must be a map");
    for (const auto& kv : env) {
      auto value = Expand(kv.second.as<std::string>(), vars);
      if (!value.ok()) return value.status().WithContext(what);
      image.env.emplace_back(kv.first.as<std::string>(), *value);
    }
  }
  if (const YAML::Node wd = node["workingDir"]) image.working_dir = wd.as<std::string>();
  if (const YAML::Node files = node["files"]) {
    if (!files.IsMap()) return InvalidArgumentError(what + "files must be a map");
    for (const auto& kv : files) {
      const std::string target = kv.first.as<std::string>();
      if (target.empty() || target.front() != '/') {
        return InvalidArgumentError(what + "file path '" + target + "' is not absolute");
      }
      auto source = Expand(kv.second.as<std::string>(), vars);
      if (!source.ok()) return source.status().WithContext(what);
      image.files.push_back({*source, target, true});
    }
  }
  return image;
}

std::string MissingFileLine(const BindMount& f) {
  return f.target + " comes from " + f.source + ", which does not exist";
}

bool FileExists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

}  // namespace

std::string ImageRepository(std::string_view reference) {
  std::string ref(reference);
  if (size_t at = ref.find('@'); at != std::string::npos) ref.resize(at);
  size_t slash = ref.rfind('/');
  size_t colon = ref.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash))
    ref.resize(colon);
  for (std::string_view prefix : {"docker.io/", "index.docker.io/"}) {
    if (ref.rfind(prefix, 0) == 0) ref.erase(0, prefix.size());
  }
  if (ref.rfind("library/", 0) == 0 && ref.find('/', 8) == std::string::npos) ref.erase(0, 8);
  return ref;
}

std::string ImageTag(std::string_view reference) {
  std::string ref(reference);
  if (size_t at = ref.find('@'); at != std::string::npos) ref.resize(at);
  const size_t slash = ref.rfind('/');
  const size_t colon = ref.rfind(':');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) return "";
  return ref.substr(colon + 1);
}

std::string ImageDigest(std::string_view reference) {
  const size_t at = reference.find('@');
  return at == std::string_view::npos ? "" : std::string(reference.substr(at + 1));
}

Status CheckImageFiles(const ImageSpec& image, std::string_view reference) {
  for (const BindMount& f : image.files) {
    if (!FileExists(f.source)) {
      return FailedPreconditionError("image " + std::string(reference) + ": " + MissingFileLine(f) +
                                     "; build it first");
    }
  }
  return OkStatus();
}

std::vector<std::string> ImageTable::MissingFiles() const {
  std::vector<std::string> out;
  for (const ImageSpec& image : images_) {
    for (const BindMount& f : image.files) {
      if (!FileExists(f.source)) out.push_back(image.names.front() + ": " + MissingFileLine(f));
    }
  }
  return out;
}

StatusOr<ImageTable> ImageTable::Parse(std::string_view yaml, std::string_view source,
                                       const std::map<std::string, std::string>& vars) {
  ImageTable table;
  table.source_ = source;
  const std::string where = std::string(source) + ": ";
  try {
    YAML::Node root = YAML::Load(std::string(yaml));
    const YAML::Node images = root["images"];
    if (!images || !images.IsSequence())
      return InvalidArgumentError(where + "needs a list 'images'");
    for (const YAML::Node& node : images) {
      auto image = ParseImage(node, vars);
      if (!image.ok()) return image.status().WithContext(std::string(source));
      table.images_.push_back(std::move(*image));
    }
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(where + e.what());
  }
  return table;
}

StatusOr<ImageTable> ImageTable::Load(const std::string& path,
                                      const std::map<std::string, std::string>& vars) {
  std::ifstream in(path);
  if (!in) return NotFoundError("cannot read the image table " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return Parse(s.str(), path, vars);
}

StatusOr<const ImageSpec*> ImageTable::Lookup(std::string_view reference) const {
  const std::string repo = ImageRepository(reference);
  if (!ImageDigest(reference).empty()) {
    return FailedPreconditionError(
        "image \"" + std::string(reference) + "\" names a digest, but " + repo +
        " has no OCI archive here, only files in the image table " + source_ +
        ", so no manifest could prove that digest; name it by tag, or build it as an archive");
  }
  const std::string tag = ImageTag(reference);
  // An entry for this exact tag wins over one for the whole repository.
  for (const std::string& want : {tag.empty() ? std::string() : repo + ":" + tag, repo}) {
    if (want.empty()) continue;
    for (const ImageSpec& image : images_) {
      for (const std::string& name : image.names) {
        if (name == want) return &image;
      }
    }
  }
  return NotFoundError("image \"" + std::string(reference) + "\" (repository " + repo +
                       ") is not in the simulated node's image table " + source_ +
                       "; add an entry that maps it to a build output");
}

}  // namespace rdmastack::sim
