#!/usr/bin/env bash
# Benchmark: time to the prompt through U-Boot against a direct boot, on
# the same image, per architecture, in QEMU under TCG.
#
# Usage: bench/boot-uboot-vs-direct.sh [-n BOOTS] [-a ARCHS] [-k]
#   -n BOOTS  boot_time iterations per run (default 6, at least 3); the
#             first boot of each run is left out (below)
#   -a ARCHS  the architectures, comma-separated (default x86_64,arm64,arm)
#   -k        keep the work directory and print its path
#
# For each architecture it writes one spec (a busybox root and an empty
# ext4 partition, boot files in the root's /boot: boot.scr on x86_64,
# whose U-Boot cannot pass an initrd from extlinux.conf, extlinux.conf on
# arm64 and arm), and runs it twice with `fsbench run`, each building the
# same image:
# `-boot direct` (QEMU loads the kernel and initramfs, -append) and
# `-boot uboot` (Debian's u-boot-qemu, the disk alone). Both boot the same
# kernel, initramfs and command line. It prints, per architecture and
# boot path, the median over the boots of host_power_on (from the reset,
# the previous boot's "reboot: Restarting system" line, to the login
# prompt, host clock) and the median of each phase, then the ratio of the
# medians. The first boot of a run is left out: it has no reset line, and
# starts at its first byte, which a direct boot prints only once the
# kernel's console runs.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
# shellcheck source-path=SCRIPTDIR source=../scripts/lib.sh
. "$repo/scripts/lib.sh"

boots=6 archs=x86_64,arm64,arm keep=0
while getopts "n:a:k" opt; do
	case $opt in
		n) boots=$OPTARG ;;
		a) archs=$OPTARG ;;
		k) keep=1 ;;
		*) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
	esac
done
if ! [[ $boots =~ ^[0-9]+$ ]] || [ "$boots" -lt 3 ]; then die "-n wants a number of boots, at least 3"; fi

apt_install "${FSBENCH_TOOL_PACKAGES[@]}" python3
ensure_foreign_archs
ensure_go

bench_workdir boot "$keep"

log "building fsbench and the runners"
(
	cd "$repo"
	go build -o "$work/bin/fsbench" ./cmd/fsbench
	for a in amd64 arm64 arm; do
		CGO_ENABLED=0 GOARCH=$a go build -trimpath -o "$work/bin/fsbench-runner-$a" ./cmd/fsbench-runner
	done
)

IFS=, read -ra list <<<"$archs"
for a in "${list[@]}"; do
	case $a in
		x86_64) console=ttyS0 loader=uboot ;;
		arm64 | arm) console=ttyAMA0 loader=extlinux ;;
		*) die "architecture $a: want x86_64, arm64 or arm" ;;
	esac
	spec=$work/$a.fsb.hcl
	cat >"$spec" <<EOF
board "qemu-$a" {
  arch       = "$a"
  console    = "$console,115200n8"
  storage    = "vda"
  bootloader = "$loader"
  boot {}
}

image "disk" {
  table = "gpt"
  size  = "192MiB"

  partition "rootfs" {
    size = "96MiB"
    root = true
    filesystem {
      type  = "ext4"
      mount = ["noatime"]
    }
    contents { userland = "busybox" }
  }
  partition "bench" {
    grow = true
    filesystem { type = "ext4" }
  }
}

test "boot_time" "rootfs" { iterations = $boots }
EOF
	for boot in direct uboot; do
		log "$a: $boots boots, -boot $boot"
		"$work/bin/fsbench" run -boot "$boot" -o "$work/out-$a-$boot" "$spec" >"$work/$a-$boot.log" 2>&1 ||
			{ tail -20 "$work/$a-$boot.log" >&2; die "$a -boot $boot failed (log above)"; }
	done
done

python3 - "$work" "${list[@]}" <<'EOF'
import json, statistics, sys
work, archs = sys.argv[1], sys.argv[2:]
phases = ["firmware", "bootloader", "kernel_load", "kernel", "init", "userspace"]
def boots(path):
    out = []
    for line in open(path):
        r = json.loads(line)
        if r["recipe"] == "boot_time" and r["status"] == "ok" and r["iter"] > 1:
            out.append({m["name"]: m["value"] for m in r["metrics"]})
    return out
print("%-7s %-7s %5s %9s  %s" % ("arch", "boot", "n", "to prompt", "median of each phase (s) and its share of the median boot"))
for a in archs:
    med = {}
    for boot in ("direct", "uboot"):
        bs = boots(f"{work}/out-{a}-{boot}/default/run/results.jsonl")
        total = statistics.median(b["host_power_on"] for b in bs)
        med[boot] = total
        parts = []
        for p in phases:
            vals = [b.get("phase_" + p, 0.0) for b in bs]
            if any(vals):
                m = statistics.median(vals)
                parts.append("%s %.2f (%.0f%%)" % (p, m, 100 * m / total))
        print("%-7s %-7s %5d %8.2fs  %s" % (a, boot, len(bs), total, ", ".join(parts)))
    print("%-7s U-Boot/direct: %.2fx" % (a, med["uboot"] / med["direct"]))
EOF
