#!/usr/bin/env bash
# The main job: installs what fsbench needs on Debian 12, builds it,
# validates the examples, plans the quickstart spec and builds its disk
# images into out/quickstart. Usage: scripts/quickstart.sh
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
log "building the quickstart images"
bin/fsbench build -o out/quickstart examples/quickstart.fsb.hcl
log "images and their manifests are in out/quickstart/<variant>/"
