#!/usr/bin/env bash
# check-yocto-image.sh - run meta-fsbench's "fsbench" image type exactly as bitbake expands it, offline.
#
# Usage: check-yocto-image.sh --spec SPEC --rootfs-tar TAR --runner RUNNER [options]
#   --spec FILE          the spec (NAME.fsb.hcl) the test image names in FSBENCH_SPEC (absolute path kept)
#   --rootfs-tar FILE    a real root filesystem tarball (uncompressed tar): it becomes
#                        ${IMGDEPLOYDIR}/${IMAGE_NAME}.tar, the file do_image_tar leaves for do_image_fsbench
#   --runner FILE        fsbench-runner built for the target (MACHINE qemuarm64: GOARCH=arm64); installed
#                        where the class looks for it, ${IMAGE_ROOTFS}${bindir}/fsbench-runner, and added to
#                        the tarball copy at .${bindir}/fsbench-runner (as the image installs it)
#   --deploy-dir DIR     what DEPLOY_DIR_IMAGE points at: a folder of real deployed files (kernel, dtbs...)
#                        the spec reads as its variable binaries (default: an empty folder)
#   --out DIR            what IMGDEPLOYDIR points at: the output folder (default $TOP/image-check/imgdeploy;
#                        emptied first). The disk images land in DIR/${IMAGE_NAME}.fsbench/<variant>/
#   --image-rootfs DIR   what IMAGE_ROOTFS points at (default $TOP/image-check/rootfs, recreated each run)
#   --release R          wrynose (default) | whinlatter | master  (LAYERSERIES_COMPAT of meta-fsbench)
#   --machine M          MACHINE (default qemuarm64)
#   --build-args 'ARGS'  FSBENCH_BUILD_ARGS of the test image, bitbake syntax (default '-var arch=${FSBENCH_ARCH}')
#   --recipe-line 'L'    extra line for the test image recipe (repeatable), e.g.
#                        'FSBENCH_DEPLOY_DEPENDS = "virtual/kernel:do_deploy u-boot:do_deploy"'
#   --dep DIR            extra layer for bblayers.conf (repeatable; staged as a copy)
#   --no-mask            parse the meta-openembedded layers added only as LAYERDEPENDS in full (see below)
#   --no-trace           do not run the image command under strace (the list of programs it runs)
#   --extract-only       stop after writing the standalone script (no fsbench run)
#
#   fsbench must be on PATH (e.g. cd fsbench && go build -o DIR/fsbench ./cmd/fsbench; PATH=DIR:$PATH), with
#   the host's mkfs tools the spec's filesystems need, and fakeroot (fsbench build stages the tree in it).
#   FSBENCH_NATIVE_DEPENDS / FSBENCH_DEPLOY_DEPENDS of the test image come from
#   "fsbench buildvars -for yocto SPEC" (class defaults when it fails); --recipe-line lines come after them.
#
# Environment (as check-yocto-layer.sh in the shared tools, whose source-tree layout this reuses):
#   MIRROR              folder holding the git mirrors as owner+name/repo: openembedded+openembedded-core,
#                       openembedded+bitbake, and openembedded+meta-openembedded when a native tool of the
#                       spec is not in openembedded-core (f2fs-tools-native: meta-filesystems); or set
#                       OECORE_GIT, BITBAKE_GIT, META_OE_GIT one by one
#   YOCTO_INIT_DIR      an existing openembedded-core checkout with bitbake/ and oe-init-build-env (skips extraction)
#   FSBENCH_YOCTO_TOP   work area (default /tmp/fsbench-yocto): src/<release>/ is shared with check-yocto-layer.sh,
#                       everything else of this script is in image-check/ (layers, build-R, gen-R, logs-R, rootfs)
#   LAYER_DIR           meta-fsbench to test (default: the meta-fsbench beside this script's folder); staged as a copy
#   RUN_USER            non-root user for bitbake and for the image command when run as root (default fsbench-yocto):
#                       the spec, fsbench, --deploy-dir and the parents of --out / --image-rootfs must be reachable by it
#   STEP_TIMEOUT        seconds per bitbake step (default 900); RUN_TIMEOUT for the image command (default 1800)
# Host: the packages check-yocto-layer.sh checks (run it once with --install-deps as root), fakeroot, and
#   strace for the trace (optional).
#
# What it does, offline (BB_NO_NETWORK = "1", CONNECTIVITY_CHECK_URIS = ""; nothing is fetched or built):
#   1. a build dir (MACHINE qemuarm64) with openembedded-core + meta-fsbench + a temporary layer holding
#      fsbench-check-image.bb (inherit image fsbench-image, IMAGE_FSTYPES = "tar fsbench", FSBENCH_SPEC = SPEC),
#      plus the meta-openembedded layers that provide FSBENCH_NATIVE_DEPENDS recipes missing from
#      openembedded-core, with their LAYERDEPENDS (bitbake -e TARGET resolves the providers of [depends]).
#      The layers there only for LAYERDEPENDS have their recipes masked (faster parse) unless --no-mask.
#   2. bitbake -e fsbench-check-image: the fully expanded do_image_fsbench (image.bbclass inlines IMAGE_CMD:fsbench,
#      expanded with OVERRIDES=fsbench, and appends "cd ${IMGDEPLOYDIR}"), the variables it uses, and (tinfoil,
#      the API bitbake-getvar uses) the task's expanded flags: depends, deps, fakeroot, prefuncs, subimages, and
#      which datastore shell functions the body calls
#   3. a standalone /bin/sh script, gen-R/run.do_image_fsbench.sh, laid out like bitbake's run.do_image_fsbench
#      (set -e, the function, cd to [dirs] if any, call): the expanded body verbatim except IMGDEPLOYDIR,
#      IMAGE_ROOTFS and DEPLOY_DIR_IMAGE rewritten to --out, --image-rootfs and --deploy-dir; bbfatal/bbnote/bbwarn
#      are stubs that print (bbfatal exits 1, as bitbake's); any other datastore function the body calls fails a check
#   4. runs it as a non-root user (bitbake tasks never run as root) with a clean environment (HOME, PATH = fsbench's
#      folder + the host's), under strace when available: which programs it ran and where bitbake's PATH would
#      have them (HOSTTOOLS, HOSTTOOLS_NONFATAL, a FSBENCH_NATIVE_DEPENDS sysroot), and where it wrote outside
#      IMGDEPLOYDIR; then does what the task's python postfunc create_symlinks does (IMAGE_LINK_NAME.fsbench)
#      and lists IMGDEPLOYDIR
# What it proves: the shell bitbake would execute for do_image_fsbench (same text, same /bin/sh, same set -e)
#   builds the spec's images from the image's tarball and the runner where the class looks for it;
#   do_image_fsbench[depends] holds fsbench-native, the FSBENCH_NATIVE_DEPENDS sysroots and every
#   FSBENCH_DEPLOY_DEPENDS / FSBENCH_BOOT_DEPENDS task, and their providers resolve; the task runs after
#   do_image_tar, under fakeroot, with extend_recipe_sysroot as a prefunc. What it does not run: pseudo (bitbake
#   runs the task under FAKEROOT; the class unloads it for fsbench), the task's exported environment (its PATH of
#   HOSTTOOLS + native sysroots: here the host's tools stand in), the python pre/postfuncs set_image_size and
#   write_image_output_manifest, and do_image_complete's copy to DEPLOY_DIR_IMAGE.
#
# Nothing of openembedded-core, bitbake or meta-openembedded is committed to the project: they are extracted
# from the git mirrors into FSBENCH_YOCTO_TOP (outside the repository), and the test layer and recipe are
# generated there.
#
# Exit status: 0 = PASS, 1 = FAIL (a check or the image command failed), 3 = environment problem.
# Measured on 2 cores (wrynose, the QEMU spec with ext4 + f2fs): cold ~2 min 50 s (extraction, then a parse of
# oe-core + meta-filesystems), warm ~30 s. With --no-mask the cold parse takes ~9.5 min.
set -u -o pipefail

