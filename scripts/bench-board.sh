#!/usr/bin/env bash
# A board on the bench made of QEMU: builds fsbench-bench-board from this
# checkout into bin/ and runs it (see docs/boards.md, "A board made of
# QEMU"). The board is an arm64 machine that boots its disk through
# Debian's U-Boot for QEMU; its console is a pty (with -ser2net also an
# RFC 2217 and a raw TCP port on localhost), its storage DIR/disk.img,
# which the -flash command writes, and its power a command.
#
# Usage: scripts/bench-board.sh start -dir DIR [-ser2net] [-arch arm64|arm|x86_64] [-accel auto|kvm|tcg]
#        scripts/bench-board.sh power on|off|cycle|mute -dir DIR
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

if [ "${1:-}" = start ]; then
	apt_install qemu-system-arm qemu-system-x86 u-boot-qemu bmap-tools ser2net
fi
ensure_go
mkdir -p bin
go build -o bin/fsbench-bench-board ./driver/benchboard/cmd/fsbench-bench-board
exec bin/fsbench-bench-board "$@"
