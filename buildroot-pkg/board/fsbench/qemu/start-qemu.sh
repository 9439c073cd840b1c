#!/bin/sh
# Boots one variant that post-image.sh built on QEMU (q35 for a bzImage,
# virt for an arm64 Image) with the devices fsbench's QEMU target has: a
# virtio disk and an i6300esb watchdog that resets the machine. fsbench
# capture stamps the console and collects the runner's results until the
# runner reports its plan complete, reboots included, and ends by itself.
# The disk image is copied first, so the built one stays as it would be
# flashed.
#
# Two ways to boot:
#   direct  QEMU loads Buildroot's kernel with the variant's bootargs.txt
#           (and fsbench.finally=poweroff: the machine powers off at the
#           end);
#   uboot   Buildroot's U-Boot (BINARIES_DIR/u-boot.bin) is the machine's
#           firmware and boots the disk alone, from the extlinux.conf
#           fsbench put on it, as a flashed board boots; the machine stays
#           on at the end, as a board does, and is stopped once capture
#           has the whole plan.
# The default is uboot when BINARIES_DIR has u-boot.bin, direct otherwise.
#
# Usage: start-qemu.sh [-b direct|uboot] BINARIES_DIR [VARIANT]
# Writes BINARIES_DIR/fsbench/VARIANT/run/: console.log (stamped),
# console.raw and results.jsonl. Exits with capture's code: 0 when the
# plan completed, 12 when a boot could not go on, 13 when the console
# ended before the plan completed.
set -eu

die() {
	printf 'start-qemu: %s\n' "$*" >&2
	exit 1
}

boot=
if [ "${1:-}" = -b ]; then
	[ $# -ge 2 ] || die "usage: $0 [-b direct|uboot] BINARIES_DIR [VARIANT]"
	boot=$2
	shift 2
fi
[ $# -ge 1 ] || die "usage: $0 [-b direct|uboot] BINARIES_DIR [VARIANT]"
images=$1
host=${HOST_DIR:-$images/../host}
variant=${2:-}
if [ -z "$variant" ]; then
	for d in "$images"/fsbench/*/; do
		if [ -d "$d" ]; then
			variant=$(basename "$d")
			break
		fi
	done
fi
vdir=$images/fsbench/$variant
if [ -z "$variant" ] || [ ! -f "$vdir/bootargs.txt" ]; then
	die "no variant ${variant:-at all} in $images/fsbench: run the Buildroot build first"
fi

disk=
for f in "$vdir"/*.img; do
	[ -f "$f" ] || continue
	[ -z "$disk" ] || die "$vdir has several images; this script boots single-disk specs"
	disk=$f
done
[ -n "$disk" ] || die "no disk image in $vdir"

accel=tcg
if [ -w /dev/kvm ]; then
	accel=kvm
fi
if [ -f "$images/bzImage" ]; then
	kernel=$images/bzImage
	qemu="qemu-system-x86_64"
	cpu=max
	set -- -M q35
elif [ -f "$images/Image" ]; then
	kernel=$images/Image
	qemu="qemu-system-aarch64"
	cpu=cortex-a57
	set -- -M virt
else
	die "no bzImage or Image in $images"
fi
[ "$accel" = kvm ] && cpu=host
if [ -z "$boot" ]; then
	boot=direct
	[ -f "$images/u-boot.bin" ] && boot=uboot
fi
case $boot in
direct) set -- "$@" -kernel "$kernel" -append "$(cat "$vdir/bootargs.txt") fsbench.finally=poweroff" ;;
uboot)
	[ -f "$images/u-boot.bin" ] || die "no u-boot.bin in $images: build a defconfig with U-Boot, or boot with -b direct"
	[ "$qemu" = qemu-system-aarch64 ] || [ "${qemu##*/}" = qemu-system-aarch64 ] || die "-b uboot boots the arm64 board's U-Boot (virt); this build has a bzImage"
	set -- "$@" -bios "$images/u-boot.bin"
	;;
*) die "-b $boot: use direct or uboot" ;;
esac
if [ -x "$host/bin/$qemu" ]; then
	qemu=$host/bin/$qemu
fi
fsbench=fsbench
if [ -x "$host/bin/fsbench" ]; then
	fsbench=$host/bin/fsbench
fi

run=$vdir/run
rm -rf "$run"
mkdir -p "$run"
cp --sparse=always "$disk" "$run/disk.img"
sock=$run/console.sock

"$qemu" "$@" -accel "$accel" -cpu "$cpu" -m 512 -nographic -nodefaults -no-user-config \
	-drive "file=$run/disk.img,format=raw,if=none,id=disk0" -device virtio-blk-pci,drive=disk0 \
	-device i6300esb -action watchdog=reset \
	-chardev "socket,id=console,path=$sock,server=on,wait=on" -serial chardev:console &
qemu_pid=$!
trap 'kill "$qemu_pid" 2>/dev/null || true' EXIT
while [ ! -S "$sock" ]; do
	kill -0 "$qemu_pid" 2>/dev/null || die "$qemu did not start"
	sleep 0.2
done
# capture ends by itself once the runner reports its plan complete; its
# exit code is kept past tee.
{
	rc=0
	"$fsbench" capture -unix "$sock" -build "$vdir" -log "$run/console.raw" -results "$run/results.jsonl" || rc=$?
	echo "$rc" >"$run/capture.rc"
} | tee "$run/console.log"
rc=$(cat "$run/capture.rc")
rm -f "$run/capture.rc"
if [ "$boot" = direct ] && [ "$rc" -eq 0 ]; then
	# The runner powers the machine off after the plan.
	wait "$qemu_pid" || true
fi
exit "$rc"