die_env() { echo "ENV-ERROR: $*" >&2; exit 3; }
now() { date +%s; }
T_START=$(now)

SPEC=""; ROOTFS_TAR=""; RUNNER=""; DEPLOY_IN=""; OUT=""; ROOTFS_DIR=""; REL="wrynose"; MACHINE="qemuarm64"
# shellcheck disable=SC2016 # a bitbake expression, expanded by bitbake
BUILD_ARGS='-var arch=${FSBENCH_ARCH}'
RECIPE_LINES=(); DEPS=(); EXTRACT_ONLY=0; DO_MASK=1; DO_TRACE=1
while [ $# -gt 0 ]; do
  case "$1" in
    --spec) SPEC="$2"; shift 2;;
    --rootfs-tar) ROOTFS_TAR="$2"; shift 2;;
    --runner) RUNNER="$2"; shift 2;;
    --deploy-dir) DEPLOY_IN="$2"; shift 2;;
    --out) OUT="$2"; shift 2;;
    --image-rootfs) ROOTFS_DIR="$2"; shift 2;;
    --release) REL="$2"; shift 2;;
    --machine) MACHINE="$2"; shift 2;;
    --build-args) BUILD_ARGS="$2"; shift 2;;
    --recipe-line) RECIPE_LINES+=("$2"); shift 2;;
    --dep) DEPS+=("$2"); shift 2;;
    --extract-only) EXTRACT_ONLY=1; shift;;
    --no-mask) DO_MASK=0; shift;;
    --no-trace) DO_TRACE=0; shift;;
    -h|--help) awk 'NR>1 && /^#/ {print; next} NR>1 {exit}' "$0"; exit 0;;
    *) die_env "unknown argument $1 (see --help)";;
  esac
done
if [ -z "$SPEC" ] || [ ! -f "$SPEC" ]; then die_env "--spec FILE is required (see --help)"; fi
SPEC=$(readlink -f "$SPEC")
if [ "$EXTRACT_ONLY" = 0 ]; then
  if [ -z "$ROOTFS_TAR" ] || [ ! -f "$ROOTFS_TAR" ]; then die_env "--rootfs-tar FILE is required (or --extract-only)"; fi
  if [ -z "$RUNNER" ] || [ ! -f "$RUNNER" ]; then die_env "--runner FILE is required (or --extract-only)"; fi
  ROOTFS_TAR=$(readlink -f "$ROOTFS_TAR"); RUNNER=$(readlink -f "$RUNNER")
  tar -tf "$ROOTFS_TAR" >/dev/null 2>&1 || die_env "$ROOTFS_TAR is not a readable tar archive"
  FSBENCH_BIN=$(command -v fsbench) || die_env "fsbench is not on PATH (go build -o DIR/fsbench ./cmd/fsbench)"
  FSBENCH_BIN=$(readlink -f "$FSBENCH_BIN")
  PATH=/usr/bin:/bin:/usr/sbin:/sbin command -v fakeroot >/dev/null || die_env "fsbench build needs the host's fakeroot"
fi
case "$REL" in
  whinlatter) BB_BR=2.16;; wrynose) BB_BR=2.18;; master) BB_BR=master;;
  *) die_env "release $REL: meta-fsbench supports whinlatter, wrynose (and master)";;
