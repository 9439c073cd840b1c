#!/bin/sh
# Boots one variant that post-image.sh built, with Buildroot's kernel, on
# QEMU (q35 for a bzImage, virt for an arm64 Image) with the devices
# fsbench's QEMU target has: a virtio disk and an i6300esb watchdog that
# resets the machine. fsbench capture stamps the console and collects the
# runner's results until the runner has worked through the whole plan,
# reboots included, and powers the machine off (fsbench.finally=poweroff).
# The disk image is copied first, so the built one stays as it would be
# flashed.
#
# Usage: start-qemu.sh BINARIES_DIR [VARIANT]
# Writes BINARIES_DIR/fsbench/VARIANT/run/: console.log (stamped),
# console.raw and results.jsonl.
set -eu

die() {
	printf 'start-qemu: %s\n' "$*" >&2
	exit 1
}

[ $# -ge 1 ] || die "usage: $0 BINARIES_DIR [VARIANT]"
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
append="$(cat "$vdir/bootargs.txt") fsbench.finally=poweroff"

"$qemu" "$@" -accel "$accel" -cpu "$cpu" -m 512 -nographic -nodefaults -no-user-config \
	-kernel "$kernel" -append "$append" \
	-drive "file=$run/disk.img,format=raw,if=none,id=disk0" -device virtio-blk-pci,drive=disk0 \
	-device i6300esb -action watchdog=reset \
	-chardev "socket,id=console,path=$sock,server=on,wait=on" -serial chardev:console &
qemu_pid=$!
while [ ! -S "$sock" ]; do
	kill -0 "$qemu_pid" 2>/dev/null || die "$qemu did not start"
	sleep 0.2
done
"$fsbench" capture -unix "$sock" -log "$run/console.raw" -results "$run/results.jsonl" | tee "$run/console.log"
wait "$qemu_pid"
