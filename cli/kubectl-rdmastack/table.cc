#include "cli/kubectl-rdmastack/table.h"

#include <algorithm>
#include <cctype>

#include "cli/kubectl-rdmastack/printable.h"

namespace rdmastack::plugin {
namespace {

constexpr size_t kPadding = 3;
constexpr size_t kMinWidth = 6;
constexpr const char* kNone = "<none>";

std::string Upper(const std::string& text) {
  std::string out = text;
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

size_t DisplayWidth(const std::string& text) {
  // Continuation bytes (10xxxxxx) do not start a character.
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

Table::Table(std::vector<std::string> headers) {
  for (const std::string& h : headers) headers_.push_back(Upper(h));
}

void Table::AddRow(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  for (std::string& cell : cells) {
    // A newline or an escape sequence in a cell would break the columns of every row below it.
    cell = cell.empty() ? kNone : Printable(cell);
  }
  rows_.push_back(std::move(cells));
}

std::string Table::Render() const {
  std::vector<size_t> widths(headers_.size(), 0);
  auto measure = [&widths](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i)
      widths[i] = std::max(widths[i], DisplayWidth(cells[i]));
  };
  measure(headers_);
  for (const auto& row : rows_) measure(row);

  std::string out;
  auto print = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      line += cells[i];
      if (i + 1 == cells.size()) break;
      const size_t column = std::max(widths[i] + kPadding, kMinWidth);
      line.append(column - DisplayWidth(cells[i]), ' ');
    }
    out += line + "\n";
  };
  print(headers_);
  for (const auto& row : rows_) print(row);
  return out;
}

}  // namespace rdmastack::plugin
