#!/usr/bin/env bash
# Benchmark: `fsbench build` against Debian's genimage 16 on the same
# reference card (bench/reference.fsb.hcl and bench/genimage.cfg): a 2GiB
# MBR image with vfat boot (one 8MiB kernel-like file), ext4 rootfs (a
# busybox tree padded to ~15MB), empty f2fs data and empty btrfs extra.
#
# Usage: bench/build-vs-genimage.sh [-n RUNS] [-c] [-k] [-p] [-V NAME=FSBENCH]...
#   -n RUNS  timed runs per tool, alternating (default 5, at least 3)
#   -c       drop the page cache (sync; echo 3 > drop_caches) before every
#            timed run; by default the cache is warm (only `sync` between runs)
#   -k       keep the work directory and print its path
#   -V NAME=FSBENCH
#            also time another fsbench binary (an older build, say) in the
#            same alternation, reported as NAME beside this checkout's
#   -p       after the timed runs, profile two more fsbench builds: a
#            timeline of every tool it runs and of its own phases (strace;
#            FSBENCH_LOG=debug names the steps but has no timestamps), and
#            perf record: CPU samples by command, symbol and fsbench function
#
# Runs as root (genimage and fsbench run as root; dropping the cache needs
# it). Installs what it needs with apt-get, builds fsbench from this
# checkout, prints the wall time, CPU time, max RSS and allocated bytes of
# both tools, the ratio fsbench/genimage of the median wall times, and
# whether the project's target is met (fsbench at most 0.5x genimage's wall
# time, no more allocated bytes). It exits non-zero when a build or a check
# fails, not when the target is missed.
#
# The timed section of fsbench is `fsbench build` alone. The timed section
# of genimage is `truncate + mkfs.btrfs` (genimage 16 has no btrfs; the
# same mkfs.btrfs argv that `fsbench plan -json` gives) followed by
# `genimage`. /usr/bin/time measures each: %e wall seconds, %U+%S CPU
# seconds, %M the largest RSS of the process or any child it waited for.
# The outputs of every run but the first (which is checked) are removed
# once measured: left in the page cache, they made the later runs of a
# warm batch slower for both tools.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
# shellcheck source-path=SCRIPTDIR source=../scripts/lib.sh
. "$repo/scripts/lib.sh"

runs=5 drop=0 keep=0 profile=0
declare -A others # NAME -> another fsbench binary
while getopts "n:ckpV:" opt; do
	case $opt in
		n) runs=$OPTARG ;;
		c) drop=1 ;;
		k) keep=1 ;;
		p) profile=1 ;;
		V)
			name=${OPTARG%%=*} bin=${OPTARG#*=}
			[[ $OPTARG == *=* && $name =~ ^[a-z0-9_-]+$ && $name != fsbench && $name != genimage ]] ||
				die "-V wants NAME=FSBENCH, NAME of a-z 0-9 _ - other than fsbench and genimage: $OPTARG"
			[ -x "$bin" ] || die "-V $name: $bin is not an executable"
			others[$name]=$(realpath "$bin")
			;;
		*) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
	esac
done
if ! [[ $runs =~ ^[0-9]+$ ]] || [ "$runs" -lt 3 ]; then die "-n wants a number of runs, at least 3"; fi
[ "$(id -u)" -eq 0 ] || die "run as root: the benchmark runs genimage and fsbench as root"

apt_install genimage time fakeroot tar e2fsprogs btrfs-progs f2fs-tools dosfstools mtools \
	fdisk util-linux openssl jq
[ "$profile" -eq 0 ] || apt_install strace linux-perf
ensure_go

bench_workdir bench "$keep"

export SOURCE_DATE_EPOCH=1700000000
fsbench=$work/bin/fsbench
inputs=$work/inputs
spec=$here/reference.fsb.hcl
cfg=$here/genimage.cfg

log "building fsbench"
(cd "$repo" && go build -o "$fsbench" ./cmd/fsbench)

