#include "agents/node-agent/cli/check_options.h"

#include "base/flag_reader.h"
#include "base/quantity.h"
#include "node/probe/parsers.h"

namespace rdmastack::agent {

StatusOr<CheckOptions> ParseCheckOptions(const std::vector<std::string>& args) {
  CheckOptions o;
  bool have_role = false;
  for (size_t i = 0; i < args.size();) {
    RDMASTACK_ASSIGN_OR_RETURN(FlagValue next, ReadFlag(args, &i, {"--live-probes"}));
    const std::string& flag = next.flag;
    const std::string& value = next.value;
    if (flag == "--live-probes") {
      o.live_probes = value == "true";
      continue;
    }
    node::Requirements& r = o.requirements;
    if (flag == "--root") {
      if (value.empty()) return InvalidArgumentError("--root must not be empty");
      o.root = value;
    } else if (flag == "--role") {
      RDMASTACK_ASSIGN_OR_RETURN(r.role, node::ParseRole(value));
      have_role = true;
    } else if (flag == "--transport") {
      RDMASTACK_ASSIGN_OR_RETURN(r.transport, node::ParseTransport(value));
    } else if (flag == "--memory-registration") {
      RDMASTACK_ASSIGN_OR_RETURN(r.registration, node::ParseRegistration(value));
    } else if (flag == "--max-transfer-size") {
      auto q = ParseByteQuantity(value);
      if (!q.ok()) return InvalidArgumentError("--max-transfer-size: " + q.status().message());
      r.max_transfer_bytes = *q;
    } else if (flag == "--max-gpu-nic-distance") {
      if (!node::ParsePathType(value, &r.max_gpu_nic_distance)) {
        return InvalidArgumentError("--max-gpu-nic-distance must be PIX, PXB, PHB or SYS, got '" +
                                    value + "'");
      }
    } else if (flag == "--gid-index") {
      auto n = node::ParseDecimal(value);
      if (!n.ok() || *n < -1 || *n > 65535)
        return InvalidArgumentError("--gid-index must be -1..65535");
      r.gid_index = static_cast<int>(*n);
    } else if (flag == "--rdma-ip") {
      if (auto ip = node::ParseIpv4(value); !ip.ok())
        return InvalidArgumentError("--rdma-ip: " + ip.status().message());
      r.rdma_ip = value;
    } else if (flag == "--ips-file") {
      o.ips_file = value;
    } else if (flag == "--probes-file") {
      o.probes_file = value;
    } else if (flag == "--output") {
      if (value == "table") {
        o.output = OutputFormat::kTable;
      } else if (value == "json") {
        o.output = OutputFormat::kJson;
      } else {
        return InvalidArgumentError("--output must be table or json, got '" + value + "'");
      }
    } else {
      return InvalidArgumentError("unknown flag " + flag);
    }
  }
  if (!have_role) return InvalidArgumentError("--role is required (gateway or client)");
  return o;
}

}  // namespace rdmastack::agent
