#!/usr/bin/env bash
# Benchmark: how exactly `fsbench capture` stamps console lines, against
# Debian's grabserial 2.1.0 and a minimal blocking reader, on a pty fed
# with a real boot console (bench/boot.log: 300 lines, 21 KB, from the
# SeaBIOS banner through the root mount and the "fsbench login: " prompt
# to the runner's first result frames and "fsbench-runner: reboot").
#
# Usage: bench/capture-vs-grabserial.sh [-n RUNS] [-l LOAD] [-t SCALE] [-f BYTES[,BYTES]...] [-s SCHEMES] [-V VARIANT]... [-k]
#   -n RUNS   runs per tool and machine state (default 5)
#   -l LOAD   busy-looping processes in the loaded pass (default: one per
#             CPU, so that every CPU has a competing process)
#   -t SCALE  scale of the boot's pauses (the kernel timestamps) in the
#             playback (default 1: the real ~9.2 s; 0: back to back)
#   -f BYTES[,BYTES]...
#             bytes per write(2) into the pty, one pacing after the other
#             (default 1,16: every byte its own write, as from a UART
#             without FIFO or a slow USB adapter at its worst, then 16
#             bytes, a UART's FIFO)
#   -s SCHEME[+chardelay][,...]
#             also run fsbench capture through Debian's ser2net on
#             localhost, serving the same pty as a board lab's console
#             server does, over rfc2217, telnet or tcp (raw), each as tool
#             fsbench-SCHEME; +chardelay keeps ser2net's default wait after
#             each byte (e.g. -s rfc2217,tcp,rfc2217+chardelay)
#   -V 'NAME=BINARY [FLAG...]'
#             also run `BINARY capture FLAG...` as tool NAME, in the same
#             rotation (repeatable); BINARY "fsbench" is the one built from
#             this tree, e.g. -V 'fsbench-normal=fsbench -priority normal'
#   -k        keep the work directory (binaries, tool outputs, per-line
#             errors, JSON) and print its path
#
# The driver, capture/internal/capturebench, does one pass with the machine
# as it is ("base": no load added; on a shared machine that is not idle)
# and one with LOAD busy-looping processes, children of the driver and so
# in its session (with autogroup scheduling, in its group), like a
# `make -j` started from the same shell. In each pass, for each
# run and tool (the order rotates from run to run), it opens a fresh pty,
# starts the tool on the slave, waits until the tool sleeps waiting for
# input (/proc/PID/fd and wchan; for a thread in epoll_wait, an epoll
# descriptor that watches the slave), and plays the log into the master: 1 or
# 16 bytes per write(2) (-f), at the 115200-baud byte rate, each
# line held back until its kernel timestamp so that the boot's pauses are
# replayed, sleeping with clock_nanosleep to absolute deadlines counted
# from the start. The send time of a line is the time.Now() just before the
# write(2) that carries its first byte.
#
#   fsbench capture -port SLAVE -baud 115200 -reset 'VFS: Mounted root'
#           -quit 'fsbench-runner: reboot' -timeout ...
#           (with its default -priority high: the threads that run its
#           reading goroutine run at nice -10 when the script runs as
#           root, see "priority:" in the machine section)
#   grabserial -S -d SLAVE -b 115200 -t -m '.*VFS: Mounted root'
#           -q 'fsbench-runner: reboot' -e ...
#   minimal: a goroutine of the driver on its own thread, blocked in
#           read(2) on the slave (raw termios, VMIN=1), stamping the
#           first byte of each line with the time.Now() after the read.
#   minimal-rt: the same with its thread at SCHED_FIFO 1 (only when the
#           driver may), a real-time reader; what
#           remains of its error is mostly the kernel's delay in handing
#           the bytes over (it shares its process with the sender, though).
#   minimal-proc: the same loop in a child process (the driver run with
#           -reader), printing like fsbench: its CPU time is counted like
#           fsbench's, Go runtime threads included.
#
# Both passes run for each pacing of -f in turn.
#
# Per line, error = (stamp_i - stamp_root) - (send_i - send_root), with the
# VFS root-mount line as the reference for every tool; the figures of a run
# are the median, p99 (nearest rank: the 3rd largest of 299) and max of
# |error|, the error of the root-mount-to-prompt interval, and the tool's
# CPU time (user+sys of the child from wait4; for the in-process reader,
# RUSAGE_THREAD of its thread), the part of it spent before the tool waited
# for input shown apart, its context switches and major page faults. The
# "lag" columns need no reference line: stamp_i - send_i less the run's
# smallest, so a stall that hits the root-mount line itself (which shifts
# every error above) does not show there. The tables give the medians over
# the runs.
#
# Installs grabserial and jq with apt-get, builds fsbench and the driver
# from this checkout, and checks the targets: fsbench's median error at
# most 1.2x that of minimal-proc, the minimal blocking reader as a program
# of its own like every capture tool (the in-driver reader is shown beside
# it: it shares its process with the sender, so its wake-up skips the
# switch to another address space that any separate reader pays), its
# p99 under 5 ms in the loaded pass, its CPU time at most 1.3x that of
# minimal-proc in both passes, and under 0.4x grabserial's, at each
# pacing. The CPU ratios are taken run by run (the tools of a run follow
# each other, so a drift of the machine's load hits them alike); the check
# uses their median and prints their range. It exits non-zero when a run
# fails, not when a target is missed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
# shellcheck source-path=SCRIPTDIR source=../scripts/lib.sh
. "$repo/scripts/lib.sh"