# ---------------------------------------------------------------- inputs
# stream FILE SIZE IV: SIZE bytes of AES-128-CTR keystream under a fixed
# key, the same on every machine.
stream() {
	head -c "$2" < <(openssl enc -aes-128-ctr -nosalt -K 6673626e656e63682d62656e63682d31 \
		-iv "$3" -in /dev/zero 2>/dev/null) >"$1"
	[ "$(stat -c %s "$1")" -eq "$(numfmt --from=iec "$2")" ] || die "short stream for $1"
}

log "generating the inputs in $inputs"
mkdir -p "$inputs/rootfs" "$work/deb"
stream "$inputs/zImage" 8M 00000000000000000000000000000001
(
	cd "$work/deb"
	apt-get download busybox-static >/dev/null 2>&1 || { apt-get update -qq && apt-get download busybox-static >/dev/null; }
	dpkg -x busybox-static_*.deb x
)
busybox_deb=$(basename "$work"/deb/busybox-static_*.deb)
root=$inputs/rootfs
install -D -m 0755 "$work/deb/x/bin/busybox" "$root/bin/busybox"
# One symlink per applet, where busybox --install would put it.
"$root/bin/busybox" --list-full | while read -r p; do
	[ "$p" = bin/busybox ] && continue
	mkdir -p "$root/$(dirname "$p")"
	ln -s /bin/busybox "$root/$p"
done
mkdir -p "$root"/{etc,dev,proc,sys,tmp,root,mnt,usr/share/data}
chmod 1777 "$root/tmp"
chmod 0700 "$root/root"
printf 'reference\n' >"$root/etc/hostname"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"
# Padding to ~15MB: 4 x 2MiB, 8 x 512KiB, 64 x 16KiB of keystream.
# Each file has its own IV, so no two are alike.
n=16
pad() { stream "$root/usr/share/data/$1.bin" "$2" "$(printf '%032x' "$n")"; n=$((n + 1)); }
for i in 1 2 3 4; do pad "big-$i" 2M; done
for i in 1 2 3 4 5 6 7 8; do pad "mid-$i" 512K; done
for i in $(seq -w 1 64); do pad "small-$i" 16K; done
chown -R 0:0 "$root"
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
touch -d "@$SOURCE_DATE_EPOCH" "$inputs/zImage"
tree_bytes=$(du -sb "$root" | cut -f1)
tree_files=$(find "$root" -type f | wc -l)
tree_links=$(find "$root" -type l | wc -l)
log "rootfs tree: $tree_bytes bytes, $tree_files files, $tree_links symlinks (busybox from $busybox_deb)"

# The btrfs image genimage is given: fsbench's own mkfs.btrfs argv.
mapfile -t btrfs_argv < <("$fsbench" plan -json -root "$inputs" -var "inputs=$inputs" "$spec" |
	jq -r '.variants[0].images[0].partitions[] | select(.name == "extra") | .filesystem.mkfs.Argv[] | select(. != "{image}")')
if [ "${#btrfs_argv[@]}" -lt 2 ] || [ "${btrfs_argv[0]}" != mkfs.btrfs ]; then
	die "no mkfs.btrfs argv for partition extra in the plan"
fi
btrfs_size=$("$fsbench" plan -json -root "$inputs" -var "inputs=$inputs" "$spec" |
	jq -r '.variants[0].images[0].partitions[] | select(.name == "extra") | .size')

