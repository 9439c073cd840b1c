#!/usr/bin/env bash
# Builds fsbench and the target runner for every board architecture into
# DIR (default: bin/): DIR/fsbench and DIR/fsbench-runner-{amd64,arm64,arm,riscv64},
# where fsbench build looks for the runner. Usage: scripts/install.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

dir=${1:-bin}
ensure_go
mkdir -p "$dir"
version=$(git describe --always --dirty 2>/dev/null || echo dev)
log "building fsbench ($version)"
go build -trimpath -ldflags "-X github.com/fsbench/fsbench/cmd/fsbench/cli.Version=$version" -o "$dir/fsbench" ./cmd/fsbench
for arch in amd64 arm64 arm riscv64; do
	log "building fsbench-runner-$arch"
	CGO_ENABLED=0 GOOS=linux GOARCH=$arch GOARM=7 go build -trimpath \
		-ldflags "-s -w -X github.com/fsbench/fsbench/target/runner.Version=$version" \
		-o "$dir/fsbench-runner-$arch" ./cmd/fsbench-runner
done