runs=5 load=$(nproc) scale=1 fifos=1,16 keep=0 variants=() network=
while getopts "n:l:t:f:s:V:k" opt; do
	case $opt in
		n) runs=$OPTARG ;;
		l) load=$OPTARG ;;
		t) scale=$OPTARG ;;
		f) fifos=$OPTARG ;;
		s) network=$OPTARG ;;
		V) variants+=("$OPTARG") ;;
		k) keep=1 ;;
		*) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
	esac
done
if ! [[ $runs =~ ^[0-9]+$ ]] || [ "$runs" -lt 1 ]; then die "-n wants a number of runs, at least 1"; fi
if ! [[ $load =~ ^[0-9]+$ ]] || [ "$load" -lt 1 ]; then die "-l wants a number of processes, at least 1"; fi
if ! [[ $scale =~ ^[0-9]+(\.[0-9]+)?$ ]]; then die "-t wants a number, 0 or more"; fi
if ! [[ $fifos =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]]; then die "-f wants numbers of bytes per write, at least 1, separated by commas"; fi
IFS=, read -r -a pacings <<<"$fifos"

if [ -n "$network" ] && ! [[ $network =~ ^(rfc2217|telnet|tcp)(\+chardelay)?(,(rfc2217|telnet|tcp)(\+chardelay)?)*$ ]]; then
	die "-s wants rfc2217, telnet or tcp, each optionally with +chardelay, separated by commas"
fi

apt_install grabserial jq
[ -z "$network" ] || apt_install ser2net
ensure_go

bench_workdir capture-bench "$keep"

log "building fsbench and capturebench"
(cd "$repo" && go build -o "$work/bin/fsbench" ./cmd/fsbench &&
	go build -o "$work/bin/capturebench" ./capture/internal/capturebench)

# ---------------------------------------------------------------- machine
pkgver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo '?'; }
echo "== machine"
echo "cpus:    $(nproc) ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1))"
echo "memory:  $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
echo "system:  $(. /etc/os-release && echo "$PRETTY_NAME"), Linux $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo '?')"
echo "fsbench: $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown), $(go version | cut -d' ' -f3)"
echo "tools:   grabserial $(pkgver grabserial), python3-serial $(pkgver python3-serial), $(python3 --version 2>&1)${network:+, ser2net $(pkgver ser2net)}"
if chrt -f 1 true 2>/dev/null; then
	echo "priority: SCHED_FIFO allowed: minimal-rt runs real-time, fsbench's reading threads at nice -10"
else
	echo "priority: SCHED_FIFO not allowed (not root, no CAP_SYS_NICE): no minimal-rt; fsbench's reading threads at nice -10 if RLIMIT_NICE allows, else normal"
fi
echo "log:     bench/boot.log, $(grep -c '' "$here/boot.log") lines, $(stat -c %s "$here/boot.log") bytes, played at ${fifos//,/ and then } byte(s) per write"
echo

