#!/usr/bin/env bash
# The whole ELC 2015 study in QEMU, unattended: every variant of
# examples/elc2015.fsb.hcl (ext4, btrfs, f2fs, xfs and nilfs2, each plain
# and tuned to the erase block) with every test of the spec, at the reduced
# sizes and counts of docs/examples.md; then the report, and where the time
# went: each variant's wall time and build, and per test the time its
# results took, summed over the variants, slowest first.
#
# Usage: scripts/elc2015.sh [-j N] [-o DIR] [extra fsbench run flags]
#   -j N    variants run at once (default 2: one per core of a 2-core
#           machine, each guest with one vCPU)
#   -o DIR  output directory (default out/elc2015): DIR/<variant>/ and
#           DIR/report/report.html
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

jobs=2 out=out/elc2015
while getopts "j:o:" opt; do
	case $opt in
		j) jobs=$OPTARG ;;
		o) out=$OPTARG ;;
		*) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "-j wants a number of variants, at least 1"

apt_install "${FSBENCH_TOOL_PACKAGES[@]}" jq
scripts/install.sh bin

# The short form of docs/examples.md, for every variant.
short=(
	-var target=qemu
	-var bench_size=320MiB -var fio_size=8MiB -var fio_nrfiles=2 -var fio_runtime=2s
	-var 'fio_bs=["4MiB"]' -var kthread_io_size=16MiB
	-var boot_iterations=2 -var mount_iterations=2 -var fill_percent=20 -var fsck_iterations=2
	-var power_loss_iterations=2 -var power_cut_after=5s
	-var dm_flakey_iterations=1 -var flakey_after=0s -var flakey_flap_up=0s -var flakey_file_size=8MiB -var flakey_small_files=8
)
log "running the ten variants of the ELC 2015 study, $jobs at a time (results in $out/<variant>/run/)"
mkdir -p "$out"
start=$SECONDS
status=0
FSBENCH_LOG=${FSBENCH_LOG:-info} bin/fsbench run -j "$jobs" -o "$out" "${short[@]}" "$@" examples/elc2015.fsb.hcl | tee "$out/table.txt" || status=$?
wall=$((SECONDS - start))
if bin/fsbench report -spec examples/elc2015.fsb.hcl -o "$out/report" "$out" >/dev/null; then
	log "report: $out/report/report.html (and report.md)"
fi

echo
printf 'The study took %dm%02ds with -j %s.\n' $((wall / 60)) $((wall % 60)) "$jobs"
echo
echo "Time in each test's results, summed over the variants (the rest of a variant's time is its build, boots and reboots):"
shopt -s nullglob
results=("$out"/*/run/results.jsonl)
if [ ${#results[@]} -gt 0 ]; then
	jq -rs '
		map(select(.recipe != null and .end_ns != null and .start_ns != null))
		| group_by(.recipe + "." + .name)
		| map({test: (.[0].recipe + "." + .[0].name), s: (map(.end_ns - .start_ns) | add / 1e9), n: length})
		| sort_by(-.s)[]
		| "  \(.test)\t\(.s | floor)s\t(\(.n) results)"' "${results[@]}" | column -t -s $'\t'
fi
exit "$status"
