#!/usr/bin/env python3
"""Where a node's move goes in the SideBySide upgrade bench.

Reads the operator's log (build/bench/upgrade-operator.log: each node patch with its time and the
phase it writes) and the API server's audit log (the DaemonSet controller's, the scheduler's and
kwok's writes of the bench's pods), and prints the mean time of each step of a node's move:

  StartNew -> pod bound     DaemonSet controller and scheduler (outside the operator)
  pod bound -> pod Ready    kwok's 10 s stage delay and kwok itself (outside the operator)
  pod Ready -> Switch       the operator: watch, batch, pass
  Switch -> StopOld         the operator: the new endpoint's write, then the chained step
  StopOld -> Done           split in:
    StopOld -> old pod deleted    the DaemonSet controller deletes the old pod (outside)
    deleted -> pod gone           kwok ends it (outside)
    pod gone -> Done              the operator: watch, batch, pass

Means of the differences between the k-th events of two steps: exact for the mean when both
steps have one event per node, as checked (a node's pod events carry no node name at the audit
level Metadata, so events are not matched node by node).

usage: upgrade_timeline.py OPERATOR_LOG AUDIT_LOG
"""
import json
import re
import statistics
import sys
from datetime import datetime, timezone

PATCH = re.compile(r'(\S+) I gatewaypool: node (\S+) (\{.*\})$')


def operator_phases(path):
    """phase -> sorted times the operator wrote it; and the bench's namespace."""
    phases, ns = {}, None
    for line in open(path):
        m = PATCH.match(line.strip())
        if not m:
            continue
        t = datetime.fromisoformat(m.group(1)).replace(tzinfo=timezone.utc).timestamp()
        for key, value in json.loads(m.group(3)).get('metadata', {}).get('annotations', {}).items():
            if key.startswith('upgrade.gwp.rdmastack.io/') and value:
                phases.setdefault(json.loads(value)['phase'], []).append(t)
                ns = ns or key.split('/', 1)[1].rsplit('.', 1)[0]
    return {k: sorted(v) for k, v in phases.items()}, ns


def pod_events(path, ns, start, end):
    """Within [start, end]: per pod its first binding, last kwok status write, first delete by the
    DaemonSet controller and last delete by kwok (sorted lists of each)."""
    pods = {}
    for line in open(path):
        if ns not in line:
            continue
        e = json.loads(line)
        o = e.get('objectRef', {})
        if o.get('namespace') != ns or o.get('resource') != 'pods' or not o.get('name'):
            continue
        t = datetime.fromisoformat(e['requestReceivedTimestamp'].replace('Z', '+00:00')).timestamp()
        if not start <= t <= end:
            continue
        agent = e.get('userAgent', '')
        p = pods.setdefault(o['name'], {})
        if o.get('subresource') == 'binding':
            p['bound'] = min(p.get('bound', t), t)
        elif o.get('subresource') == 'status' and 'kwok' in agent:
            p['status'] = max(p.get('status', t), t)
        elif e['verb'] == 'delete' and 'daemon-set-controller' in e['user']['username']:
            p['deleted'] = min(p.get('deleted', t), t)
        elif e['verb'] == 'delete' and 'kwok' in agent:
            p['gone'] = max(p.get('gone', t), t)
    def times(key, having):
        return sorted(p[key] for p in pods.values() if having in p and key in p)
    return (times('bound', 'bound'), times('status', 'bound'), times('deleted', 'deleted'),
            times('gone', 'deleted'))


def step(name, a, b):
    if not a or len(a) != len(b):
        print(f'{name:28s} n/a ({len(a)} vs {len(b)} events)')
        return
    d = sorted(y - x for x, y in zip(a, b))
    print(f'{name:28s} mean {statistics.mean(d):6.2f} s  (n {len(d)})')


def main():
    phases, ns = operator_phases(sys.argv[1])
    start, end = phases['StartNew'][0], phases['Done'][-1]
    bound, ready, deleted, gone = pod_events(sys.argv[2], ns, start, end)
    print(f'namespace {ns}: {len(phases["StartNew"])} nodes moved in {end - start:.1f} s '
          f'(first StartNew to last Done)')
    step('StartNew -> pod bound', phases['StartNew'], bound)
    step('pod bound -> pod Ready', bound, ready)
    step('pod Ready -> Switch', ready, phases.get('Switch', []))
    step('Switch -> StopOld', phases.get('Switch', []), phases.get('StopOld', []))
    step('StopOld -> Done', phases.get('StopOld', []), phases['Done'])
    step('  StopOld -> old pod deleted', phases.get('StopOld', []), deleted)
    step('  deleted -> pod gone', deleted, gone)
    step('  pod gone -> Done', gone, phases['Done'])
    step('StartNew -> Done', phases['StartNew'], phases['Done'])


if __name__ == '__main__':
    main()