# ---------------------------------------------------------------- machine
pkgver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo '?'; }
# pressure: the share of time some task waited for a CPU and for I/O over
# the last minute (PSI), when the kernel reports it.
pressure() {
	[ -r /proc/pressure/cpu ] || return 0
	printf '; waiting for CPU %s%%, for I/O %s%% of the last minute' \
		"$(sed -n 's/^some .*avg60=\([0-9.]*\).*/\1/p' /proc/pressure/cpu)" \
		"$(sed -n 's/^some .*avg60=\([0-9.]*\).*/\1/p' /proc/pressure/io)"
}
src=$(findmnt -n -o SOURCE -T "$work" | head -1)
echo "== machine"
echo "cpus:    $(nproc) ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1))"
echo "memory:  $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
echo "disk:    $src $(findmnt -n -o FSTYPE -T "$work") ($(lsblk -d -n -o ROTA,SIZE "$src" 2>/dev/null | awk '{print ($1 ? "rotational" : "non-rotational") ", " $2}')); work dir $work"
echo "system:  $(. /etc/os-release && echo "$PRETTY_NAME"), Linux $(uname -r)"
echo "fsbench: $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown), $(go version | cut -d' ' -f3)"
echo "tools:   genimage $(pkgver genimage), e2fsprogs $(pkgver e2fsprogs), btrfs-progs $(pkgver btrfs-progs), f2fs-tools $(pkgver f2fs-tools), dosfstools $(pkgver dosfstools), mtools $(pkgver mtools), fakeroot $(pkgver fakeroot), tar $(pkgver tar), $busybox_deb"
echo "inputs:  zImage 8MiB; rootfs $tree_bytes bytes, $tree_files files, $tree_links symlinks; SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH"
# fsbench makes the filesystem images in /dev/shm when it is a tmpfs with room.
echo "scratch: /dev/shm $(stat -f -c %T /dev/shm 2>/dev/null || echo missing), $(df -B1M --output=avail /dev/shm 2>/dev/null | tail -1 | tr -d ' ') MiB free"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (loadavg before the runs)$(pressure)"
echo

# ---------------------------------------------------------------- runs
mkdir -p "$work/runs" "$work/times"

settle() {
	sync
	if [ "$drop" -eq 1 ]; then echo 3 >/proc/sys/vm/drop_caches; fi
}

# measured TOOL I IMAGE: records the allocated bytes of run I's image,
# then removes the run's outputs unless they are the first run's.
measured() {
	du -B1 "$3" | cut -f1 >"$work/times/$1-$2.alloc"
	if [ "$2" -gt 1 ]; then rm -rf "$work/runs/$1-$2"; fi
}

# run_fsbench I [NAME]: one timed fsbench build into runs/NAME-I, with this
# checkout's binary or the one -V gave NAME.
run_fsbench() {
	local name=${2:-fsbench} bin=$fsbench
	if [ -n "${2:-}" ]; then bin=${others[$2]}; fi
	local dir=$work/runs/$name-$1
	mkdir -p "$dir"
	settle
	/usr/bin/time -f '%e %M %U %S' -o "$work/times/$name-$1" \
		"$bin" build -o "$dir/out" -root "$inputs" -var "inputs=$inputs" "$spec" \
		>"$dir/log" 2>&1 || { cat "$dir/log" >&2; die "$name build failed (run $1)"; }
	if [ "$name" = fsbench ]; then img_fsbench[$1]=$dir/out/default/card.img; fi
	measured "$name" "$1" "$dir/out/default/card.img"
}

# run_genimage I: one timed mkfs.btrfs + genimage into runs/genimage-I.
run_genimage() {
	local dir=$work/runs/genimage-$1
	mkdir -p "$dir/input" "$dir/out"
	ln "$inputs/zImage" "$dir/input/zImage"
	settle
	# shellcheck disable=SC2016 # the inner script expands its own arguments
	/usr/bin/time -f '%e %M %U %S' -o "$work/times/genimage-$1" \
		bash -c 'set -e
			truncate -s "$1" "$2/input/extra.btrfs"
			"${@:6}" "$2/input/extra.btrfs" >/dev/null
			genimage --config "$3" --rootpath "$4" --inputpath "$2/input" \
				--outputpath "$2/out" --tmppath "$2/tmp" --loglevel "$5"' \
		_ "$btrfs_size" "$dir" "$cfg" "$root" 1 "${btrfs_argv[@]}" \
		>"$dir/log" 2>&1 || { cat "$dir/log" >&2; die "genimage failed (run $1)"; }
	img_genimage[$1]=$dir/out/card.img
	measured genimage "$1" "$dir/out/card.img"
}

