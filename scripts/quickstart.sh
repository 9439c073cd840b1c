#!/usr/bin/env bash
# The main job: installs what fsbench needs on Debian 12, builds it, and
# runs the quickstart spec. Usage: scripts/quickstart.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

apt_install "${FSBENCH_TOOL_PACKAGES[@]}"
ensure_go
mkdir -p bin
log "building fsbench"
go build -o bin/fsbench ./cmd/fsbench
log "validating examples"
for f in examples/*.fsb.hcl; do
	bin/fsbench validate "$f"
done
log "planning the quickstart"
bin/fsbench plan examples/quickstart.fsb.hcl
