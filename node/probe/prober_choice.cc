#include "node/probe/prober_choice.h"

namespace rdmastack::node {

ProbeSource ChooseProbeSource(const std::string& root, const std::string& probes_file,
                              bool live_probes) {
  if (!probes_file.empty()) return ProbeSource::kRecorded;
  // The live libraries describe this machine; only trust them for a fixture root when asked.
  if (root == "/" || live_probes) return ProbeSource::kLive;
  return ProbeSource::kNone;
}

std::string DescribeProbeSource(const std::string& root, const std::string& probes_file,
                                bool live_probes) {
  switch (ChooseProbeSource(root, probes_file, live_probes)) {
    case ProbeSource::kRecorded:
      return "recorded (" + probes_file + (live_probes ? "; overrides --live-probes)" : ")");
    case ProbeSource::kLive:
      return root == "/" ? "live (libibverbs; NVML on the loader's path)"
                         : "live (libibverbs; NVML below " + root + ")";
    case ProbeSource::kNone: break;
  }
  return "none (--root " + root + " without --live-probes or --probes-file)";
}

StatusOr<std::unique_ptr<DeviceProber>> MakeProber(const std::string& root,
                                                   const std::string& probes_file, bool live_probes,
                                                   const LiveProberOptions& live) {
  switch (ChooseProbeSource(root, probes_file, live_probes)) {
    case ProbeSource::kRecorded: return MakeFileDeviceProber(probes_file);
    case ProbeSource::kLive: {
      LiveProberOptions options = live;
      options.root = root;
      return MakeLiveDeviceProber(std::move(options));
    }
    case ProbeSource::kNone: break;
  }
  return MakeNullDeviceProber();
}

}  // namespace rdmastack::node