declare -a img_fsbench img_genimage
# One untimed build of each first: both tools' binaries and inputs are in
# the page cache, and fsbench has the tool versions it caches (in
# $FSBENCH_CACHE) from then on, as on any machine after its first build.
export FSBENCH_CACHE=$work/cache
log "warming up: one untimed build of each"
run_fsbench 0
for name in "${!others[@]}"; do run_fsbench 0 "$name"; done
run_genimage 0
log "timing $runs runs per tool, alternating; page cache $([ "$drop" -eq 1 ] && echo dropped || echo warm) before each run"
for i in $(seq 1 "$runs"); do
	cut -d' ' -f1 /proc/loadavg >"$work/times/load-$i"
	if [ $((i % 2)) -eq 1 ]; then
		run_fsbench "$i"
		for name in "${!others[@]}"; do run_fsbench "$i" "$name"; done
		run_genimage "$i"
	else
		run_genimage "$i"
		for name in "${!others[@]}"; do run_fsbench "$i" "$name"; done
		run_fsbench "$i"
	fi
	line="run $i: fsbench $(cut -d' ' -f1 "$work/times/fsbench-$i")s"
	for name in "${!others[@]}"; do line+=", $name $(cut -d' ' -f1 "$work/times/$name-$i")s"; done
	log "$line, genimage $(cut -d' ' -f1 "$work/times/genimage-$i")s"
done
sync

# ---------------------------------------------------------------- checks
# Outside the timing, on the first run of each tool: the same partition
# table, filesystems that pass their checkers, the same types, labels,
# sizes and contents.
log "checking the outputs of run 1"
chk=$work/check
mkdir -p "$chk"
fail() { printf 'CHECK FAILED: %s\n' "$*" >&2; exit 1; }
# tree_listing: "type mode uid:gid size path" of every entry of the input
# tree but its root (size "-" for directories), sorted.
tree_listing() {
	(cd "$root" && find . -mindepth 1 -printf '%y %m %U:%G %s %P\n') |
		awk '$1 == "d" {$4 = "-"} {print}' | LC_ALL=C sort
}
# ext4_listing IMAGE: the same listing of an ext4 image, from debugfs
# `ls -p` of every directory of the input tree; lost+found is left out.
ext4_listing() {
	(cd "$root" && find . -type d -printf 'ls -p /%P\n') >"$chk/ls.debugfs"
	debugfs -f "$chk/ls.debugfs" "$1" 2>/dev/null | awk -F/ '
		/^debugfs: ls -p / {dir = substr($0, 17); if (dir != "") dir = dir "/"; next}
		NF >= 7 && $6 != "." && $6 != ".." && dir $6 != "lost+found" {
			t = substr($3, 1, 2); m = substr($3, 3); sub(/^0+/, "", m)
			y = (t == "04") ? "d" : (t == "10") ? "f" : (t == "12") ? "l" : "?"
			print y, m, $4 ":" $5, (y == "d") ? "-" : $7, dir $6
		}' | LC_ALL=C sort
}

