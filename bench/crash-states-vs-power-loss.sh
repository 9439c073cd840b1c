#!/usr/bin/env bash
# Benchmark: crash states checked per minute by crash_states against power
# cuts per minute by power_loss, in QEMU under TCG, on the same machine.
#
# Usage: bench/crash-states-vs-power-loss.sh [-o OPS] [-m STATES] [-f FILESYSTEMS] [-d MODELS] [-c CUTS] [-j N] [-p CPUS] [-P WORKERS] [-M MIB] [-a ARG] [-k]
#   -o OPS          operations of the fsync workload (default 1000: 1,000
#                   states or more on every filesystem)
#   -m STATES       max_states: the most states checked (default 1000,
#                   evenly spread over the log)
#   -f FILESYSTEMS  comma-separated (default ext4,btrfs,f2fs,xfs,nilfs2)
#   -d MODELS       device models, each a campaign over the same recording,
#                   comma-separated: prefix, reorder, reorder-ignored, torn,
#                   torn-ignored (default prefix; reorder drops up to 1
#                   write then 8 samples a point, torn tears by 512 bytes)
#   -c CUTS         power_loss iterations on ext4 (default 8; 0: none)
#   -j N            variants run at once (default 1)
#   -p CPUS         vCPUs of each guest: the states a campaign checks at
#                   once (default 2)
#   -P WORKERS      crash_states' parallel: states checked at once in each
#                   guest (default 0: one per vCPU); more than the vCPUs
#                   fills the time a worker waits on its mount
#   -M MIB          memory of each guest, which holds a replay of the log
#                   per worker (default 1024)
#   -a ARG          an extra kernel argument of the guests, such as
#                   mitigations=off (repeatable)
#   -k              keep the work directory and print its path
#
# It writes one spec with a crash partition per filesystem and a raw log
# partition, and runs a crash_states campaign of the fsync workload (4KiB
# appends, each fsynced: a log) on every filesystem with `fsbench run`;
# then a spec of the same layout with power_loss (the same writer,
# watchdog cuts after 4 s) on ext4. It prints, per filesystem, the states
# the log gave, how many were checked, their classes, the replay time and
# the states checked per minute; then the power cuts per minute (the
# wall time of the power_loss run, its build and boots included, over its
# cuts) and the ratio.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
# shellcheck source-path=SCRIPTDIR source=../scripts/lib.sh
. "$repo/scripts/lib.sh"

ops=1000 states=1000 filesystems=ext4,btrfs,f2fs,xfs,nilfs2 models=prefix cuts=8 jobs=1 cpus=2 workers=0 memory=1024 keep=0
kargs=()
while getopts "o:m:f:d:c:j:p:P:M:a:k" opt; do
	case $opt in
		o) ops=$OPTARG ;;
		m) states=$OPTARG ;;
		f) filesystems=$OPTARG ;;
		d) models=$OPTARG ;;
		c) cuts=$OPTARG ;;
		j) jobs=$OPTARG ;;
		p) cpus=$OPTARG ;;
		P) workers=$OPTARG ;;
		M) memory=$OPTARG ;;
		a) [[ $OPTARG =~ ^[A-Za-z0-9_.,=-]+$ ]] || die "-a wants one kernel argument (letters, digits and _.,=-)"
		   kargs+=("\"$OPTARG\"") ;;
		k) keep=1 ;;
		*) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
	esac
done
for n in "$ops" "$states" "$jobs" "$cpus" "$memory"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "-o, -m, -j, -p and -M want whole numbers of at least 1"
done
[[ $cuts =~ ^[0-9]+$ ]] || die "-c wants a whole number"
[[ $models =~ ^(prefix|reorder|reorder-ignored|torn|torn-ignored)(,(prefix|reorder|reorder-ignored|torn|torn-ignored))*$ ]] ||
	die "-d wants models among prefix, reorder, reorder-ignored, torn, torn-ignored, comma-separated"
[[ $workers =~ ^[0-9]$ ]] || die "-P wants 0 to 8"
(( workers <= 8 )) || die "-P wants 0 to 8"
[[ $filesystems =~ ^[a-z0-9]+(,[a-z0-9]+)*$ ]] || die "-f wants filesystem names, comma-separated"

apt_install "${FSBENCH_TOOL_PACKAGES[@]}" python3
ensure_go

bench_workdir crash "$keep"

log "building fsbench and the runner"
(
	cd "$repo"
	go build -o "$work/bin/fsbench" ./cmd/fsbench
	CGO_ENABLED=0 go build -trimpath -o "$work/bin/fsbench-runner-amd64" ./cmd/fsbench-runner
)

