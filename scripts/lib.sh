# Shared helpers of fsbench's scripts. Source it; it defines functions only.
# shellcheck shell=bash

# The Go release fsbench is built and tested with when the host has no Go
# new enough. It comes from the Go module proxy as golang.org/toolchain.
FSBENCH_GO_VERSION=${FSBENCH_GO_VERSION:-1.25.9}

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# bench_workdir NAME KEEP makes a benchmark's work directory, $work,
# removed when the script exits unless KEEP is 1 (then its path is said).
bench_workdir() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/fsbench-$1.XXXXXX")
	bench_keep=$2
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM
}

bench_cleanup() {
	local rc=$?
	if [ "$bench_keep" -eq 1 ]; then
		log "work directory kept: $work"
	else
		rm -rf "$work"
	fi
	exit $rc
}

# as_root runs a command as root, through sudo when needed.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# apt_update refreshes apt's indexes. A mirror caught mid-sync fails one
# index (apt exits 100) while the others are fine, so a failure is a
# warning: what is missing shows up as an install error with its name.
apt_update() {
	as_root apt-get update -qq || log "warning: apt-get update reported errors; going on with the indexes apt has"
	FSBENCH_APT_UPDATED=1
}

# apt_install installs Debian packages that are missing, quietly and without
# questions, running 'apt-get update' once per script run.
apt_install() {
	local missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing Debian packages: ${missing[*]}"
	[ -n "${FSBENCH_APT_UPDATED:-}" ] || apt_update
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# go_ok tells whether the go command given is at least 1.25.
go_ok() {
	local v
	v=$("$1" env GOVERSION 2>/dev/null) || return 1
	v=${v#go}
	local major=${v%%.*} rest=${v#*.}
	local minor=${rest%%.*}
	[ "$major" -gt 1 ] || { [ "$major" -eq 1 ] && [ "${minor%%[!0-9]*}" -ge 25 ]; }
}

# ensure_go puts a Go >= 1.25 first on PATH. It uses the host's Go when new
# enough; otherwise it installs Debian's Go and lets it fetch the toolchain
# module from the Go module proxy (the same source GOTOOLCHAIN uses).
ensure_go() {
	local candidate
	for candidate in "$(command -v go 2>/dev/null)" /usr/local/go/bin/go /usr/lib/go/bin/go; do
		if [ -n "$candidate" ] && [ -x "$candidate" ] && go_ok "$candidate"; then
			export PATH="$(dirname "$candidate"):$PATH"
			return 0
		fi
	done
	apt_install golang-go ca-certificates
	local arch
	case "$(uname -m)" in
		x86_64) arch=amd64 ;;
		aarch64) arch=arm64 ;;
		*) die "no Go toolchain for $(uname -m); install Go >= 1.25" ;;
	esac
	local mod="golang.org/toolchain@v0.0.1-go${FSBENCH_GO_VERSION}.linux-${arch}"
	local dest="${XDG_CACHE_HOME:-$HOME/.cache}/fsbench/go${FSBENCH_GO_VERSION}"
	if [ ! -x "$dest/bin/go" ]; then
		log "fetching Go ${FSBENCH_GO_VERSION} as module $mod"
		local dir
		dir=$(cd /tmp && GOFLAGS=-mod=mod GO111MODULE=on /usr/bin/go mod download -json "$mod" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
		[ -n "$dir" ] && [ -d "$dir/bin" ] || die "could not fetch $mod"
		# Module zips drop the executable bits; the go command restores them
		# when it switches toolchains itself, and so does this copy.
		rm -rf "$dest.tmp" && mkdir -p "$(dirname "$dest")"
		cp -r "$dir" "$dest.tmp"
		chmod -R u+w "$dest.tmp"
		chmod +x "$dest.tmp"/bin/* "$dest.tmp"/pkg/tool/*/*
		mv "$dest.tmp" "$dest"
	fi
	export PATH="$dest/bin:$PATH" GOTOOLCHAIN=local
	go_ok go || die "fetched Go does not run"
}

# The host tools fsbench's tests and builds call, from Debian 12.
FSBENCH_TOOL_PACKAGES=(
	e2fsprogs btrfs-progs f2fs-tools xfsprogs nilfs-tools dosfstools mtools
	squashfs-tools erofs-utils fdisk gdisk bmap-tools diffutils
	fakeroot attr xz-utils zstd lz4 qemu-system-x86 qemu-system-arm qemu-utils cpio
	u-boot-qemu u-boot-tools genimage genext2fs systemd
	fio postmark sqlite3 chromium shellcheck
	lava-dispatcher lava-common telnet ser2net
	rauc swupdate libubootenv-tool openssl
)

# ensure_foreign_archs lets apt download arm64 and armhf packages on
# another host: the qemu tests boot Debian's arm64 kernel
# (linux-image-arm64, fetched with apt-get download, never installed)
# under qemu-system-aarch64, and the busybox userland and the target tools
# of arm boards come from armhf packages. Package debpkg refuses to change
# the host's dpkg configuration itself.
ensure_foreign_archs() {
	local host added=
	host=$(dpkg --print-architecture)
	for a in arm64 armhf; do
		[ "$host" = "$a" ] && continue
		dpkg --print-foreign-architectures | grep -qx "$a" && continue
		log "adding the $a architecture to dpkg, for Debian's $a packages"
		as_root dpkg --add-architecture "$a"
		added=1
	done
	if [ -n "$added" ]; then
		apt_update
	fi
}