for tool in fsbench genimage; do
	if [ $tool = fsbench ]; then img=${img_fsbench[1]}; else img=${img_genimage[1]}; fi
	d=$chk/$tool
	mkdir -p "$d"
	[ "$(stat -c %s "$img")" -eq $((2 << 30)) ] || fail "$tool: $img is not 2GiB"
	sfdisk -d "$img" | sed "s|$img|card.img|g" >"$d/sfdisk"
	# Each partition into a file of its own, keeping holes.
	sfdisk -J "$img" | jq -r '.partitiontable.partitions[] | "\(.start) \(.size)"' >"$d/parts"
	k=0
	while read -r start size; do
		k=$((k + 1))
		dd if="$img" of="$d/p$k" bs=1M iflag=skip_bytes,count_bytes skip=$((start * 512)) \
			count=$((size * 512)) conv=sparse status=none
	done <"$d/parts"
	[ "$k" -eq 4 ] || fail "$tool: $k partitions, not 4"
	fsck.vfat -n "$d/p1" >"$d/fsck1" 2>&1 || fail "$tool: fsck.vfat: $(cat "$d/fsck1")"
	e2fsck -fn "$d/p2" >"$d/fsck2" 2>&1 || fail "$tool: e2fsck: $(cat "$d/fsck2")"
	fsck.f2fs --dry-run "$d/p3" >"$d/fsck3" 2>&1 || fail "$tool: fsck.f2fs: $(tail -5 "$d/fsck3")"
	btrfs check --readonly "$d/p4" >"$d/fsck4" 2>&1 || fail "$tool: btrfs check: $(cat "$d/fsck4")"
	for k in 1 2 3 4; do
		blkid -p -o export "$d/p$k" | grep -E '^(TYPE|LABEL|BLOCK_SIZE|FSSIZE)=' | tr '\n' ' '
		echo
	done >"$d/blkid"
	# Contents: the vfat file and the ext4 tree, as listings and as bytes.
	TZ=UTC MTOOLS_SKIP_CHECK=1 mdir -b -i "$d/p1" ::/ | sed 's|^::/||' >"$d/vfat.list"
	TZ=UTC MTOOLS_SKIP_CHECK=1 mcopy -i "$d/p1" ::/zImage "$d/zImage"
	cmp "$d/zImage" "$inputs/zImage" || fail "$tool: /zImage on vfat differs from the input"
	# Bytes and symlink targets through rdump (which does not restore
	# setuid, setgid or sticky bits); types, modes, owners and sizes
	# through debugfs ls -p.
	mkdir "$d/rootfs"
	debugfs -R "rdump / $d/rootfs" "$d/p2" >/dev/null 2>&1
	rm -rf "$d/rootfs/lost+found"
	diff -r --no-dereference "$root" "$d/rootfs" >"$d/diff" || fail "$tool: ext4 contents differ from the input: $(head "$d/diff")"
	ext4_listing "$d/p2" >"$d/tree"
	dumpe2fs -h "$d/p2" 2>/dev/null | grep -E '^(Block count|Block size|Inode count|Inode size|Filesystem features|Journal size):' >"$d/ext4"
	btrfs inspect-internal dump-super "$d/p4" | grep -E '^(total_bytes|sectorsize|nodesize|label)' >"$d/btrfs"
done
tree_listing >"$chk/input.tree"
for f in sfdisk blkid vfat.list; do
	cmp -s "$chk/fsbench/$f" "$chk/genimage/$f" || fail "$f differs: $(diff "$chk/fsbench/$f" "$chk/genimage/$f")"
done
for tool in fsbench genimage; do
	cmp -s "$chk/input.tree" "$chk/$tool/tree" || fail "$tool: ext4 modes or owners differ from the input: $(diff "$chk/input.tree" "$chk/$tool/tree" | head)"
done
cmp -s "$chk/fsbench/btrfs" "$chk/genimage/btrfs" || fail "btrfs superblocks differ: $(diff "$chk/fsbench/btrfs" "$chk/genimage/btrfs")"

echo "== partition table (both tools, identical)"
cat "$chk/fsbench/sfdisk"
echo "== filesystems (blkid -p of each partition; identical)"
cat "$chk/fsbench/blkid"
echo "== ext4 (dumpe2fs -h): fsbench | genimage"
paste -d'|' "$chk/fsbench/ext4" "$chk/genimage/ext4"
echo "== contents: vfat /zImage and the ext4 tree ($tree_files files, $tree_links symlinks, $tree_bytes bytes) match the inputs in both; all four checkers pass in both"