esac
SCRIPT_DIR=$(dirname "$(readlink -f "$0")")
LAYER_SRC=$(readlink -f "${LAYER_DIR:-$SCRIPT_DIR/../meta-fsbench}")
[ -f "$LAYER_SRC/classes-recipe/fsbench-image.bbclass" ] || die_env "$LAYER_SRC has no classes-recipe/fsbench-image.bbclass (set LAYER_DIR)"
TOP=${FSBENCH_YOCTO_TOP:-/tmp/fsbench-yocto}
IC="$TOP/image-check"
OUT=${OUT:-$IC/imgdeploy}; ROOTFS_DIR=${ROOTFS_DIR:-$IC/rootfs}; DEPLOY_IN=${DEPLOY_IN:-$IC/deploy-empty}
OUT=$(readlink -m "$OUT"); ROOTFS_DIR=$(readlink -m "$ROOTFS_DIR"); DEPLOY_IN=$(readlink -m "$DEPLOY_IN")
MARK=.check-yocto-image   # --out and --image-rootfs are emptied: only folders this script made, or empty ones
for d in "$OUT" "$ROOTFS_DIR"; do
  if [ -d "$d" ] && [ -n "$(ls -A "$d")" ] && [ ! -e "$d/$MARK" ]; then
    die_env "$d exists, is not empty and was not made by this script: give another folder (it is emptied)"
  fi
done
STEP_TIMEOUT=${STEP_TIMEOUT:-900}
RUN_TIMEOUT=${RUN_TIMEOUT:-1800}
SYS_PATH=/usr/bin:/bin:/usr/sbin:/sbin   # bitbake wants the distro python3, not a pyenv/venv shim

# Paths end up inside generated shell and bitbake files: keep them to characters that need no quoting there.
safe_path() { case "$1" in *[!A-Za-z0-9._/+-]*) die_env "path '$1' has characters this script does not quote; use a plainer one";; esac; }
for p in "$SPEC" "$TOP" "$LAYER_SRC" ${OUT:+"$OUT"} ${DEPLOY_IN:+"$DEPLOY_IN"} ${ROOTFS_DIR:+"$ROOTFS_DIR"}; do safe_path "$p"; done

# ---------------------------------------------------------------- host prerequisites (as check-yocto-layer.sh)
missing=""
for t in gawk wget git diffstat unzip makeinfo gcc g++ make chrpath socat cpio python3 xz zstd lz4 file timeout tar; do
  PATH=$SYS_PATH command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
PATH=$SYS_PATH python3 -c 'import jinja2, git, pexpect, subunit' 2>/dev/null || missing="$missing python3-{jinja2,git,pexpect,subunit}"
locale -a 2>/dev/null | grep -qi '^en_US.utf8$' || missing="$missing locale:en_US.UTF-8"
[ -z "$missing" ] || die_env "missing host prerequisites:$missing
  fix: run check-yocto-layer.sh --install-deps once as root (it apt-get installs them and generates en_US.UTF-8)"

# ---------------------------------------------------------------- user (bitbake refuses root)
if [ "$(id -u)" = 0 ]; then
  RUN_USER=${RUN_USER:-fsbench-yocto}
  id "$RUN_USER" >/dev/null 2>&1 || useradd -m -s /bin/bash "$RUN_USER" || die_env "cannot create $RUN_USER"
else
  RUN_USER=$(id -un)
fi
RUN_HOME=$(getent passwd "$RUN_USER" | cut -d: -f6)
as_user() {  # as_user PATH "shell snippet": clean environment, distro python, UTF-8 locale
  if [ "$(id -u)" = 0 ]; then
    runuser -u "$RUN_USER" -- env -i HOME="$RUN_HOME" USER="$RUN_USER" PATH="$1" LANG=en_US.UTF-8 LC_ALL=en_US.UTF-8 bash -c "$2"
  else
    env -i HOME="$RUN_HOME" USER="$RUN_USER" PATH="$1" LANG=en_US.UTF-8 LC_ALL=en_US.UTF-8 bash -c "$2"
  fi
}
give() { [ "$(id -u)" != 0 ] || chown -R "$RUN_USER:" "$@"; }
mkdir -p "$TOP" "$IC" && { [ "$(id -u)" != 0 ] || chown "$RUN_USER:" "$TOP" "$IC"; }

# ---------------------------------------------------------------- source tree (same layout as check-yocto-layer.sh)
if [ -n "${YOCTO_INIT_DIR:-}" ]; then
  INIT_DIR=$(readlink -f "$YOCTO_INIT_DIR")
else
  INIT_DIR="$TOP/src/$REL/openembedded-core"
  if [ ! -f "$INIT_DIR/oe-init-build-env" ]; then
    OECORE_GIT=${OECORE_GIT:-${MIRROR:?set MIRROR to the folder holding the git mirrors (owner+name/repo)}/openembedded+openembedded-core/repo}
    BITBAKE_GIT=${BITBAKE_GIT:-${MIRROR:?set MIRROR to the folder holding the git mirrors (owner+name/repo)}/openembedded+bitbake/repo}
    if ! git -C "$OECORE_GIT" rev-parse -q --verify "refs/heads/$REL" >/dev/null 2>&1 ||
       ! git -C "$BITBAKE_GIT" rev-parse -q --verify "refs/heads/$BB_BR" >/dev/null 2>&1; then
      die_env "no oe-core/bitbake: set YOCTO_INIT_DIR, or MIRROR / OECORE_GIT+BITBAKE_GIT (oe-core $REL + bitbake $BB_BR)"
    fi
    mkdir -p "$TOP/src/$REL"
    if ! { git -C "$OECORE_GIT" archive --prefix=openembedded-core/ "refs/heads/$REL" | tar -x -C "$TOP/src/$REL" &&
           git -C "$BITBAKE_GIT" archive --prefix=openembedded-core/bitbake/ "refs/heads/$BB_BR" | tar -x -C "$TOP/src/$REL"; }; then
      rm -rf "$INIT_DIR"; die_env "extract failed"
    fi
    give "$TOP/src"
  fi
fi
[ -f "$INIT_DIR/oe-init-build-env" ] || die_env "$INIT_DIR has no oe-init-build-env"
safe_path "$INIT_DIR"

LOGDIR="$IC/logs-$REL"; GEN="$IC/gen-$REL"; BUILD="$IC/build-$REL"
rm -rf "$LOGDIR" "$GEN"; mkdir -p "$LOGDIR" "$GEN" "$IC/layers"; give "$LOGDIR" "$GEN"