# ---------------------------------------------------------------- runs
# pass NAME LOAD FIFO: one pass of the driver; its table on stdout, the load
# average before and after.
vflags=()
for v in "${variants[@]}"; do
	name=${v%%=*} rest=${v#*=}
	if [ "$name" = "$v" ] || [ -z "$name" ] || [ -z "$rest" ]; then die "-V wants NAME=BINARY [FLAG...], got '$v'"; fi
	if [ "${rest%% *}" = fsbench ]; then rest="$work/bin/fsbench${rest#fsbench}"; fi
	vflags+=(-variant "$name=$rest")
done
[ -z "$network" ] || vflags+=(-network "$network")

pass() {
	local name=$1 k=$2 fifo=$3
	mkdir -p "$work/$name"
	local before after
	before=$(cut -d' ' -f1-3 /proc/loadavg)
	log "$name pass: $runs runs per tool, $k spinning processes, $fifo byte(s) per write"
	"$work/bin/capturebench" -log "$here/boot.log" -fsbench "$work/bin/fsbench" -grabserial "$(command -v grabserial)" \
		-n "$runs" -load "$k" -timescale "$scale" -fifo "$fifo" -json "$work/$name.json" -work "$work/$name" "${vflags[@]}" \
		>"$work/$name.table" 2>"$work/$name.log" || { cat "$work/$name.log" >&2; die "the $name pass failed"; }
	after=$(cut -d' ' -f1-3 /proc/loadavg)
	echo "== $name pass (load average before: $before; after: $after)"
	cat "$work/$name.table"
	echo "per run:"
	sed 's/^/  /' "$work/$name.log"
	echo
}
for f in "${pacings[@]}"; do
	pass "f$f-base" 0 "$f"
	pass "f$f-loaded" "$load" "$f"
done

# ---------------------------------------------------------------- checks
# fig PASS TOOL FIELD: a median figure of a tool from a pass's JSON.
fig() { jq -r --arg t "$2" ".tools[] | select(.name == \$t) | .median.$3" "$work/$1.json"; }
# ratios PASS A B: the run-by-run ratios of A's CPU time to B's, as
# "median min max".
ratios() {
	jq -r --arg a "$2" --arg b "$3" '
		(.tools[] | select(.name == $a) | .runs) as $x | (.tools[] | select(.name == $b) | .runs) as $y
		| [range(0; $x | length) | $x[.].cpu_s / $y[.].cpu_s] | sort
		| (if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end) as $m
		| "\($m) \(.[0]) \(.[-1])"' "$work/$1.json"
}
# check LABEL EXPR A B: prints the comparison and whether it holds (awk EXPR on a, b).
check() {
	local verdict
	verdict=$(awk -v a="$3" -v b="$4" "BEGIN {print (($2) ? \"met\" : \"NOT met\")}")
	printf '%-74s %s\n' "$1" "$verdict"
}
us() { awk -v s="$1" 'BEGIN {printf "%.1f µs", s * 1e6}'; }
x() { awk -v r="$1" 'BEGIN {printf "%.2fx", r}'; }

for f in "${pacings[@]}"; do
	echo "== targets, $f byte(s) per write"
	for p in base loaded; do
		e=$(fig "f$f-$p" fsbench median_s) m=$(fig "f$f-$p" minimal-proc median_s) i=$(fig "f$f-$p" minimal median_s)
		check "median error ($p): fsbench $(us "$e") <= 1.2 x minimal-proc $(us "$m")" 'a <= 1.2 * b' "$e" "$m"
		echo "(for reference: the in-driver reader, minimal, had $(us "$i"): fsbench $(awk -v a="$e" -v b="$i" 'BEGIN {printf "%.2f", a / b}')x, minimal-proc $(awk -v a="$m" -v b="$i" 'BEGIN {printf "%.2f", a / b}')x)"
	done
	for p in base loaded; do
		e=$(fig "f$f-$p" fsbench median_s) g=$(fig "f$f-$p" grabserial median_s)
		check "median error ($p): fsbench $(us "$e") < grabserial $(us "$g")" 'a < b' "$e" "$g"
	done
	v=$(fig "f$f-loaded" fsbench p99_s)
	check "p99 error (loaded): fsbench $(us "$v") < 5 ms" 'a < 0.005' "$v" 0
	for n in ${network//,/ }; do
		for p in base loaded; do
			echo "(through ser2net, $n, $p: median error $(us "$(fig "f$f-$p" "fsbench-$n" median_s)"), p99 $(us "$(fig "f$f-$p" "fsbench-$n" p99_s)"); on the pty: $(us "$(fig "f$f-$p" fsbench median_s)"), $(us "$(fig "f$f-$p" fsbench p99_s)"))"
		done
	done
	r=$(fig "f$f-loaded" minimal-rt p99_s)
	if [ -n "$r" ] && [ "$r" != null ]; then
		echo "(for reference: minimal-rt, a real-time reader in the driver, had a p99 of $(us "$r") in the loaded pass)"
	fi
	for p in base loaded; do
		read -r med lo hi <<<"$(ratios "f$f-$p" fsbench grabserial)"
		check "CPU ($p): fsbench < 0.4 x grabserial, run by run: $(x "$med") ($(x "$lo")-$(x "$hi"))" 'a < 0.4' "$med" 0
	done
	for p in base loaded; do
		read -r med lo hi <<<"$(ratios "f$f-$p" fsbench minimal-proc)"
		check "CPU ($p): fsbench <= 1.3 x minimal-proc, run by run: $(x "$med") ($(x "$lo")-$(x "$hi"))" 'a <= 1.3' "$med" 0
	done
	echo "(CPU medians over the runs: fsbench $(fig "f$f-base" fsbench cpu_s)s and $(fig "f$f-loaded" fsbench cpu_s)s, minimal-proc $(fig "f$f-base" minimal-proc cpu_s)s and $(fig "f$f-loaded" minimal-proc cpu_s)s, grabserial $(fig "f$f-base" grabserial cpu_s)s and $(fig "f$f-loaded" grabserial cpu_s)s, base and loaded)"
	echo
done
