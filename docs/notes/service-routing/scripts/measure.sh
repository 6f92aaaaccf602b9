#!/usr/bin/env bash
# measure.sh SECONDS PID... : RSS (VmRSS, VmHWM) and CPU (utime+stime) over SECONDS for each pid.
set -euo pipefail
secs="$1"; shift
hz=$(getconf CLK_TCK)
declare -A t0
for p in "$@"; do t0[$p]=$(awk '{print $14+$15}' /proc/$p/stat); done
sleep "$secs"
for p in "$@"; do
  t1=$(awk '{print $14+$15}' /proc/$p/stat)
  rss=$(awk '/VmRSS/{print $2}' /proc/$p/status); hwm=$(awk '/VmHWM/{print $2}' /proc/$p/status)
  thr=$(awk '/Threads/{print $2}' /proc/$p/status)
  printf '%-8s %-40s RSS %6d KiB  peak %6d KiB  threads %3d  CPU %.2f%% of one core over %ss\n' \
    "$p" "$(tr '\0' ' ' </proc/$p/cmdline | cut -c1-40)" "$rss" "$hwm" "$thr" \
    "$(echo "($t1-${t0[$p]})*100/$hz/$secs" | bc -l)" "$secs"
done
