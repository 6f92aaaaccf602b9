#include "tests/harness/source_scan.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/harness/cluster_env.h"

namespace rdmastack::testing {

namespace fs = std::filesystem;

namespace {

bool IsProductSource(const fs::path& rel) {
  const std::string s = rel.generic_string();
  const std::string name = rel.filename().string();
  if (rel.extension() != ".cc" && rel.extension() != ".h") return false;
  if (s.find("/tests/") != std::string::npos || s.find("/testing/") != std::string::npos ||
      s.find("/fuzz/") != std::string::npos)
    return false;
  return name.find("_test.") == std::string::npos && name.find("_fuzz") == std::string::npos &&
         name != "test_paths.h";
}

}  // namespace

std::string CodeOnly(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 8, "#include") == 0) {  // <fstream> is no write
      while (i < text.size() && text[i] != '\n') ++i;
      out.push_back('\n');
    } else if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
      out.push_back('\n');
    } else if (text.compare(i, 2, "/*") == 0) {
      const size_t end = text.find("*/", i + 2);
      for (size_t j = i; j < std::min(end, text.size()); ++j) {
        if (text[j] == '\n') out.push_back('\n');
      }
      i = end == std::string::npos ? text.size() : end + 1;
    } else if (text.compare(i, 2, "R\"") == 0) {
      const size_t open = text.find('(', i);
      const std::string close = ")" + text.substr(i + 2, open - i - 2) + "\"";
      const size_t end = text.find(close, open);
      for (size_t j = i; j < std::min(end, text.size()); ++j) {
        if (text[j] == '\n') out.push_back('\n');
      }
      out += "\"\"";
      i = end == std::string::npos ? text.size() : end + close.size() - 1;
    } else if (text[i] == '"' || text[i] == '\'') {
      const char q = text[i];
      for (++i; i < text.size() && text[i] != q; ++i) {
        if (text[i] == '\\') ++i;
      }
      out += "\"\"";
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::vector<std::string> Findings(const std::string& file, const std::string& code,
                                  const std::regex& forbidden) {
  std::vector<std::string> out;
  std::istringstream lines(code);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    std::smatch m;
    if (std::regex_search(line, m, forbidden)) {
      out.push_back(file + ":" + std::to_string(n) + ": " + m.str(0));
    }
  }
  return out;
}

ScanResult ScanProductSources(const std::vector<std::string>& dirs,
                              const std::vector<std::string>& allowed,
                              const std::regex& forbidden) {
  ScanResult result;
  for (const std::string& dir : dirs) {
    const fs::path root = fs::path(SourceDir()) / dir;
    if (!fs::is_directory(root)) {
      result.findings.push_back(dir + ": no such folder (renamed? update the scan)");
      continue;
    }
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      const fs::path rel = fs::relative(e.path(), SourceDir());
      if (!e.is_regular_file() || !IsProductSource(rel)) continue;
      const std::string file = rel.generic_string();
      if (std::find(allowed.begin(), allowed.end(), file) != allowed.end()) continue;
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      ++result.scanned;
      for (std::string& f : Findings(file, CodeOnly(text.str()), forbidden))
        result.findings.push_back(std::move(f));
    }
  }
  return result;
}

}  // namespace rdmastack::testing
