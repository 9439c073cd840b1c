#!/usr/bin/env bash
# Renders a LAVA device dictionary from the device-type templates of
# Debian's lava-server package, as a LAVA server renders it for a job: the
# dictionary extends DEVICE_TYPE.jinja2 with the given variables (the
# device's own settings and the job's context), and the result is what
# lava-run --device reads, or what 'fsbench lava jobs -device-dict' checks
# jobs against. lava-server is fetched with apt-get download and unpacked
# under the cache, never installed.
# Usage: scripts/lava-device-dict.sh DEVICE_TYPE '{"arch": "amd64", ...}' > device.yaml
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

[ $# -eq 2 ] || die "usage: scripts/lava-device-dict.sh DEVICE_TYPE VARIABLES_JSON"
apt_install python3-jinja2 python3-yaml
cache=${FSBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fsbench}/lava-server
if [ ! -d "$cache/usr/share/lava-server/device-types" ]; then
	mkdir -p "$cache"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	log "fetching Debian's lava-server for its device-type templates"
	(cd "$tmp" && apt-get download -q lava-server >/dev/null 2>&1) || die "apt-get download lava-server failed"
	dpkg-deb -x "$tmp"/lava-server_*.deb "$cache"
fi
/usr/bin/python3 - "$cache/usr/share/lava-server/device-types" "$1" "$2" <<'PY'
import json, sys
import jinja2, yaml
templates, device_type, variables = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
env = jinja2.Environment(loader=jinja2.FileSystemLoader([templates]), autoescape=False, trim_blocks=True)
text = env.from_string("{%% extends '%s.jinja2' %%}" % device_type).render(**variables)
yaml.safe_load(text)  # a dictionary LAVA could not read is an error here
print("\n".join(line for line in text.splitlines() if line.strip()))
PY
