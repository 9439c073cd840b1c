#!/usr/bin/env bash
# Benchmark: build time over Buildroot's corpus of genimage
# configurations (importer/genimage/testdata/buildroot, 135 boards),
# `fsbench build` of each imported spec against Debian's genimage 16 on
# the same configuration and inputs, one process per configuration as a
# build system runs them.
#
# Usage: bench/import-corpus-vs-genimage.sh [-n RUNS] [-c]
#   -n RUNS  timed passes over the corpus per tool, alternating (default 3)
#   -c       drop the page cache before every build (cold); by default it
#            is warm
#
# The driver is BenchmarkBuildrootCorpus (importer/genimage): it imports
# every configuration, writes its inputs (bytes drawn from their names, as
# the corpus test does) and keeps those that both tools build (genimage 16
# refuses the options of later genimage). A pass builds each of them with
# genimage, then with fsbench; the outputs are removed between builds,
# untimed, and so is the cache drop. fsbench checks every filesystem it
# makes (fsck.vfat -n, e2fsck -fn) and genimage does not: the checks are
# part of its time. It prints the total of each tool per pass, the medians
# and the ratio fsbench/genimage; the target is 0.5 or less. Runs as root
# (genimage, fsbench build and dropping the cache).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
# shellcheck source-path=SCRIPTDIR source=../scripts/lib.sh
. "$repo/scripts/lib.sh"

runs=3 cold=0
while getopts "n:c" opt; do
	case $opt in
		n) runs=$OPTARG ;;
		c) cold=1 ;;
		*) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
	esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "-n wants a whole number of at least 1"

apt_install "${FSBENCH_TOOL_PACKAGES[@]}" genimage python3
ensure_go

mode=warm
((cold)) && mode=cold
log "the Buildroot corpus, $runs passes per tool, page cache $mode"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
(cd "$repo" && FSBENCH_BENCH_DROP_CACHES=$cold go test ./importer/genimage -run '^$' \
	-bench BenchmarkBuildrootCorpus -benchtime 1x -count "$runs" -timeout 2h) | tee "$out" >&2

python3 - "$out" "$mode" <<'PY'
import re, statistics, sys
runs = {}
configs = 0
for line in open(sys.argv[1]):
    m = re.match(r"BenchmarkBuildrootCorpus/(\w+)-\d+\s+\d+\s+(\d+) ns/op\s+([\d.]+) configs/op", line)
    if m:
        runs.setdefault(m.group(1), []).append(int(m.group(2)) / 1e9)
        configs = int(float(m.group(3)))
if set(runs) != {"genimage", "fsbench"}:
    sys.exit("no results of both tools")
print("%d configurations, page cache %s" % (configs, sys.argv[2]))
for tool, ts in runs.items():
    print("%-9s %s  median %.1f s (%.0f ms a configuration)" % (tool, " ".join("%.1f" % t for t in ts),
          statistics.median(ts), statistics.median(ts) / configs * 1000))
ratio = statistics.median(runs["fsbench"]) / statistics.median(runs["genimage"])
print("fsbench / genimage: %.2f (target 0.50 or less: %s)" % (ratio, "met" if ratio <= 0.5 else "not met"))
PY
