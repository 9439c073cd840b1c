#!/usr/bin/env bash
# The main job: installs what fsbench needs on Debian 12, builds fsbench and
# its target runners, validates the examples, then runs the quickstart spec
# in QEMU (one variant per filesystem: build, boot, test), prints the
# results table and writes the report.
#
# Usage: scripts/quickstart.sh [--thorough] [extra fsbench run flags]
#   --thorough  runs examples/thorough.fsb.hcl into out/thorough instead
#               of examples/quickstart.fsb.hcl into out/quickstart: reads,
#               mount time, three to five runs a case, three crash workloads
#
# Two variants run at once, each guest with one vCPU: one per core of a
# 2-core machine, where under TCG every vCPU is a busy host thread.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

name=quickstart
if [ "${1:-}" = "--thorough" ]; then
	name=thorough
	shift
fi
spec=examples/$name.fsb.hcl out=out/$name

apt_install "${FSBENCH_TOOL_PACKAGES[@]}"
scripts/install.sh bin
log "validating examples"
for f in examples/*.fsb.hcl; do
	bin/fsbench validate "$f"
done
log "running $spec in QEMU (results in $out/<variant>/run/)"
status=0
FSBENCH_LOG=${FSBENCH_LOG:-info} bin/fsbench run -j 2 -o "$out" "$@" "$spec" || status=$?
# The report covers whatever arrived, also when a variant failed.
if bin/fsbench report -spec "$spec" -o "$out/report" "$out" >/dev/null; then
	log "report: $out/report/report.html (and report.md)"
fi
exit "$status"
