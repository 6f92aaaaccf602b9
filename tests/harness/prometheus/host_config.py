#!/usr/bin/env python3
"""Writes the Prometheus Operator's generated config and rule files for a Prometheus host process.

The operator writes, for a `Prometheus` object NAME, the config into Secret prometheus-NAME
(prometheus.yaml.gz), the rule files into ConfigMaps prometheus-NAME-rulefiles-<n> and the TLS
files the scrape configs name into Secrets prometheus-NAME-tls-assets-<n>. In a cluster they are
mounted at /etc/prometheus/config_out, /etc/prometheus/rules/<configmap>/ and /etc/prometheus/certs/.
Here they become files under OUT, and the config's paths are rewritten to point there. The
operator's config-reloader sidecar also expands $(SHARD) and $(POD_NAME) from its pod's
environment; here they become what the first pod of shard 0 would have. Those are the only
changes to what the operator generated (harness shortcuts, docs/development.md).

usage: host_config.py OUT < kubectl get secret,configmap -o json (the objects above)
Prints a digest of what it wrote, so that the caller reloads Prometheus only when it changed.
"""
import base64
import gzip
import hashlib
import json
import os
import sys

CONFIG_DIR = "/etc/prometheus/config_out/"
RULES_DIR = "/etc/prometheus/rules/"
CERTS_DIR = "/etc/prometheus/certs/"


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: host_config.py OUT < objects.json")
    out = os.path.abspath(sys.argv[1])
    items = json.load(sys.stdin).get("items", [])
    config = None
    files = {}  # path under OUT -> bytes
    pod_env = {}
    for obj in items:
        name = obj["metadata"]["name"]
        if obj["kind"] == "Secret" and "prometheus.yaml.gz" in obj.get("data", {}):
            config = gzip.decompress(base64.b64decode(obj["data"]["prometheus.yaml.gz"]))
            # The StatefulSet's first pod: <secret name>-0, shard 0.
            pod_env = {"SHARD": "0", "POD_NAME": name + "-0"}
        elif obj["kind"] == "Secret" and "-tls-assets-" in name:
            for key, value in obj.get("data", {}).items():
                files["certs/" + key] = base64.b64decode(value)
        elif obj["kind"] == "ConfigMap" and "-rulefiles-" in name:
            for key, value in obj.get("data", {}).items():
                files["rules/%s/%s" % (name, key)] = value.encode()
    if config is None:
        sys.exit("no Secret with prometheus.yaml.gz among the objects: the operator has not "
                 "generated the config yet (see its log)")
    text = config.decode()
    text = text.replace(RULES_DIR, out + "/rules/").replace(CERTS_DIR, out + "/certs/")
    text = text.replace(CONFIG_DIR, out + "/")
    for var, value in pod_env.items():
        text = text.replace("$(%s)" % var, value)
    files["prometheus.yaml"] = text.encode()
    # Rule files and certificates the operator no longer lists go, as a volume's would.
    for sub in ("rules", "certs"):
        for root, _, names in os.walk(os.path.join(out, sub)):
            for n in names:
                rel = os.path.relpath(os.path.join(root, n), out)
                if rel not in files:
                    os.remove(os.path.join(root, n))
    digest = hashlib.sha256()
    for rel in sorted(files):
        write(os.path.join(out, rel), files[rel])
        digest.update(rel.encode() + b"\0" + files[rel] + b"\0")
    print(digest.hexdigest())


if __name__ == "__main__":
    main()
