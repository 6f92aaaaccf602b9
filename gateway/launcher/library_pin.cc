#include "gateway/launcher/library_pin.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <system_error>

#include "lib/compat/library_digest.h"
#include "lib/elf/elf_dynamic.h"

namespace rdmastack::gateway {
namespace {

namespace fs = std::filesystem;
using elf::ElfDynamicNames;
using elf::ReadElfDynamicNamesFromFile;

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += sep;
    out += item;
  }
  return out;
}

bool IsNumericDotted(std::string_view v, int min_parts) {
  int parts = 0;
  while (true) {
    size_t dot = v.find('.');
    std::string_view part = v.substr(0, dot);
    if (part.empty() || part.size() > 9 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return false;
    }
    ++parts;
    if (dot == std::string_view::npos) break;
    v.remove_prefix(dot + 1);
  }
  return parts >= min_parts;
}

std::vector<std::string> ServerLibrarySonames(const std::vector<std::string>& needed) {
  std::vector<std::string> out;
  for (const std::string& n : needed) {
    if (n.rfind(kServerLibraryStem, 0) == 0 || n == "libcuobjserver.so") out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

Status ValidateLibraryPin(const LibraryPin& pin) {
  if (pin.dir.empty()) {
    return InvalidArgumentError("server library directory is not set; pass --server-lib-dir");
  }
  if (!IsNumericDotted(pin.full_version, 3)) {
    return InvalidArgumentError("server library version '" + pin.full_version +
                                "' is not a full version like 1.2.0.68; fix --server-lib-version");
  }
  int leading = 0;
  std::string_view v = pin.full_version;
  std::from_chars(v.data(), v.data() + v.find('.'), leading);
  if (leading != pin.major) {
    return InvalidArgumentError("server library version " + pin.full_version + " is major " +
                                std::to_string(leading) + " but --server-lib-major is " +
                                std::to_string(pin.major) + "; make them agree");
  }
  if (!pin.sha256.empty() && !compat::IsSha256Hex(pin.sha256)) {
    return InvalidArgumentError("server library sha256 '" + pin.sha256 +
                                "' is not 64 lower-case hex digits; fix --server-lib-sha256");
  }
  return OkStatus();
}

Status CheckLibraryPin(const LibraryPin& pin, const std::string& gateway_binary,
                       const LibraryPinFacts& facts) {
  const std::string pinned_path = pin.dir + "/" + pin.PinnedFileName();
  if (!facts.pinned_file_present) {
    std::string found = facts.versions_present.empty()
                            ? "no libcuobjserver.so.* at all"
                            : "found " + Join(facts.versions_present, ", ");
    return NotFoundError(
        "pinned server library " + pinned_path + " is missing (" + found +
        "); install libcuobjserver " + pin.full_version +
        " there (the library image's init container) or correct the pinned version");
  }
  if (facts.pinned_soname != pin.ExpectedSoname()) {
    std::string soname =
        facts.pinned_soname.empty() ? "no SONAME" : "SONAME " + facts.pinned_soname;
    return FailedPreconditionError(pinned_path + " declares " + soname + ", expected " +
                                   pin.ExpectedSoname() + " for major " +
                                   std::to_string(pin.major) +
                                   "; the file is not the pinned release, re-extract it from the "
                                   "libcuobjserver " +
                                   pin.full_version + " package");
  }
  std::vector<std::string> wanted = ServerLibrarySonames(facts.gateway_needed);
  if (wanted.empty()) {
    return FailedPreconditionError(
        "gateway binary " + gateway_binary +
        " does not link libcuobjserver (DT_NEEDED: " + Join(facts.gateway_needed, " ") +
        "); rdma mode needs a vgwrdma build, use --mode http for plain versitygw");
  }
  if (wanted.size() > 1) {
    return FailedPreconditionError("gateway binary " + gateway_binary +
                                   " links several server library majors (" + Join(wanted, ", ") +
                                   "): a stale mixed build; rebuild vgwrdma from clean "
                                   "(rm -f rdma/libcuobjwrapper.a) against libcuobjserver " +
                                   std::to_string(pin.major) + ".x");
  }
  if (wanted.front() != facts.pinned_soname) {
    return FailedPreconditionError("gateway binary " + gateway_binary + " needs " + wanted.front() +
                                   " but the pinned library " + pinned_path + " provides " +
                                   facts.pinned_soname + "; deploy the gateway build for major " +
                                   std::to_string(pin.major) +
                                   " or pin a library of the major the gateway was built for");
  }
  const std::string link_path = pin.dir + "/" + facts.pinned_soname;
  if (!facts.soname_link_present) {
    return FailedPreconditionError("the loader looks for " + link_path +
                                   " but it does not exist; "
                                   "create it: ln -s " +
                                   pin.PinnedFileName() + " " + link_path);
  }
  if (facts.soname_link_target != pin.PinnedFileName()) {
    return FailedPreconditionError(link_path + " resolves to " + facts.soname_link_target +
                                   ", not the pinned " + pin.PinnedFileName() +
                                   " (stale library left in the directory); point it at the "
                                   "pinned file or clear the directory");
  }
  return OkStatus();
}

StatusOr<LibraryPinFacts> GatherLibraryPinFacts(const LibraryPin& pin,
                                                const std::string& gateway_binary) {
  LibraryPinFacts facts;
  std::error_code ec;
  if (!fs::is_directory(pin.dir, ec)) {
    return NotFoundError("server library directory " + pin.dir +
                         " does not exist; mount the pinned library there or fix --server-lib-dir");
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(pin.dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(kServerLibraryStem, 0) != 0) continue;
    std::string version = name.substr(kServerLibraryStem.size());
    if (IsNumericDotted(version, 3)) facts.versions_present.push_back(version);
  }
  std::sort(facts.versions_present.begin(), facts.versions_present.end());
  if (ec) return UnavailableError("cannot list " + pin.dir + ": " + ec.message());

  const std::string pinned_path = pin.dir + "/" + pin.PinnedFileName();
  facts.pinned_file_present = fs::exists(pinned_path, ec);
  if (!facts.pinned_file_present) return facts;  // the decision reports it with the listing

  RDMASTACK_ASSIGN_OR_RETURN(ElfDynamicNames library, ReadElfDynamicNamesFromFile(pinned_path));
  facts.pinned_soname = library.soname;
  StatusOr<ElfDynamicNames> gateway = ReadElfDynamicNamesFromFile(gateway_binary);
  if (!gateway.ok()) {
    return gateway.status().WithContext("cannot read the gateway binary (check --gateway-binary)");
  }
  facts.gateway_needed = gateway->needed;

  if (!facts.pinned_soname.empty()) {
    fs::path link = fs::path(pin.dir) / facts.pinned_soname;
    facts.soname_link_present = fs::exists(link, ec);
    if (facts.soname_link_present) {
      facts.soname_link_target = fs::canonical(link, ec).filename().string();
      fs::path pinned_canonical = fs::canonical(pinned_path, ec);
      // The pinned name itself may be a link to a differently named file; compare real files.
      if (!ec && fs::canonical(link, ec) == pinned_canonical) {
        facts.soname_link_target = pin.PinnedFileName();
      }
    }
  }
  return facts;
}

Status VerifyPlainGateway(const std::string& gateway_binary) {
  StatusOr<ElfDynamicNames> names = ReadElfDynamicNamesFromFile(gateway_binary);
  if (!names.ok()) {
    return names.status().WithContext("cannot read the gateway binary (check --gateway-binary)");
  }
  std::vector<std::string> wanted = ServerLibrarySonames(names->needed);
  if (wanted.empty()) return OkStatus();
  return FailedPreconditionError("gateway binary " + gateway_binary + " links " +
                                 Join(wanted, ", ") +
                                 ": it is a vgwrdma build, which cannot serve plain HTTP; use "
                                 "--mode rdma, or the plain versitygw binary for --mode http");
}

Status VerifyLibraryBytes(const LibraryPin& pin) {
  return compat::VerifyLibraryDigest(pin.dir, pin.PinnedFileName(), pin.sha256);
}

Status VerifyLibraryPin(const LibraryPin& pin, const std::string& gateway_binary) {
  RDMASTACK_RETURN_IF_ERROR(ValidateLibraryPin(pin));
  RDMASTACK_ASSIGN_OR_RETURN(LibraryPinFacts facts, GatherLibraryPinFacts(pin, gateway_binary));
  return CheckLibraryPin(pin, gateway_binary, facts);
}

}  // namespace rdmastack::gateway
