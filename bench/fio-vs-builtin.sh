#!/usr/bin/env bash
# Benchmark: the runner's built-in fio engine (target/fio) against Debian's
# fio 3.33, job by job, in the same directory on a disk filesystem:
#   seqread-4MiB-direct     read,      bs 4MiB, 1GiB, O_DIRECT, libaio, iodepth 4
#   seqwrite-4MiB-direct    write,     bs 4MiB, 1GiB, O_DIRECT, libaio, iodepth 4
#   randread-4KiB-direct    randread,  bs 4KiB, 512MiB, O_DIRECT, libaio, iodepth 16, time based
#   randwrite-4KiB-direct   randwrite, bs 4KiB, 512MiB, O_DIRECT, libaio, iodepth 16, time based
#   seqwrite-1MiB-buffered  write,     bs 1MiB, 1GiB, buffered, psync, end_fsync
#
# Usage: bench/fio-vs-builtin.sh [-n RUNS] [-d DIR] [-t SECONDS] [-j REGEX] [-k]
#   -n RUNS     timed runs per engine and job, alternating (default 3)
#   -d DIR      directory for the job files, on the filesystem to test
#               (default: a new directory under /var/tmp); not tmpfs
#   -t SECONDS  runtime of the time-based random jobs (default 10, after a
#               2 s ramp_time)
#   -j REGEX    only the jobs whose names match REGEX (grep -E)
#   -k          keep the work directory (binaries, JSON results) and print
#               its path
#
# Both engines run through the same program, target/fio/internal/fiobench,
# which calls fio.Run with Engine "fio" or "builtin": the files are laid out
# first (fio: its own --create_only pass), the page cache is dropped before
# the buffered job, then the measured run; fio gets its command line from
# target/fio (an argument vector, --output-format=json) and its JSON is
# parsed there. So the comparison is the one the runner makes on a target.
#
# Runs as root (dropping the page cache needs it). Installs fio, time and jq
# with apt-get, builds fiobench from this checkout, and prints per job the
# median bandwidth of each engine (KiB/s, fio's unit) with min-max, the
# ratio builtin/fio of the medians and the median of the runs' ratios (each
# run of one engine against the other's run next to it, which cancels slow
# drifts of the device; target 0.95-1.05 for both), the median CPU use
# (usr+sys, % of the job's run time, as fio reports it) and the peak RSS:
# the built-in engine's (VmHWM of fiobench, which runs it in-process) and,
# for reference, that of the fio runs (/usr/bin/time %M: the largest of
# fiobench and fio). It exits non-zero when a run fails, not when the
# target is missed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
# shellcheck source-path=SCRIPTDIR source=../scripts/lib.sh
. "$repo/scripts/lib.sh"

runs=3 dir="" secs=10 only="" keep=0
while getopts "n:d:t:j:k" opt; do
	case $opt in
		n) runs=$OPTARG ;;
		d) dir=$OPTARG ;;
		t) secs=$OPTARG ;;
		j) only=$OPTARG ;;
		k) keep=1 ;;
		*) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
	esac
done
if ! [[ $runs =~ ^[0-9]+$ ]] || [ "$runs" -lt 1 ]; then die "-n wants a number of runs, at least 1"; fi
if ! [[ $secs =~ ^[0-9]+$ ]] || [ "$secs" -lt 1 ]; then die "-t wants a number of seconds, at least 1"; fi
[ "$(id -u)" -eq 0 ] || die "run as root: dropping the page cache needs it"

apt_install fio time jq
ensure_go

work=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-fio-bench.XXXXXX")
made_dir=0
if [ -z "$dir" ]; then
	dir=$(mktemp -d /var/tmp/fsbench-fio-files.XXXXXX)
	made_dir=1
fi
mkdir -p "$dir"
cleanup() {
	local rc=$?
	if [ "$made_dir" -eq 1 ]; then rm -rf "$dir"; fi
	if [ "$keep" -eq 1 ]; then
		log "work directory kept: $work"
	else
		rm -rf "$work"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fstype=$(findmnt -n -o FSTYPE -T "$dir")
case $fstype in
	tmpfs | ramfs) die "$dir is on $fstype: O_DIRECT and the page cache make no sense there; pass -d DIR on a disk filesystem" ;;
esac

fiobench=$work/bin/fiobench
log "building fiobench"
(cd "$repo" && CGO_ENABLED=0 go build -o "$fiobench" ./target/fio/internal/fiobench)

