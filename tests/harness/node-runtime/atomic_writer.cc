#include "tests/harness/node-runtime/atomic_writer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

namespace rdmastack::sim {
namespace fs = std::filesystem;

Status CheckRelativePath(const std::string& path) {
  if (path.empty() || path.front() == '/') {
    return InvalidArgumentError("volume file path '" + path + "' must be relative");
  }
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    const std::string part = path.substr(start, end == std::string::npos ? end : end - start);
    if (part.empty() || part == ".." || part.rfind("..", 0) == 0) {
      return InvalidArgumentError("volume file path '" + path +
                                  "' has an empty, '..' or '..'-prefixed segment");
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return OkStatus();
}

StatusOr<bool> AtomicDirWriter::Write(const VolumePayload& payload) {
  if (written_ && payload == last_) return false;
  for (const auto& [path, file] : payload) RDMASTACK_RETURN_IF_ERROR(CheckRelativePath(path));
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return InternalError("create " + dir_ + ": " + ec.message());

  const auto stamp = std::chrono::system_clock::now().time_since_epoch().count();
  const std::string version = "..v" + std::to_string(stamp) + "." + std::to_string(++generation_);
  const fs::path data_dir = fs::path(dir_) / version;
  for (const auto& [path, file] : payload) {
    const fs::path target = data_dir / path;
    fs::create_directories(target.parent_path(), ec);
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out << file.content;
    out.close();
    if (!out || ::chmod(target.c_str(), static_cast<mode_t>(file.mode)) != 0) {
      return InternalError("write " + target.string());
    }
  }
  fs::create_directories(data_dir, ec);

  const fs::path data_link = fs::path(dir_) / "..data";
  std::string previous;
  if (fs::is_symlink(data_link, ec)) previous = fs::read_symlink(data_link, ec).string();
  const fs::path tmp_link = fs::path(dir_) / "..data_tmp";
  fs::remove(tmp_link, ec);
  fs::create_symlink(version, tmp_link, ec);
  if (ec) return InternalError("symlink " + tmp_link.string() + ": " + ec.message());
  fs::rename(tmp_link, data_link, ec);
  if (ec) return InternalError("rename " + tmp_link.string() + ": " + ec.message());

  std::set<std::string> top;
  for (const auto& [path, file] : payload) top.insert(path.substr(0, path.find('/')));
  for (const std::string& name : top) {
    const fs::path link = fs::path(dir_) / name;
    if (fs::is_symlink(link, ec)) continue;
    fs::create_symlink(fs::path("..data") / name, link, ec);
    if (ec) return InternalError("symlink " + link.string() + ": " + ec.message());
  }
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("..", 0) == 0 || top.count(name) != 0) continue;
    fs::remove_all(entry.path(), ec);  // a key that is gone
  }
  if (!previous.empty() && previous != version) fs::remove_all(fs::path(dir_) / previous, ec);
  written_ = true;
  last_ = payload;
  return true;
}

}  // namespace rdmastack::sim