# ---------------------------------------------------------------- layers: meta-fsbench (copy) + the test layer
stage() { local src dst; src=$(readlink -f "$1"); dst="$IC/layers/$(basename "$src")"
  rm -rf "$dst"; cp -a "$src" "$dst"; rm -rf "$dst/.git"; give "$dst"; echo "$dst"; }
LAYER=$(stage "$LAYER_SRC")
LAYER_LIST="$INIT_DIR/meta"
for d in "${DEPS[@]}"; do LAYER_LIST="$LAYER_LIST $(stage "$d")"; done
TL="$IC/layers/meta-fsbench-imagecheck"
rm -rf "$TL"; mkdir -p "$TL/conf" "$TL/recipes-test/images"
LAYER_LIST="$LAYER_LIST $LAYER $TL"
CORENAMES=$(sed -n 's/^LAYERSERIES_CORENAMES[[:space:]]*=[[:space:]]*"\(.*\)".*/\1/p' "$INIT_DIR/meta/conf/layer.conf" | head -1)
cat > "$TL/conf/layer.conf" <<EOF
# generated by check-yocto-image.sh: the test image of the fsbench image type
BBPATH .= ":\${LAYERDIR}"
BBFILES += "\${LAYERDIR}/recipes-*/*/*.bb"
BBFILE_COLLECTIONS += "fsbench-imagecheck"
BBFILE_PATTERN_fsbench-imagecheck = "^\${LAYERDIR}/"
BBFILE_PRIORITY_fsbench-imagecheck = "9"
LAYERDEPENDS_fsbench-imagecheck = "core fsbench"
LAYERSERIES_COMPAT_fsbench-imagecheck = "${CORENAMES:-$REL}"
EOF

# The spec's native tools and deployed files, as fsbench itself says them (fsbench buildvars -for yocto).
BV_LINES=""
if command -v fsbench >/dev/null 2>&1; then
  if fsbench buildvars -for yocto "$SPEC" > "$LOGDIR/buildvars.txt" 2>&1; then
    BV_LINES=$(grep -E '^FSBENCH_(NATIVE|DEPLOY)_DEPENDS = "[^"]*"$' "$LOGDIR/buildvars.txt")
  else
    echo "note: fsbench buildvars -for yocto failed (see $LOGDIR/buildvars.txt): the class's default depends are used" >&2
  fi
fi
IMG=fsbench-check-image
{
  echo "# generated by check-yocto-image.sh from $SPEC"
  echo 'SUMMARY = "check of the fsbench image type (generated, never committed)"'
  echo 'LICENSE = "MIT"'
  echo 'IMAGE_INSTALL = "packagegroup-core-boot"'
  echo 'IMAGE_LINGUAS = ""'
  echo 'inherit image fsbench-image'
  echo 'IMAGE_FSTYPES = "tar fsbench"'
  echo "FSBENCH_SPEC = \"$SPEC\""
  echo "FSBENCH_BUILD_ARGS = \"$BUILD_ARGS\""
  [ -z "$BV_LINES" ] || printf '# from fsbench buildvars -for yocto\n%s\n' "$BV_LINES"
  for l in "${RECIPE_LINES[@]}"; do echo "$l"; done
} > "$TL/recipes-test/images/$IMG.bb"
give "$TL"

# ---------------------------------------------------------------- layers of meta-openembedded the native depends need
# bitbake -e TARGET resolves the providers of the task's [depends]: every FSBENCH_NATIVE_DEPENDS recipe must be
# in a layer. Those not in openembedded-core or meta-fsbench are looked up in meta-openembedded (its $REL
# branch, extracted beside openembedded-core), whose sublayer is added with its LAYERDEPENDS.
NATIVE=$(sed -n 's/^FSBENCH_NATIVE_DEPENDS[[:space:]]*=[[:space:]]*"\(.*\)"/\1/p' "$TL/recipes-test/images/$IMG.bb" | tail -1)
NATIVE=${NATIVE:-$(sed -n 's/^FSBENCH_NATIVE_DEPENDS[[:space:]]*??=[[:space:]]*"\(.*\)"/\1/p' "$LAYER/classes-recipe/fsbench-image.bbclass")}
has_recipe() { [ -n "$(find "$@" -path '*/recipes-*' \( -name "${PN_}_*.bb" -o -name "${PN_}.bb" \) -print -quit 2>/dev/null)" ]; }
MOE_DIR="$TOP/src/$REL/meta-openembedded"; MOE_LAYERS=(); AUTO_NOTE=""
for n in $NATIVE; do
  PN_=${n%-native}
  has_recipe "$INIT_DIR/meta" "$LAYER" && continue
  if [ ! -d "$MOE_DIR/meta-oe" ]; then
    META_OE_GIT=${META_OE_GIT:-${MIRROR:?set MIRROR (or META_OE_GIT): $n is not in openembedded-core}/openembedded+meta-openembedded/repo}
    git -C "$META_OE_GIT" rev-parse -q --verify "refs/heads/$REL" >/dev/null 2>&1 || die_env "$n is not in openembedded-core and META_OE_GIT=$META_OE_GIT has no branch $REL"
    mkdir -p "$TOP/src/$REL"
    git -C "$META_OE_GIT" archive --prefix=meta-openembedded/ "refs/heads/$REL" | tar -x -C "$TOP/src/$REL" || { rm -rf "$MOE_DIR"; die_env "meta-openembedded extract failed"; }
    give "$MOE_DIR"
  fi
  sub=""
  for l in "$MOE_DIR"/meta-*/; do has_recipe "$l" && { sub=$(basename "$l"); break; }; done
  [ -n "$sub" ] || die_env "no recipe for $n in openembedded-core, meta-fsbench or meta-openembedded ($REL)"
  AUTO_NOTE="$AUTO_NOTE $n:$sub"
  MOE_LAYERS+=("$sub")