# ---------------------------------------------------------------- report
# stats FILE...: median min max of one column of numbers on stdin.
stats() { sort -g | awk '{v[NR]=$1} END {m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%s %s %s\n", m, v[1], v[NR]}'; }
col() { for i in $(seq 1 "$runs"); do awk -v c="$2" '{print $c}' "$work/times/$1-$i"; done; }
cpu() { for i in $(seq 1 "$runs"); do awk '{printf "%.2f\n", $3+$4}' "$work/times/$1-$i"; done; }
alloc() { for i in $(seq 1 "$runs"); do cat "$work/times/$1-$i.alloc"; done; }

echo
echo "== $runs runs per tool, alternating, page cache $([ "$drop" -eq 1 ] && echo "dropped before each run" || echo "warm (sync between runs)")"
printf '%-9s %-26s %-26s %-28s %s\n' tool "wall s (median min-max)" "CPU s user+sys (median)" "max RSS KiB (median max)" "allocated bytes (median; apparent)"
declare -A med
for tool in fsbench "${!others[@]}" genimage; do
	read -r wm wl wh < <(col "$tool" 1 | stats)
	read -r cm _ _ < <(cpu "$tool" | stats)
	read -r rm _ rh < <(col "$tool" 2 | stats)
	read -r am al ah < <(alloc "$tool" | stats)
	case $tool in
		fsbench) img=${img_fsbench[1]} ;;
		genimage) img=${img_genimage[1]} ;;
		*) img=$work/runs/$tool-1/out/default/card.img ;;
	esac
	apparent=$(du -B1 --apparent-size "$img" | cut -f1)
	med[$tool]=$wm med[$tool.alloc]=$am
	printf '%-9s %-26s %-26s %-28s %s\n' "$tool" "$wm ($wl-$wh)" "$cm" "$rm (max $rh)" "$am ($al-$ah); $apparent"
done
ratio=$(awk -v a="${med[fsbench]}" -v b="${med[genimage]}" 'BEGIN {printf "%.2f", a / b}')
echo
echo "wall-time ratio fsbench/genimage (medians): ${ratio}x   (target: at most 0.50x)"
for name in "${!others[@]}"; do
	echo "wall-time ratio $name/genimage: $(awk -v a="${med[$name]}" -v b="${med[genimage]}" 'BEGIN {printf "%.2f", a / b}')x; fsbench/$name: $(awk -v a="${med[fsbench]}" -v b="${med[$name]}" 'BEGIN {printf "%.2f", a / b}')x"
done
time_ok=$(awk -v r="$ratio" 'BEGIN {print (r <= 0.5) ? "met" : "NOT met"}')
alloc_ok=$([ "${med[fsbench.alloc]}" -le "${med[genimage.alloc]}" ] && echo met || echo "NOT met")
echo "target wall time: $time_ok; target allocated bytes (fsbench median ${med[fsbench.alloc]} <= genimage median ${med[genimage.alloc]}): $alloc_ok"
echo "load: 1-minute loadavg at the start of the runs $(for i in $(seq 1 "$runs"); do cat "$work/times/load-$i"; done | stats |
	awk '{print "median " $1 " (" $2 "-" $3 ")"}'), $(cut -d' ' -f1-3 /proc/loadavg) after them$(pressure)"
echo "raw times (wall s, max RSS KiB, user s, sys s):"
for i in $(seq 1 "$runs"); do
	line=$(printf '  run %d  fsbench %-28s' "$i" "$(cat "$work/times/fsbench-$i")")
	for name in "${!others[@]}"; do line+=$(printf ' %s %-28s' "$name" "$(cat "$work/times/$name-$i")"); done
	printf '%s genimage %-24s load %s\n' "$line" "$(cat "$work/times/genimage-$i")" "$(cat "$work/times/load-$i")"
done

