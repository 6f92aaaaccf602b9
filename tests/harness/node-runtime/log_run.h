#pragma once
// Which run of a container a log request reads, decided from the pod's status as the runtime
// wrote it, by the kubelet's rules (validateContainerLogStatus): the running container, else the
// terminated one, else the last terminated one while it waits to restart; `previous` reads the
// container before that (lastState). Runs are numbered by restartCount, as the log files are
// (<container>/<restartCount>.log). Pure; unit tested in log_run_test.cc.

#include <sys/types.h>

#include <string>

#include "base/status.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::sim {

struct LogRun {
  int run = 0;    // the file <run>.log
  pid_t pid = 0;  // the container's main process while it runs (for follow); 0 when not running
};

// NotFound when the pod has no such container (the kubelet's 404); InvalidArgument (a 400 with
// the kubelet's message) when the container has not started yet or has no previous run.
StatusOr<LogRun> ChooseLogRun(const k8s::JsonObject& pod, const std::string& container,
                              bool previous);

// The host PID in a containerID "rdmastack-sim://<pid>"; 0 for anything else.
pid_t PidOfContainerId(const std::string& container_id);

// Why a pod the runtime does not run has no logs here. `pod` is the API server's copy of
// {ns}/{name}, or null when there is none. NotFound when there is no such pod on `node`;
// InvalidArgument, naming the reason, for a pod on `node` that only kwok keeps.
Status NotRunHere(const k8s::JsonObject* pod, const std::string& ns, const std::string& name,
                  const std::string& node);

}  // namespace rdmastack::sim