done
if [ ${#MOE_LAYERS[@]} -gt 0 ]; then   # close over LAYERDEPENDS (collection names -> sublayer folders)
  coll_of() { sed -n 's/^BBFILE_COLLECTIONS[[:space:]]*+=[[:space:]]*"[[:space:]]*\([^" ]*\).*/\1/p' "$MOE_DIR/$1/conf/layer.conf"; }
  deps_of() { sed -n "s/^LAYERDEPENDS_$(coll_of "$1")[[:space:]]*=[[:space:]]*\"\\(.*\\)\"/\\1/p" "$MOE_DIR/$1/conf/layer.conf" | sed 's/([^)]*)//g'; }
  PROVIDERS=" ${MOE_LAYERS[*]} "
  todo=("${MOE_LAYERS[@]}"); MOE_LAYERS=()
  while [ ${#todo[@]} -gt 0 ]; do
    l=${todo[0]}; todo=("${todo[@]:1}")
    case " ${MOE_LAYERS[*]} " in *" $l "*) continue;; esac
    MOE_LAYERS+=("$l")
    for c in $(deps_of "$l"); do
      [ "$c" = core ] && continue
      for cand in "$MOE_DIR"/meta-*/; do
        [ "$(coll_of "$(basename "$cand")")" = "$c" ] && todo+=("$(basename "$cand")")
      done
    done
  done
  for l in "${MOE_LAYERS[@]}"; do LAYER_LIST="$INIT_DIR/meta $MOE_DIR/$l ${LAYER_LIST#"$INIT_DIR/meta "}"; done
  # The layers there only for LAYERDEPENDS (meta-oe, meta-python, meta-networking for meta-filesystems) hold
  # ~2500 recipes: their .bb/.bbappend files are masked (BBMASK; their conf and classes stay), which takes
  # a cold parse from ~9.5 to ~3 min on 2 cores. A provider missing because of it (or an append of another
  # layer left dangling) makes the script retry without the mask.
  if [ "$DO_MASK" = 1 ]; then
    for l in "${MOE_LAYERS[@]}"; do
      case "$PROVIDERS" in *" $l "*) ;; *) MASK="${MASK:-} $(printf '%s' "$MOE_DIR/$l/" | sed 's/[.+]/\\&/g')";; esac
    done
  fi
fi

# ---------------------------------------------------------------- build dir (offline, MACHINE, our bblayers)
bb_env() { echo "cd '$INIT_DIR' && . ./oe-init-build-env '$BUILD' >/dev/null"; }
as_user "$SYS_PATH" "$(bb_env)" > "$LOGDIR/init.log" 2>&1 || die_env "oe-init-build-env failed, see $LOGDIR/init.log"
# shellcheck disable=SC2016 # bitbake syntax
{ echo '# generated by check-yocto-image.sh'
  echo 'POKY_BBLAYERS_CONF_VERSION = "2"'
  echo 'BBPATH = "${TOPDIR}"'
  echo 'BBFILES ?= ""'
  echo "BBLAYERS = \"$LAYER_LIST\""
} > "$BUILD/conf/bblayers.conf"
write_local_conf() {  # write_local_conf [BBMASK]
  sed -i '/^# check-yocto-image.sh begin/,/^# check-yocto-image.sh end/d' "$BUILD/conf/local.conf"
  printf '# check-yocto-image.sh begin\nMACHINE = "%s"\nBB_NO_NETWORK = "1"\nCONNECTIVITY_CHECK_URIS = ""\n%s# check-yocto-image.sh end\n' \
    "$MACHINE" "${1:+BBMASK += \"$1\"
}" >> "$BUILD/conf/local.conf"
}
write_local_conf "${MASK:-}"
give "$BUILD/conf"

ERR_RE='^([A-Za-z ]+\.\.\.)?ERROR: '
bb() {  # bb NAME "command": run in the build env as RUN_USER, log to LOGDIR/NAME.log
  local t rc; t=$(now)
  as_user "$SYS_PATH" "$(bb_env) && timeout -k 10 $STEP_TIMEOUT $2" > "$LOGDIR/$1.log" 2>&1
  rc=$?; BB_SECS=$(( $(now)-t ))
  grep -Eq "$ERR_RE" "$LOGDIR/$1.log" && return 1
  return $rc
}
bb_fail() { echo "FAIL: $1 (${BB_SECS}s):" >&2; grep -E "$ERR_RE" "$LOGDIR/$2.log" | head -5 >&2; echo "  log: $LOGDIR/$2.log" >&2; exit 1; }

echo "== check-yocto-image: meta-fsbench's fsbench type on $REL, MACHINE=$MACHINE ($INIT_DIR) as $RUN_USER"
echo "   spec $SPEC; test layer $TL; logs $LOGDIR"
[ -z "$AUTO_NOTE" ] || echo "   meta-openembedded layers added for the native depends ($AUTO_NOTE ): ${MOE_LAYERS[*]}"
echo "   BBLAYERS: $LAYER_LIST"

# ---------------------------------------------------------------- 2. bitbake -e: the expanded task
if ! bb env "bitbake -e $IMG"; then
  if [ -n "${MASK:-}" ] && grep -qE 'Nothing R?PROVIDES|No recipes in .* available for' "$LOGDIR/env.log"; then
    echo "note: a provider or an append's recipe is missing with the LAYERDEPENDS-only layers masked: retrying without the mask"
    MASK=""; write_local_conf ""
    bb env "bitbake -e $IMG" || bb_fail "bitbake -e $IMG" env
  else bb_fail "bitbake -e $IMG" env; fi
