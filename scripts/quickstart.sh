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
status=0
FSBENCH_LOG=${FSBENCH_LOG:-info} bin/fsbench run -j 2 -o out/quickstart "$@" examples/quickstart.fsb.hcl || status=$?
# The report covers whatever arrived, also when a variant failed.
if bin/fsbench report -spec examples/quickstart.fsb.hcl -o out/quickstart/report out/quickstart >/dev/null; then
	log "report: out/quickstart/report/report.html (and report.md)"
fi
exit "$status"
