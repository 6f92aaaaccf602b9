#pragma once
// A dlopen'ed library that is optional: a missing one records dlerror() instead of failing, and
// symbols are looked up one by one so that older versions still give what they have.

#include <dlfcn.h>

#include <string>

namespace rdmastack::node {

class DlLibrary {
 public:
  explicit DlLibrary(const char* soname) : handle_(::dlopen(soname, RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) {
      const char* err = ::dlerror();
      error_ = err ? err : soname;
    }
  }
  DlLibrary(const DlLibrary&) = delete;
  DlLibrary& operator=(const DlLibrary&) = delete;
  ~DlLibrary() {
    if (handle_ != nullptr) ::dlclose(handle_);
  }
  bool ok() const { return handle_ != nullptr; }
  const std::string& error() const { return error_; }
  template <typename Fn>
  Fn Get(const char* name) const {
    return handle_ ? reinterpret_cast<Fn>(::dlsym(handle_, name)) : nullptr;
  }

 private:
  void* handle_;
  std::string error_;
};

}  // namespace rdmastack::node
