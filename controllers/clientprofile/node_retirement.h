#pragma once
// What happens to a profile's files on a node that leaves the profile (pure). A client pod's stop
// never removes them: its replacement (image update, operator upgrade, restart) must not pull the
// configuration from under the workloads that mounted it. So the node's profile label carries
// the node out in steps, and survives an operator restart:
//   eligible|ready -> retiring   the client pod goes (the DaemonSet schedules only eligible|ready);
//                                the files stay while a running pod on the node names the profile
//   retiring -> uninstall        no such pod and no client pod left: the uninstall DaemonSet's pod
//                                removes the files
//   uninstall -> (no label)      that pod is Ready: nothing is left
// A node that comes back while retiring returns to eligible, but only once no uninstall pod is
// left there to remove what its new client writes.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastack::clientprofile {

inline constexpr char kRetiringValue[] = "retiring";
inline constexpr char kUninstallValue[] = "uninstall";

struct NodeMembership {
  std::optional<std::string> label;  // the node's profile label now
  bool wanted = false;               // eligible, or kept while its agent is silent
  bool client_ready = false;         // its client pod is Ready and not terminating
  bool client_pod = false;           // any client pod of the profile is on the node
  bool uninstall_pod = false;        // any uninstall pod of the profile is on the node
  bool uninstall_ready = false;      // that pod is Ready: the files are gone
  size_t holders = 0;                // running pods on the node that name the profile
};

// The label the node should carry; nullopt = none.
std::optional<std::string> NextClientLabel(const NodeMembership& m);

// True for a label value that says files of the profile may be on the node while no client runs.
bool IsRetiringLabel(std::string_view value);

// One line of status.retiringNodes, or nullopt for a node that is not retiring.
struct Retirement {
  std::string phase;              // HeldByPods | WaitingForClientPod | Uninstalling
  std::vector<std::string> pods;  // the holders, at most kMaxListedHolders
};
inline constexpr size_t kMaxListedHolders = 5;
std::optional<Retirement> DescribeRetirement(const NodeMembership& m,
                                             const std::optional<std::string>& next,
                                             const std::vector<std::string>& holders);

}  // namespace rdmastack::clientprofile
