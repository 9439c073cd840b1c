#!/usr/bin/env bash
# The main job: installs what fsbench needs on Debian 12, builds fsbench and
# its target runners, validates the examples, then runs the quickstart spec
# in QEMU (one variant per root filesystem: build, boot, test) and prints the
# results table. Usage: scripts/quickstart.sh [extra fsbench run flags]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

apt_install "${FSBENCH_TOOL_PACKAGES[@]}"
scripts/install.sh bin
log "validating examples"
for f in examples/*.fsb.hcl; do
	bin/fsbench validate "$f"
done
log "running the quickstart in QEMU (results in out/quickstart/<variant>/run/)"
FSBENCH_LOG=${FSBENCH_LOG:-info} bin/fsbench run -j 2 -o out/quickstart "$@" examples/quickstart.fsb.hcl
