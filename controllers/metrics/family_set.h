#pragma once
// Builds the gauge families of one scrape: series are added by family name, and each family's
// help text is given once, where the families are declared.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "operator/runtime/metrics.h"

namespace rdmastack::statusmetrics {

using Labels = std::vector<std::pair<std::string, std::string>>;

class FamilySet {
 public:
  // Declares a family; series added under an undeclared name are a programming error (abort).
  void Declare(const std::string& name, const std::string& help);
  void Add(const std::string& name, Labels labels, double value);
  // The declared families in declaration order (those without series too; the registry skips them).
  std::vector<runtime::SampledFamily> Take() &&;

 private:
  std::vector<runtime::SampledFamily> families_;
  std::map<std::string, size_t> index_;
};

// `base` followed by `more`.
Labels With(const Labels& base, std::initializer_list<std::pair<std::string, std::string>> more);

}  // namespace rdmastack::statusmetrics