fi
[ -z "${MASK:-}" ] || echo "   BBMASK (recipes of layers there only for LAYERDEPENDS):${MASK}"
echo "bitbake -e $IMG: ok (${BB_SECS}s)"
ENVLOG="$LOGDIR/env.log"
TASK=do_image_fsbench
awk -v f="$TASK() {" '$0 == f {on=1; next} on && $0 == "}" {exit} on {print}' "$ENVLOG" > "$GEN/$TASK.body"
[ -s "$GEN/$TASK.body" ] || { echo "FAIL: bitbake -e $IMG has no $TASK() (IMAGE_FSTYPES lacks fsbench, or the class defines no IMAGE_CMD:fsbench)" >&2; exit 1; }
getv() { sed -n "s/^\(export \)\{0,1\}$1=\"\(.*\)\"\$/\2/p" "$ENVLOG" | tail -1; }
VARS="IMGDEPLOYDIR IMAGE_NAME IMAGE_LINK_NAME DEPLOY_DIR_IMAGE IMAGE_ROOTFS bindir TARGET_ARCH MACHINE TOPDIR TMPDIR WORKDIR"
FSB_VARS=$(grep -oE '^(export )?FSBENCH_[A-Z_]+=' "$ENVLOG" | sed 's/^export //; s/=$//' | sort -u | xargs)
: > "$GEN/variables.txt"
for v in $VARS $FSB_VARS; do printf '%s="%s"\n' "$v" "$(getv "$v")" >> "$GEN/variables.txt"; done
B_IMGDEPLOYDIR=$(getv IMGDEPLOYDIR); B_ROOTFS=$(getv IMAGE_ROOTFS); B_DEPLOY=$(getv DEPLOY_DIR_IMAGE)
IMAGE_NAME=$(getv IMAGE_NAME); IMAGE_LINK_NAME=$(getv IMAGE_LINK_NAME); BINDIR=$(getv bindir)
B_TOPDIR=$(getv TOPDIR); B_TMPDIR=$(getv TMPDIR)
for v in B_IMGDEPLOYDIR B_ROOTFS B_DEPLOY IMAGE_NAME BINDIR B_TOPDIR; do
  [ -n "${!v}" ] || { echo "FAIL: no value for ${v#B_} in bitbake -e output" >&2; exit 1; }
done
safe_path "$IMAGE_NAME"

# ---------------------------------------------------------------- the task's flags (tinfoil, as bitbake-getvar --flag)
cat > "$GEN/flags.py" <<'EOF'
# generated by check-yocto-image.sh: print a task's flags, expanded, as bitbake-getvar -f FLAG --value does
import logging, os, shutil, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(shutil.which('bitbake'))), '..', 'lib'))
import bb.tinfoil, bb.codeparser
recipe, task = sys.argv[1], sys.argv[2]
with bb.tinfoil.Tinfoil() as tinfoil:
    tinfoil.prepare(quiet=2)
    d = tinfoil.parse_recipe(recipe)
    for flag in ('depends', 'fakeroot', 'dirs', 'cleandirs', 'prefuncs', 'postfuncs', 'subimages', 'imagetype', 'file-checksums'):
        v = d.getVarFlag(task, flag)
        print('FSBCHK %s=%s' % (flag, ' '.join(str(v).split()) if v is not None else ''))
    print('FSBCHK deps=%s' % ' '.join(d.getVarFlag(task, 'deps', False) or []))
    cmds = bb.codeparser.ShellParser(task, logging.getLogger('BitBake')).parse_shell(d.getVar(task))
    print('FSBCHK shellfuncs=%s' % ' '.join(sorted(c for c in cmds if d.getVarFlag(c, 'func', False))))
    for v in ('FSBENCH_DEPLOY_DEPENDS', 'FSBENCH_BOOT_DEPENDS', 'FSBENCH_NATIVE_DEPENDS'):
        print('FSBCHK %s=%s' % (v, d.getVar(v) or ''))
EOF
give "$GEN"
bb flags "python3 '$GEN/flags.py' $IMG $TASK" || bb_fail "task flags (tinfoil)" flags
flag() { sed -n "s/^FSBCHK $1=//p" "$LOGDIR/flags.log" | tail -1; }
# no more bitbake from here: let our server go (as check-yocto-layer.sh: it exits on its own a few seconds after
# its last client; after 60 s the one still bound to our build dir is stopped, by pid), in the background
our_servers() { local p; for p in /proc/[0-9]*; do
  { tr '\0' ' ' < "$p/cmdline"; } 2>/dev/null | grep -q "bitbake-server.*$BUILD/bitbake.sock" && echo "${p#/proc/}"; done; }
{ for _ in $(seq 1 30); do [ -z "$(our_servers)" ] && break; sleep 2; done
  for p in $(our_servers); do kill "$p" 2>/dev/null; done; } &
SERVER_WAIT=$!
echo "task flags (tinfoil): ok (${BB_SECS}s)"

FAILS=0; NOTES=()
check() { if [ "$1" = ok ]; then echo "  ok    $2"; else echo "  FAIL  $2"; FAILS=$((FAILS+1)); fi; }
ok_if() { if "$@" >/dev/null 2>&1; then echo ok; else echo no; fi; }   # ok_if TEST... -> ok | no
DEPENDS=$(flag depends)
echo
echo "== ${TASK}[depends] (expanded):"
echo "$DEPENDS" | tr ' ' '\n' | sed '/^$/d; s/^/  /'
for want in fsbench-native:do_populate_sysroot $(flag FSBENCH_DEPLOY_DEPENDS) $(flag FSBENCH_BOOT_DEPENDS) \
            $(for p in $(flag FSBENCH_NATIVE_DEPENDS); do echo "$p:do_populate_sysroot"; done); do
  case " $DEPENDS " in *" $want "*) check ok "depends has $want";; *) check no "depends lacks $want";; esac
done
case " $(flag deps) " in *" do_image_tar "*) check ok "$TASK runs after do_image_tar (deps: $(flag deps))";;
  *) check no "$TASK does not run after do_image_tar (deps: $(flag deps))";; esac
case " $(flag prefuncs) " in *" extend_recipe_sysroot "*) check ok "prefuncs has extend_recipe_sysroot (the [depends] sysroots reach the task's PATH)";;
  *) check no "prefuncs lacks extend_recipe_sysroot: the native tools of [depends] are not staged for the task";; esac
