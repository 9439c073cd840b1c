#!/usr/bin/env bash
# Installs what the test suite needs on Debian 12 and runs all of it:
# formatting, vet, the tests, and a short fuzz run of the spec decoder.
# Usage: scripts/test.sh   (FUZZTIME=10m for a longer fuzz run)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

apt_install "${FSBENCH_TOOL_PACKAGES[@]}"
ensure_foreign_archs
ensure_go
log "$(go version)"

log "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
[ -z "$unformatted" ] || die "gofmt would change: $unformatted"

log "go vet"
go vet ./...

log "go test"
go test -count=1 -timeout 30m ./...

fuzztime=${FUZZTIME:-20s}
log "fuzzing the spec decoder for $fuzztime"
go test -run '^$' -fuzz '^FuzzLoad$' -fuzztime "$fuzztime" ./spec/
log "fuzzing the result frame decoder for $fuzztime"
go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime "$fuzztime" ./resultframe/
go test -run '^$' -fuzz '^FuzzMutateFrame$' -fuzztime "$fuzztime" ./resultframe/
