#include "cli/kubectl-rdmastack/must_gather/must_gather_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "base/rfc3339.h"
#include "base/version.h"
#include "cli/kubectl-rdmastack/printable.h"
#include "crds/types/kinds.h"
#include "operator/k8s/api_error.h"

namespace rdmastack::plugin {
namespace {

CommandResult Failure(std::string line) {
  return {"", "error: " + line + "\n", 1};
}

Status WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return UnavailableError(std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return OkStatus();
}

std::string Size(size_t bytes) {
  char buf[32];
  if (bytes >= 1024 * 1024)
    std::snprintf(buf, sizeof(buf), "%.1f MiB", static_cast<double>(bytes) / (1024 * 1024));
  else
    std::snprintf(buf, sizeof(buf), "%.1f KiB", static_cast<double>(bytes) / 1024);
  return buf;
}

CommandResult MustGather(const ApiAccess& api, const Options& options, const ClusterInfo& cluster,
                         int64_t now, const std::function<void(const std::string&)>& progress) {
  // DIR first: a bundle that cannot be written is not worth a minute of gathering.
  std::error_code ec;
  const std::filesystem::path dir(options.output_dir);
  if (!std::filesystem::is_directory(dir, ec))
    return Failure("cannot write the bundle to " + options.output_dir +
                   ": not a directory (create it, or pass -o DIR)");
  const std::string root = bundle::RootName(now);
  const std::string partial_path = (dir / (root + ".tar.gz.partial")).string();
  // O_EXCL: a run already writing this second's archive is not clobbered (a second run fails
  // here with "File exists" rather than mixing bytes).
  const int fd = ::open(partial_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return Failure("cannot write the bundle to " + options.output_dir + ": " +
                   std::strerror(errno) + " (pass -o DIR with a directory you can write)");
  auto abandon = [&](std::string line) {
    ::close(fd);
    ::unlink(partial_path.c_str());
    return Failure(std::move(line));
  };

  // An API server that does not answer, or refuses who we are, makes every step fail the same
  // way: say it once, as the other commands do, instead of writing a bundle of that error.
  if (StatusOr<std::string> version = api.get("/version"); !version.ok()) {
    const std::optional<k8s::ApiError> e = k8s::GetApiError(version.status());
    if (!e || k8s::IsUnauthorized(version.status()))
      return abandon(DescribeApiError(version.status(), "get", crd::kinds::GatewayPool(), cluster));
  }

  bundle::Bundle bundle(
      root, {{"cluster", cluster.server + " (" + cluster.source + ")"},
             {"plugin", std::string("kubectl-rdmastack ") + kVersion},
             {"gathered at",
              FormatRfc3339(std::chrono::system_clock::time_point(std::chrono::seconds(now)))},
             {"pools and profiles", options.namespace_.empty() ? std::string("every namespace")
                                                               : "namespace " + options.namespace_},
             {"operator namespace", options.operator_namespace}});
  GatherContext ctx;
  ctx.api = api;
  ctx.options.namespace_ = options.namespace_;
  ctx.options.operator_namespace = options.operator_namespace;
  ctx.options.plugin_version = std::string(kVersion);
  ctx.bundle = &bundle;
  ctx.progress = progress;
  Gather(ctx);

  const size_t failures = bundle.failures().size();
  const std::vector<ArchiveEntry> entries = bundle.Finish(ctx.scrubber);
  StatusOr<std::string> archive = WriteTarGz(entries, now);
  if (!archive.ok()) return abandon("cannot make the archive: " + archive.status().message());
  if (Status s = WriteAll(fd, *archive); !s.ok())
    return abandon("cannot write " + partial_path + ": " + s.message());
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(partial_path.c_str());
    return Failure("cannot write " + partial_path + ": " + std::strerror(errno));
  }
  // link(2) never replaces: two runs within one second get "-2", "-3", ... instead of one
  // archive silently overwriting the other.
  std::string final_path;
  for (int n = 1; final_path.empty(); ++n) {
    const std::string candidate =
        (dir / (root + (n == 1 ? "" : "-" + std::to_string(n)) + ".tar.gz")).string();
    if (::link(partial_path.c_str(), candidate.c_str()) == 0) {
      final_path = candidate;
    } else if (errno != EEXIST || n >= 100) {
      const std::string error = std::strerror(errno);
      ::unlink(partial_path.c_str());
      return Failure("cannot write " + candidate + ": " + error);
    }
  }
  ::unlink(partial_path.c_str());
  progress("wrote " + final_path + " (" + Size(archive->size()) + ", " +
           std::to_string(entries.size()) + " files, " + std::to_string(failures) +
           (failures == 1 ? " failure" : " failures") +
           (failures > 0 ? ": see " + root + "/SUMMARY.md" : "") + ")");
  return {final_path + "\n", "", 0};
}

}  // namespace

// The bundle keeps what the API server said byte for byte; what reaches the terminal (the
// progress lines, each one line, and the result) is made printable.
CommandResult RunMustGather(const ApiAccess& api, const Options& options,
                            const ClusterInfo& cluster, int64_t now,
                            const std::function<void(const std::string&)>& progress) {
  const auto printable_progress = [&progress](const std::string& line) {
    progress(Printable(line));
  };
  return PrintableResult(MustGather(api, options, cluster, now, printable_progress));
}

}  // namespace rdmastack::plugin