if [ "$(flag fakeroot)" = 1 ]; then check ok "${TASK}[fakeroot] = 1 (bitbake runs it under pseudo)"
else NOTES+=("${TASK}[fakeroot] is '$(flag fakeroot)'"); fi
extra=$(for f in $(flag shellfuncs); do case "$f" in bbfatal|bbnote|bbwarn) ;; *) echo "$f";; esac; done | xargs)
check "$(ok_if [ -z "$extra" ])" "shell functions of the datastore the body calls: $(flag shellfuncs)${extra:+ - not stubbed here: $extra}"
unexp=$(grep -oE '\$\{[A-Za-z0-9_:@-]+\}' "$GEN/$TASK.body" | sort -u | xargs)
check "$(ok_if [ -z "$unexp" ])" "\${...} left unexpanded in the body (the shell would read them as its own variables): ${unexp:-none}"

# ---------------------------------------------------------------- 3. the standalone script
# fsbench's cache (FSBENCH_CACHE, in the build directory) goes to the work area.
B_CACHE=$(getv FSBENCH_CACHE); CACHE_DIR="$TOP/image-check/fsbench-cache"
rewrite() {  # rewrite TEXT: the build paths -> the caller's, longest first (none rewrites a part of another)
  local text="$1" _n old new
  while read -r _n old new; do text=${text//"$old"/"$new"}; done < <(
    printf '%s %s %s\n' "${#B_IMGDEPLOYDIR}" "$B_IMGDEPLOYDIR" "$OUT" "${#B_ROOTFS}" "$B_ROOTFS" "$ROOTFS_DIR" \
      "${#B_DEPLOY}" "$B_DEPLOY" "$DEPLOY_IN" ${B_CACHE:+"${#B_CACHE}" "$B_CACHE" "$CACHE_DIR"} | sort -rn)
  printf '%s\n' "$text"
}
body=$(rewrite "$(cat "$GEN/$TASK.body")")
TASK_DIR=$(flag dirs); TASK_DIR=${TASK_DIR##* }; [ -z "$TASK_DIR" ] || TASK_DIR=$(rewrite "$TASK_DIR")
left=$(printf '%s\n' "$body" "$TASK_DIR" | grep -nF -e "$B_TOPDIR" -e "$B_TMPDIR" || true)
check "$(ok_if [ -z "$left" ])" "paths of the build dir left after rewriting IMGDEPLOYDIR, IMAGE_ROOTFS, DEPLOY_DIR_IMAGE, FSBENCH_CACHE: ${left:-none}"
RUNSH="$GEN/run.$TASK.sh"
{
  echo '#!/bin/sh'
  echo "# generated by check-yocto-image.sh: $TASK of $IMG as bitbake -e expands it ($REL, MACHINE=$MACHINE),"
  echo "# laid out like bitbake's run.$TASK (set -e, the function, cd to [dirs] if the task has them, call). Rewritten paths:"
  echo "#   IMGDEPLOYDIR     $B_IMGDEPLOYDIR -> $OUT"
  echo "#   IMAGE_ROOTFS     $B_ROOTFS -> $ROOTFS_DIR"
  echo "#   DEPLOY_DIR_IMAGE $B_DEPLOY -> $DEPLOY_IN"
  [ -z "$B_CACHE" ] || echo "#   FSBENCH_CACHE    $B_CACHE -> $CACHE_DIR"
  echo "# bitbake's shell helpers, stubbed (logging.bbclass: bbfatal logs and exits 1):"
  echo 'bbfatal() { echo "ERROR: $*"; exit 1; }'
  echo 'bbnote() { echo "NOTE: $*"; }'
  echo 'bbwarn() { echo "WARNING: $*"; }'
  echo 'set -e'
  echo
  echo "$TASK() {"
  printf '%s\n' "$body"
  echo '}'
  echo
  # bitbake writes a cd only for a task with [dirs] (its last entry); without, the task runs in the worker's cwd
  [ -z "$TASK_DIR" ] || echo "cd '$TASK_DIR'"
  echo "$TASK"
} > "$RUNSH"
chmod 755 "$RUNSH"
echo
echo "== $TASK as bitbake -e expands it ($GEN/$TASK.body):"
sed 's/^/  | /' "$GEN/$TASK.body"
echo "== variables ($GEN/variables.txt):"
sed 's/^/  /' "$GEN/variables.txt"
echo "== standalone script: $RUNSH"

if [ "$EXTRACT_ONLY" = 1 ]; then
  wait "$SERVER_WAIT" 2>/dev/null
  echo "VERDICT: $([ "$FAILS" = 0 ] && echo PASS || echo "FAIL ($FAILS check(s))") (extract only, $(( $(now)-T_START ))s)"
  [ "$FAILS" = 0 ]; exit $?
fi

# ---------------------------------------------------------------- 4. inputs where the task expects them, then run it
fresh_dir() { rm -rf "$1"; mkdir -p "$1"; touch "$1/$MARK"; }
fresh_dir "$OUT"; fresh_dir "$ROOTFS_DIR"; mkdir -p "$ROOTFS_DIR$BINDIR" "$DEPLOY_IN"
install -m 0755 "$RUNNER" "$ROOTFS_DIR$BINDIR/fsbench-runner"
cp "$ROOTFS_TAR" "$OUT/$IMAGE_NAME.tar"
if ! tar -tf "$OUT/$IMAGE_NAME.tar" | grep -qxE "(\./)?${BINDIR#/}/fsbench-runner"; then
  tar -rf "$OUT/$IMAGE_NAME.tar" --owner=0 --group=0 --numeric-owner -C "$ROOTFS_DIR" ".$BINDIR/fsbench-runner" \
    || die_env "cannot add the runner to $OUT/$IMAGE_NAME.tar (a compressed tarball?)"
fi
touch -d "@$(stat -c %Y "$ROOTFS_TAR")" "$ROOTFS_DIR"   # the class takes SOURCE_DATE_EPOCH from IMAGE_ROOTFS's mtime
give "$OUT" "$ROOTFS_DIR" "$GEN"
RUN_PATH="$(dirname "$FSBENCH_BIN"):$SYS_PATH"
echo
echo "== running $RUNSH as $RUN_USER (/bin/sh, PATH=$RUN_PATH)"
t=$(now)
TRACE=""
if [ "$DO_TRACE" = 1 ] && PATH=$SYS_PATH command -v strace >/dev/null; then
  TRACE="$(PATH=$SYS_PATH command -v strace) -f -qq -e signal=none -o $GEN/exec.trace \
-e trace=execve,open,openat,creat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat,symlink,symlinkat"
fi
as_user "$RUN_PATH" "cd '$GEN' && timeout -k 10 $RUN_TIMEOUT $TRACE /bin/sh '$RUNSH'" 2>&1 | tee "$LOGDIR/run.log" | sed 's/^/  > /'
rc=${PIPESTATUS[0]}; RUN_SECS=$(( $(now)-t ))
check "$(ok_if [ "$rc" = 0 ])" "$TASK exited $rc (${RUN_SECS}s), log $LOGDIR/run.log"
# create_symlinks (the task's python postfunc): IMAGE_LINK_NAME.<subimage> -> IMAGE_NAME.<subimage> when it exists
for s in $(flag subimages); do
  [ -e "$OUT/$IMAGE_NAME.$s" ] && ln -sfn "$IMAGE_NAME.$s" "$OUT/$IMAGE_LINK_NAME.$s"
done
if [ -n "$TRACE" ] && [ -f "$GEN/exec.trace" ]; then
  # In bitbake the task's PATH has only HOSTTOOLS (+ HOSTTOOLS_NONFATAL found on the host) and the sysroots of
  # [depends]: each program the command ran must be one of those (the Debian package is a hint for the latter).
  HT=" $(getv HOSTTOOLS | xargs) "; HTN=" $(getv HOSTTOOLS_NONFATAL | xargs) "
  echo "== programs the image command ran (strace, $GEN/exec.trace), and where bitbake's PATH has them:"
  while read -r prog; do
    b=$(basename "$prog")
    case "$prog" in "$FSBENCH_BIN"|/bin/sh) continue;; esac
    case "$HT" in *" $b "*) where="HOSTTOOLS";; *)
      case "$HTN" in *" $b "*) where="HOSTTOOLS_NONFATAL (the task fails on a host without it)";; *)
        pkg=$( { dpkg -S "$prog" || dpkg -S "${prog#/usr}"; } 2>/dev/null | head -1 | cut -d: -f1)   # merged /usr
        case " $(flag FSBENCH_NATIVE_DEPENDS) " in
          *" ${pkg:-?}-native "*) where="a native sysroot: $pkg-native (FSBENCH_NATIVE_DEPENDS)";;
          *) where="NOT in HOSTTOOLS; host package ${pkg:-unknown}: a FSBENCH_NATIVE_DEPENDS recipe must provide it"
             NOTES+=("$b is run by fsbench build but is neither in HOSTTOOLS nor matched to FSBENCH_NATIVE_DEPENDS");;
        esac;;
      esac;;
    esac
    printf '  %-16s %s\n' "$b" "$where"
  done < <(grep -v ENOENT "$GEN/exec.trace" | sed -n 's/.*execve("\([^"]*\)".*/\1/p' | sort -u)
  # A bitbake task should write under its WORKDIR (IMGDEPLOYDIR here) only: list the other places written.
  echo "== where the image command wrote, outside IMGDEPLOYDIR (absolute paths of successful creating/writing calls):"
  outside=$(grep -E 'O_WRONLY|O_RDWR|O_CREAT|(mkdir|rename|link)[a-z0-9]*\(' "$GEN/exec.trace" | grep -v ' = -1 ' |
    grep -oE '"/[^"]*"' | tr -d '"' | grep -vE "^($OUT(/|\$)|/dev/null\$|/dev/tty|/proc/)" |
    sed -E 's#^(/dev/shm/[a-z-]+)[0-9-]*.*#\1*#; s#^(/[^/]+/[^/]+/[^/]+/[^/]+).*#\1/...#' | sort | uniq -c | sort -rn)
  if [ -z "$outside" ]; then echo "  none"; else
    printf '%s\n' "$outside" | sed 's/^ */  /'
    NOTES+=("the image command writes outside IMGDEPLOYDIR (see the list above; in bitbake: outside the task's WORKDIR)")
  fi
fi
n=$(find "$OUT/$IMAGE_NAME.fsbench" -mindepth 2 -maxdepth 2 -name manifest.json 2>/dev/null | wc -l)
check "$(ok_if [ "$n" -gt 0 ])" "$n variant folder(s) with manifest.json in IMGDEPLOYDIR/IMAGE_NAME.fsbench"
echo
echo "== IMGDEPLOYDIR ($OUT):"
(cd "$OUT" && find . -mindepth 1 -maxdepth 3 ! -name "$MARK" | sort | while read -r f; do
  if [ -L "$f" ]; then printf '  %-70s -> %s\n' "$f" "$(readlink "$f")"
  elif [ -d "$f" ]; then printf '  %s/\n' "$f"
  else printf '  %-70s %12s (%s allocated)\n' "$f" "$(stat -c %s "$f")" "$(du -h "$f" | cut -f1)"; fi
done)

wait "$SERVER_WAIT" 2>/dev/null
for n in "${NOTES[@]}"; do echo "note: $n"; done
echo "VERDICT: $([ "$FAILS" = 0 ] && echo PASS || echo "FAIL ($FAILS check(s))") in $(( $(now)-T_START ))s; logs $LOGDIR"
[ "$FAILS" = 0 ]
