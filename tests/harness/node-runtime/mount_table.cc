#include "tests/harness/node-runtime/mount_table.h"

#include <sstream>

namespace rdmastack::sim {
namespace {

std::string Unescape(std::string_view field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      const std::string_view oct = field.substr(i + 1, 3);
      if (oct.find_first_not_of("01234567") == std::string_view::npos) {
        out.push_back(static_cast<char>((oct[0] - '0') * 64 + (oct[1] - '0') * 8 + (oct[2] - '0')));
        i += 3;
        continue;
      }
    }
    out.push_back(field[i]);
  }
  return out;
}

struct Entry {
  std::string id;
  std::string parent;
  std::string mount_point;
};

}  // namespace

std::vector<std::string> TopLevelMounts(std::string_view mountinfo) {
  std::vector<Entry> entries;
  std::istringstream lines{std::string(mountinfo)};
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    Entry e;
    std::string devno, root;
    if (!(fields >> e.id >> e.parent >> devno >> root >> e.mount_point)) continue;
    e.mount_point = Unescape(e.mount_point);
    entries.push_back(std::move(e));
  }
  std::string root_id;
  for (const Entry& e : entries) {
    if (e.mount_point == "/") root_id = e.id;
  }
  std::vector<std::string> out;
  for (const Entry& e : entries) {
    if (e.parent == root_id && e.mount_point != "/") out.push_back(e.mount_point);
  }
  return out;
}

}  // namespace rdmastack::sim
