#!/usr/bin/env bash
# Regenerates meta-fsbench's list of Go modules from go.sum: downloads every
# module version go.sum names into the module cache (from the Go module
# proxy) and writes their gomod:// SRC_URI entries with the digests of the
# files do_fetch will download. Run it after every change of go.mod or
# go.sum; a test of package buildsys fails until the list matches.
# Usage: scripts/gen-yocto-gomod.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

ensure_go
out=meta-fsbench/recipes-devtools/fsbench/fsbench-go-mods.inc
log "downloading the modules of go.sum"
# Both files of every version: the zip where go.sum has its hash, and the
# go.mod the fetcher unpacks beside it.
awk '{ v = $2; sub("/go.mod$", "", v); print $1 "@" v }' go.sum | sort -u | xargs go mod download
log "writing $out"
go run ./buildsys/yoctogomod -gosum go.sum >"$out.tmp"
mv "$out.tmp" "$out"