# The jobs: name|fiobench arguments.
cases=(
	"seqread-4MiB-direct|-rw read -bs 4m -size 1g -direct -ioengine libaio -iodepth 4"
	"seqwrite-4MiB-direct|-rw write -bs 4m -size 1g -direct -ioengine libaio -iodepth 4"
	"randread-4KiB-direct|-rw randread -bs 4k -size 512m -direct -ioengine libaio -iodepth 16 -runtime ${secs}s -time_based -ramp_time 2s"
	"randwrite-4KiB-direct|-rw randwrite -bs 4k -size 512m -direct -ioengine libaio -iodepth 16 -runtime ${secs}s -time_based -ramp_time 2s"
	"seqwrite-1MiB-buffered|-rw write -bs 1m -size 1g -ioengine psync -end_fsync"
)
if [ -n "$only" ]; then
	mapfile -t cases < <(printf '%s\n' "${cases[@]}" | grep -E "^[^|]*(${only})[^|]*\|" || true)
	[ ${#cases[@]} -gt 0 ] || die "no job matches -j $only"
fi

# ---------------------------------------------------------------- machine
pkgver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo '?'; }
src=$(findmnt -n -o SOURCE -T "$dir" | head -1)
echo "== machine"
echo "cpus:    $(nproc) ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1))"
echo "memory:  $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
echo "disk:    $src $fstype ($(lsblk -d -n -o ROTA,SIZE "$src" 2>/dev/null | awk '{print ($1 ? "rotational" : "non-rotational") ", " $2}')); job files in $dir"
echo "system:  $(. /etc/os-release && echo "$PRETTY_NAME"), Linux $(uname -r)"
echo "fsbench: $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown), $(go version | cut -d' ' -f3)"
echo "fio:     $(fio --version) (Debian $(pkgver fio))"
echo

# ---------------------------------------------------------------- runs
mkdir -p "$work/out" "$work/times"

# run_one ENGINE JOB I: one run of a job with an engine into out/ENGINE-JOB-I.json.
run_one() {
	local engine=$1 name=$2 i=$3 args=$4 base=$1-$2-$3
	# shellcheck disable=SC2086 # args is a list of flags
	/usr/bin/time -f '%e %M' -o "$work/times/$base" \
		"$fiobench" -engine "$engine" -name "$name" -dir "$dir" $args \
		>"$work/out/$base.json" 2>"$work/out/$base.err" ||
		{ cat "$work/out/$base.err" >&2; die "$engine failed on $name (run $i)"; }
}

# bw FILE: the bandwidth of the job's direction, KiB/s.
bw() { jq -r 'if .Read.Bytes > 0 then .Read.BW else .Write.BW end' "$1"; }

log "timing $runs runs per engine and job, alternating"
for job in "${cases[@]}"; do
	name=${job%%|*} args=${job#*|}
	for i in $(seq 1 "$runs"); do
		if [ $((i % 2)) -eq 1 ]; then
			run_one fio "$name" "$i" "$args"; run_one builtin "$name" "$i" "$args"
		else
			run_one builtin "$name" "$i" "$args"; run_one fio "$name" "$i" "$args"
		fi
		log "$name run $i: fio $(bw "$work/out/fio-$name-$i.json") KiB/s, builtin $(bw "$work/out/builtin-$name-$i.json") KiB/s"
	done
done

# ---------------------------------------------------------------- report
# stats: median min max of a column of numbers on stdin.
stats() { sort -g | awk '{v[NR]=$1} END {m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%s %s %s\n", m, v[1], v[NR]}'; }
each() { for i in $(seq 1 "$runs"); do "$@" "$i"; done; }
bw_of() { bw "$work/out/$1-$2-$3.json"; }
cpu_of() { jq -r '.UsrCPU + .SysCPU | . * 10 | round / 10' "$work/out/$1-$2-$3.json"; }
hwm_of() { jq -r '.vmhwm_kib' "$work/out/$1-$2-$3.json"; }
rss_of() { cut -d' ' -f2 "$work/times/$1-$2-$3"; }
pair_of() { awk -v b="$(bw_of builtin "$1" "$2")" -v f="$(bw_of fio "$1" "$2")" 'BEGIN {printf "%.3f\n", b / f}'; }

echo
echo "== $runs runs per engine and job, alternating; bandwidth in KiB/s (fio's unit), median (min-max)"
printf '%-24s %-26s %-26s %-7s %-7s %-16s %s\n' job "fio" "builtin" "ratio" "paired" "CPU% fio/builtin" "peak RSS KiB: builtin (fio run)"
met=0 total=0
for job in "${cases[@]}"; do
	name=${job%%|*}
	read -r fm fl fh < <(each bw_of fio "$name" | stats)
	read -r bm bl bh < <(each bw_of builtin "$name" | stats)
	read -r fc _ _ < <(each cpu_of fio "$name" | stats)
	read -r bc _ _ < <(each cpu_of builtin "$name" | stats)
	read -r _ _ hwm < <(each hwm_of builtin "$name" | stats)
	read -r _ _ frss < <(each rss_of fio "$name" | stats)
	read -r pm _ _ < <(each pair_of "$name" | stats)
	ratio=$(awk -v b="$bm" -v f="$fm" 'BEGIN {printf "%.3f", b / f}')
	total=$((total + 1))
	if awk -v r="$ratio" -v p="$pm" 'BEGIN {exit !(r >= 0.95 && r <= 1.05 && p >= 0.95 && p <= 1.05)}'; then met=$((met + 1)); fi
	printf '%-24s %-26s %-26s %-7s %-7s %-16s %s\n' "$name" "$fm ($fl-$fh)" "$bm ($bl-$bh)" "$ratio" "$pm" "$fc / $bc" "$hwm ($frss)"
done
echo
echo "target: both ratios builtin/fio within 0.95-1.05 for every job: $met of $total jobs within it"
echo "raw bandwidths (KiB/s), fio | builtin, by run:"
for job in "${cases[@]}"; do
	name=${job%%|*}
	printf '  %-24s %s | %s\n' "$name" "$(each bw_of fio "$name" | tr '\n' ' ')" "$(each bw_of builtin "$name" | tr '\n' ' ')"
done
