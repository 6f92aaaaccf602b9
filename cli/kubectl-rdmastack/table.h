#pragma once
// A table printed the way kubectl prints `get`: upper-case headers, columns aligned with three
// spaces between them (kubectl's tabwriter: padding 3, minimum width 6), no colour, no trailing
// blanks. Empty cells print as "<none>", as kubectl prints absent values.

#include <string>
#include <vector>

namespace rdmastack::plugin {

class Table {
 public:
  explicit Table(std::vector<std::string> headers);

  // One row, each cell made printable (printable.h); missing trailing cells print as "<none>",
  // extra cells are an error of the caller and are dropped.
  void AddRow(std::vector<std::string> cells);
  bool empty() const { return rows_.empty(); }

  std::string Render() const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

// Display width in columns: UTF-8 code points (every character the API writes is one column).
size_t DisplayWidth(const std::string& text);

}  // namespace rdmastack::plugin
