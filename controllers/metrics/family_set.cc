#include "controllers/metrics/family_set.h"

#include <cstdio>
#include <cstdlib>

namespace rdmastack::statusmetrics {

void FamilySet::Declare(const std::string& name, const std::string& help) {
  if (index_.count(name) != 0) return;
  index_[name] = families_.size();
  families_.push_back({name, help, {}});
}

void FamilySet::Add(const std::string& name, Labels labels, double value) {
  auto it = index_.find(name);
  if (it == index_.end()) {
    std::fprintf(stderr, "statusmetrics: series for undeclared family %s\n", name.c_str());
    std::abort();
  }
  families_[it->second].series.push_back({std::move(labels), value});
}

std::vector<runtime::SampledFamily> FamilySet::Take() && {
  return std::move(families_);
}

Labels With(const Labels& base, std::initializer_list<std::pair<std::string, std::string>> more) {
  Labels out = base;
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

}  // namespace rdmastack::statusmetrics