# ---------------------------------------------------------------- profile
# One more fsbench build under strace: when each tool it runs starts and
# how long it takes, and the phases of fsbench itself between them (the
# image's .partial file is created before the filesystems are built; each
# is copied in as soon as it is checked, and its writeback started with
# sync_file_range; the fsync before the rename waits for the rest; then
# the block map, bootargs, fstab and manifest). Then one under perf: CPU
# by command and by symbol.
if [ "$profile" -eq 1 ]; then
	pdir=$work/profile
	mkdir -p "$pdir"
	echo
	echo "== profile: timeline of one fsbench build (strace -f; times in s from the start, durations in s)"
	settle
	strace --seccomp-bpf -f -ttt -T -o "$pdir/strace" -e trace=execve,fsync,sync_file_range,renameat,renameat2,rename,openat,unlinkat -e signal=none \
		"$fsbench" build -o "$pdir/out" -root "$inputs" -var "inputs=$inputs" "$spec" >/dev/null 2>&1 ||
		die "the traced build failed"
	awk '
		NR == 1 {t0 = $2}
		$3 ~ /^execve\(/ && $0 !~ /ENOENT/ {
			split($0, q, "\""); n = split(q[2], b, "/"); cmd[$1] = b[n]; start[$1] = $2
			args[$1] = ""; for (k = 6; k <= 10 && q[k] != ""; k += 2) args[$1] = args[$1] " " q[k]
		}
		$3 == "+++" && ($1 in start) {
			printf "%7.3f %7.3f  %s%s\n", start[$1] - t0, $2 - start[$1], cmd[$1], args[$1]; delete start[$1]
		}
		$3 ~ /^openat\(/ && /partial/ && /O_CREAT/ {f = $0; sub(/.*\//, "", f); sub(/".*/, "", f); printf "%7.3f          [fsbench] create %s\n", $2 - t0, f}
		$3 ~ /^renameat2?\(/ {f = $0; sub(/.*AT_FDCWD, "/, "", f); sub(/".*/, "", f); n = split(f, b, "/"); printf "%7.3f          [fsbench] rename -> %s\n", $2 - t0, b[n]}
		$3 ~ /^fsync\(/ && $0 ~ /<[0-9.]+>$/ {d = $NF; gsub(/[<>]/, "", d); if (d > 0.005) printf "%7.3f %7.3f  [pid %s] fsync\n", $2 - t0, d, $1}
		$3 == "<..." && $4 == "fsync" && $0 ~ /<[0-9.]+>$/ {d = $NF; gsub(/[<>]/, "", d); if (d > 0.005) printf "%7.3f %7.3f  [pid %s] fsync\n", $2 - d - t0, d, $1}
		$3 ~ /^sync_file_range\(/ {o = $4; sub(/,$/, "", o); printf "%7.3f          [fsbench] writeback from byte %s\n", $2 - t0, o}
		{last = $2}
		END {printf "%7.3f          end\n", last - t0}
	' "$pdir/strace" | sort -n -k1,1 -s
	if command -v perf >/dev/null; then
		echo
		echo "== profile: perf record -g of one fsbench build: CPU samples by command, then by symbol"
		rm -rf "$pdir/out"
		settle
		perf record -q -g -o "$pdir/perf.data" -- \
			"$fsbench" build -o "$pdir/out" -root "$inputs" -var "inputs=$inputs" "$spec" >/dev/null 2>&1 ||
			die "the perf-recorded build failed"
		# Reports go to files first: head closing a pipe must not fail the script.
		perf report -i "$pdir/perf.data" --no-children --sort comm --stdio -g none >"$pdir/by-comm" 2>/dev/null
		perf report -i "$pdir/perf.data" --no-children --sort comm,sym --stdio -g none >"$pdir/by-sym" 2>/dev/null
		perf report -i "$pdir/perf.data" --children --comm fsbench --sort sym --stdio -g none >"$pdir/fsbench-callers" 2>/dev/null
		grep -v -e '^#' -e '^$' "$pdir/by-comm" | head -12 || true
		echo
		grep -v -e '^#' -e '^$' "$pdir/by-sym" | head -15 || true
		echo
		echo "-- fsbench's own functions, samples including callees"
		grep -E 'imagegen|stage\.|bmap\.|plan\.|cli\.' "$pdir/fsbench-callers" | head -15 || true
	fi
fi
