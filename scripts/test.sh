#!/usr/bin/env bash
# Installs what the test suite needs on Debian 12 and runs all of it:
# formatting, vet, the tests, and a short fuzz run of the spec and result
# frame decoders.
# Usage: scripts/test.sh   (FUZZTIME=5000000x or FUZZTIME=10m for a longer
# fuzz run)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

apt_install "${FSBENCH_TOOL_PACKAGES[@]}"
# Everything the tests need is installed above, so a test that still
# finds a tool missing fails instead of skipping (internal/testenv):
# FSBENCH_REQUIRE_TOOLS=0 lets such tests skip again.
export FSBENCH_REQUIRE_TOOLS=${FSBENCH_REQUIRE_TOOLS:-1}
ensure_foreign_archs
ensure_go
log "$(go version)"

log "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
[ -z "$unformatted" ] || die "gofmt would change: $unformatted"

log "go vet"
go vet ./...

log "go test"
go test -count=1 -timeout 45m ./...

# The default budget is a count of inputs, about 20 s each here: a budget
# in seconds can fail a run that found nothing, with "context deadline
# exceeded", when the deadline races a worker (https://go.dev/issue/75804,
# fixed in Go 1.27). Minimizing each new interesting input is cut short
# too: at Go's default of 60 s the workers of a short run spend most of it
# minimizing.
fuzztime=${FUZZTIME:-100000x}
fuzz() { go test -run '^$' -fuzz "^$1\$" -fuzztime "$fuzztime" -fuzzminimizetime 2s "./$2/"; }
log "fuzzing the spec decoder ($fuzztime)"
fuzz FuzzLoad spec
log "fuzzing the result frame decoder ($fuzztime each)"
fuzz FuzzDecode wire/resultframe
fuzz FuzzMutateFrame wire/resultframe
log "fuzzing the helper boot's tar reader ($fuzztime)"
fuzz FuzzTarReader target/populate
