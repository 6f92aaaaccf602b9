#!/usr/bin/env python3
"""Informer scale benchmark: our C++ informers beside client-go's, same API server, same run.

For each node count (ascending), on the running cluster (scripts/cluster.sh up; kwok running):
  1. informer-scale-peer --populate N: N padded kwok Nodes and one Pod per node (kept from the
     previous, smaller count); waits until kwok has made every pod Running;
  2. stops kwok, so that no heartbeat changes an object while the informers are measured;
  3. starts each implementation x form in turn (ours, client-go) x (shipped, transform, metadata),
     each a fresh process, and reads its "synced" line; every process stays up;
  4. compacts etcd and restarts kube-apiserver: every informer has to fetch its collection again
     (410 Gone on the old resourceVersion); reads each one's "relisted" line;
  5. stops them all and starts kwok again.
Writes OUT/results.json (every line every process printed, per node count) and OUT/results.md.

usage: bench_informers.py --ours BIN --goinformer BIN --cluster-script scripts/cluster.sh
                          --out DIR [--nodes 1000,5000,10000]
"""
import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time

IMPLS = [("ours", "informer-scale-peer"), ("client-go", "goinformer")]
FORMS = ["shipped", "transform", "metadata"]


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Peer:
    """One informer process; its JSON lines arrive on a queue."""

    def __init__(self, argv, log_path):
        # Everything that is not a result line (the reflectors' and klog's messages: why a watch
        # ended, whether it relisted) goes to log_path.
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            line = line.strip()
            if line.startswith("{"):
                self.lines.put(json.loads(line))
            else:
                print(line, file=self.log, flush=True)
        self.lines.put(None)

    def expect(self, event, timeout, required=True):
        try:
            got = self.lines.get(timeout=timeout)
        except queue.Empty:
            got = None
        if not required and got is None:
            return None
        if got is None or got.get("event") != event:
            self.proc.kill()
            sys.exit(f"expected a '{event}' line, got {got}; see {self.log_path}")
        return got

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def run(argv):
    r = subprocess.run(argv, text=True, capture_output=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({r.returncode}): {r.stderr[-3000:]}")
    return r.stdout


def kubectl(args, kubeconfig):
    kubectl_bin = os.environ.get("RDMASTACK_KUBECTL", "kubectl")
    return run([kubectl_bin, "--kubeconfig", kubeconfig] + args)


def wait_pods_running(kubeconfig, n, timeout=900):
    deadline = time.time() + timeout
    while True:
        out = kubectl(["get", "pods", "-n", "scale-bench", "--no-headers",
                       "--field-selector=status.phase=Running", "-o", "name"], kubeconfig)
        running = len(out.split())
        if running >= n:
            return
        if time.time() > deadline:
            sys.exit(f"only {running} of {n} pods Running after {timeout}s; see kwok's log")
        time.sleep(10)


def measure(n, args, kubeconfig):
    log(f"{n} nodes: populating")
    t = time.time()
    run([args.ours, "--kubeconfig", kubeconfig, "--populate", str(n)])
    wait_pods_running(kubeconfig, n)
    log(f"{n} nodes and pods, all Running, in {time.time() - t:.0f}s; stopping kwok")
    run([args.cluster_script, "stop", "kwok"])
    time.sleep(10)
    peers, results = [], []
    for impl, _ in IMPLS:
        binary = args.ours if impl == "ours" else args.goinformer
        for form in FORMS:
            argv = [binary, "--kubeconfig", kubeconfig, "--form", form]
            peer = Peer(argv, os.path.join(args.out, f"peer-{n}-{impl}-{form}.log"))
            synced = peer.expect("synced", 900)
            log(f"  {impl:9} {form:9} synced {synced['objects']} objects in {synced['sync_ms']:.0f} ms, "
                f"{(synced['rss_synced_kb'] - synced['rss_start_kb']) / n:.2f} KiB/node")
            if impl == "ours" and form == "transform":
                # The Node cache's selector moves to a label key it dropped: one re-list.
                widened = peer.expect("widened", 900)
                synced["widened"] = widened
                log(f"  {impl:9} {form:9} selector moved to a dropped key: Nodes re-listed in "
                    f"{widened['relist_ms']:.0f} ms ({widened['cpu_ms']:.0f} ms CPU), "
                    f"{(widened['rss_kb'] - synced['rss_start_kb']) / n:.2f} KiB/node after")
            peers.append(peer)
            results.append(synced)
    log("  compacting etcd and restarting kube-apiserver (forces a relist)")
    run([args.cluster_script, "compact"])
    run([args.cluster_script, "restart", "kube-apiserver"])
    deadline = time.time() + 120
    for peer, synced in zip(peers, results):
        relisted = peer.expect("relisted", max(1, deadline - time.time()), required=False)
        synced["relisted"] = relisted
        if relisted is None:
            log(f"  {synced['impl']:9} {synced['form']:9} saw no relist within 120 s")
            continue
        log(f"  {synced['impl']:9} {synced['form']:9} after relist "
            f"{(relisted['rss_kb'] - synced['rss_start_kb']) / n:.2f} KiB/node")
    for peer in peers:
        peer.stop()
    run([args.cluster_script, "restart", "kwok"])
    return results


def kib(v, n):
    return v / n


def table(all_results):
    lines = ["| nodes (+1 pod each) | implementation | form | KiB/node after sync | peak during sync, "
             "KiB/node (peak/steady) | sync wall s | sync CPU s | KiB/node after relist |",
             "|---|---|---|---|---|---|---|---|"]
    for n, results in sorted(all_results.items(), key=lambda kv: int(kv[0])):
        n = int(n)
        for r in results:
            steady = r["rss_synced_kb"] - r["rss_start_kb"]
            peak = r["hwm_kb"] - r["rss_start_kb"]
            relist = f"{kib(r['relisted']['rss_kb'] - r['rss_start_kb'], n):.2f}" if r["relisted"] else "no relist seen"
            lines.append(f"| {n:,} | {r['impl']} | {r['form']} | {kib(steady, n):.2f} | "
                         f"{kib(peak, n):.2f} ({peak / steady:.2f}) | {r['sync_ms'] / 1000:.2f} | "
                         f"{r['cpu_ms'] / 1000:.2f} | {relist} |")
    lines += ["", "Ours, transform form: the pool's selector moves to a label key the Node cache dropped "
              "(one re-list of every Node):", "",
              "| nodes | re-list wall s | re-list CPU s | KiB/node after |", "|---|---|---|---|"]
    for n, results in sorted(all_results.items(), key=lambda kv: int(kv[0])):
        for r in results:
            w = r.get("widened")
            if w:
                lines.append(f"| {int(n):,} | {w['relist_ms'] / 1000:.2f} | {w['cpu_ms'] / 1000:.2f} | "
                             f"{kib(w['rss_kb'] - r['rss_start_kb'], int(n)):.2f} |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ours", required=True)
    p.add_argument("--goinformer", required=True)
    p.add_argument("--cluster-script", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--nodes", default="1000,5000,10000")
    args = p.parse_args()
    kubeconfig = run([args.cluster_script, "kubeconfig"]).strip()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "results.json")
    all_results = {}
    for n in [int(x) for x in args.nodes.split(",")]:
        all_results[str(n)] = measure(n, args, kubeconfig)
        with open(path, "w") as f:
            json.dump(all_results, f, indent=1)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(table(all_results))
    print(table(all_results))


if __name__ == "__main__":
    main()