layout() { # $1: the filesystems, as an HCL list
	cat <<EOF
matrix "fs" {
  values = [$1]
}

board "qemu-x86_64" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "vda"
  kernel_args = [$(IFS=,; echo "${kargs[*]}")]
}

image "disk" {
  table = "gpt"
  size  = "1GiB"

  partition "rootfs" {
    size = "200MiB"
    root = true
    filesystem {
      type  = "ext4"
      mount = ["noatime"]
    }
    contents { userland = "busybox" }
  }

  partition "crash" {
    size = "320MiB"
    filesystem {
      type       = matrix.fs
      label      = "crash"
      mountpoint = "/mnt/crash"
    }
  }

  partition "crashlog" {
    grow = true
  }
}
EOF
}

fslist=$(sed 's/[a-z0-9]*/"&"/g; s/,/, /g' <<<"$filesystems")
{
	layout "$fslist"
	for model in ${models//,/ }; do
		device=${model%-ignored} flush=honoured
		[[ $model == *-ignored ]] && flush=ignored
		cat <<EOF

test "crash_states" "$model" {
  on         = partition.crash
  log        = partition.crashlog
  workload   = ["fsync"]
  operations = $ops
  device     = "$device"
  flush      = "$flush"
  samples    = 8
  max_states = $states
  parallel   = $workers
  max_time   = "15m"
  timeout    = "40m"
}
EOF
	done
} >"$work/crash.fsb.hcl"
{
	layout '"ext4"'
	cat <<EOF

test "power_loss" "fsync" {
  on         = partition.crash
  iterations = $cuts
  writer     = ["fsync"]
  mount      = ["async"]
  cut_after  = "4s"
}
EOF
} >"$work/cuts.fsb.hcl"

log "crash_states: $ops fsync appends on $filesystems, -j $jobs, $cpus vCPUs, $workers workers (0: one per vCPU) and $memory MiB each${kargs:+, kernel ${kargs[*]}}"
start=$SECONDS
"$work/bin/fsbench" run -j "$jobs" -cpus "$cpus" -memory "$memory" -o "$work/out-crash" "$work/crash.fsb.hcl" >"$work/crash.log" 2>&1 ||
	{ tail -30 "$work/crash.log" >&2; die "the crash_states run failed (log above)"; }
crash_wall=$((SECONDS - start))

cuts_wall=0
if ((cuts > 0)); then
	log "power_loss: $cuts watchdog cuts on ext4"
	start=$SECONDS
	"$work/bin/fsbench" run -o "$work/out-cuts" "$work/cuts.fsb.hcl" >"$work/cuts.log" 2>&1 ||
		{ tail -30 "$work/cuts.log" >&2; die "the power_loss run failed (log above)"; }
	cuts_wall=$((SECONDS - start))
fi

python3 - "$work" "$crash_wall" "$cuts_wall" "$cuts" "${filesystems//,/ }" <<'EOF'
import json, sys
work, crash_wall, cuts_wall, cuts, fss = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5].split()
def results(path, recipe):
    return [r for r in map(json.loads, open(path)) if r.get("recipe") == recipe]
print("crash_states, fsync workload; whole run %.0f s (builds, boots, recording and replay)" % crash_wall)
print("%-7s %-16s %7s %8s %9s %8s  %s" % ("fs", "model", "states", "checked", "replay s", "states/m", "classes"))
rates = []
for fs in fss:
    rs = results(f"{work}/out-crash/{fs}/run/results.jsonl", "crash_states")
    if not rs:
        print("%-7s failed: no result" % fs)
    for r in rs:
        if r["status"] != "ok":
            print("%-7s %-16s failed: %s" % (fs, r["name"], r.get("error")))
            continue
        m = {x["name"]: x["value"] for x in r["metrics"]}
        classes = ", ".join("%s %d" % (k, v) for k, v in m.items() if "." in k and v > 0)
        rate = m.get("states_per_minute", 0)
        rates.append(rate)
        print("%-7s %-16s %7d %8d %9.0f %8.0f  %s" % (fs, r["name"], m["states"], m["states_checked"], m["replay_time"], rate, classes))
if cuts == 0:
    sys.exit(0)
pl = results(f"{work}/out-cuts/ext4/run/results.jsonl", "power_loss")
ok = sum(1 for r in pl if r["status"] == "ok")
per_min = ok / cuts_wall * 60
print("power_loss, ext4: %d of %d cuts classified in %.0f s: %.2f cuts/min" % (ok, cuts, cuts_wall, per_min))
if rates and per_min > 0:
    print("states checked per minute / cuts per minute: %.0fx to %.0fx" % (min(rates) / per_min, max(rates) / per_min))
EOF
