package imagegen

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/wire/runplan"
	"github.com/fsbench/fsbench/wire/ubootenv"
)

// An update test (recipes' Needs.UpdateBundle) needs, in the root
// filesystem, what the board's update would bring: the image the board
// runs (old), the image it updates to (new), and a RAUC bundle of the
// new one, signed with a key made for the test (updatekey.go), with the
// certificate RAUC checks it against. The images are made of sectors that
// each name their image and their place, so that old and new differ in
// every sector and a slot caught half-written matches neither. All of it
// is the same at every build of the same spec and epoch.

// updateLayer writes the tarball of every update case's files, "" when
// the plan has none. userland is the root filesystem's userland layer
// ("" for none), which a slot's filesystem image holds when the slot has
// no contents of its own.
func (b *builder) updateLayer(ctx context.Context, v plan.Variant, rp *runplan.Plan, work, userland string) (string, error) {
	var steps []runplan.Step
	for _, s := range rp.Steps {
		if rec, ok := recipes.Lookup(s.Recipe); ok && rec.Needs.UpdateBundle {
			steps = append(steps, s)
		}
	}
	if len(steps) == 0 {
		return "", nil
	}
	out := filepath.Join(work, "update.tar")
	err := atomicfile.WriteFunc(out, 0o644, func(w io.Writer) error {
		tw := tar.NewWriter(w)
		dirs := map[string]bool{}
		for i, s := range steps {
			size, err := s.Params.Int("image_size")
			if err != nil {
				return err
			}
			caseDir := filepath.Join(work, "update", fmt.Sprint(i))
			updater, err := s.Params.String("updater")
			if err != nil {
				return err
			}
			name := s.Test + "/" + s.Case
			images, err := b.slotImages(ctx, v, s, name, caseDir, userland)
			var files map[string]string
			if err == nil {
				files, err = makeUpdateFiles(ctx, caseDir, name, size, b.opts.Epoch, updater, images)
			}
			if err == nil {
				err = b.updateEnvAndScript(ctx, v, caseDir, s.Params, files)
			}
			if err != nil {
				return fmt.Errorf("test %q case %s: the update's bundle: %w", s.Test, s.Case, err)
			}
			if err := tarFiles(tw, strings.TrimPrefix(runplan.UpdateCaseDir(s.Test, s.Case), "/"), files, dirs, b.opts.Epoch); err != nil {
				return err
			}
		}
		return tw.Close()
	})
	return out, err
}

// makeUpdateFiles makes a case's files in dir and returns their paths by
// name: the images are those given (old and new, by file name), or else
// made of sectors that name their image (updateImage). The bundle is RAUC's plain format (a squashfs of the manifest and
// the image, its detached CMS signature, the signature's size as 8 bytes
// big-endian), made with mksquashfs and openssl without a signing time,
// so that it is the same at every build of the same epoch, and checked
// with `rauc info` against the certificate before it is used.
func makeUpdateFiles(ctx context.Context, dir, name string, size, epoch int64, updater string, images map[string]string) (map[string]string, error) {
	bundleDir := filepath.Join(dir, "bundle")
	if err := os.MkdirAll(bundleDir, 0o755); err != nil {
		return nil, err
	}
	files := maps.Clone(images)
	if files == nil {
		files = map[string]string{}
		for _, f := range []struct{ file, version string }{{runplan.UpdateOldImage, "1"}, {runplan.UpdateNewImage, "2"}} {
			p := filepath.Join(dir, f.file)
			if err := os.WriteFile(p, updateImage(name, f.version, size), 0o644); err != nil {
				return nil, err
			}
			files[f.file] = p
		}
	}
	key, cert, err := writeTestKey(dir, name, epoch)
	if err != nil {
		return nil, err
	}
	files[runplan.UpdateCert] = cert
	if updater == "swupdate" {
		return files, makeSWU(ctx, dir, files, key, cert, epoch)
	}
	img, err := os.ReadFile(files[runplan.UpdateNewImage])
	if err != nil {
		return nil, err
	}
	// The manifest as `rauc bundle` completes it: the image's digest and
	// size.
	manifest := fmt.Sprintf("[update]\ncompatible=%s\nversion=2\n\n[bundle]\nformat=plain\n\n[image.rootfs]\nsha256=%x\nsize=%d\nfilename=rootfs.img\n",
		runplan.UpdateCompatible, sha256.Sum256(img), len(img))
	if err := os.WriteFile(filepath.Join(bundleDir, "manifest.raucm"), []byte(manifest), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(bundleDir, "rootfs.img"), img, 0o644); err != nil {
		return nil, err
	}
	bundle := filepath.Join(dir, runplan.UpdateBundle)
	if err := plainBundle(ctx, bundleDir, bundle, key, cert, epoch); err != nil {
		return nil, err
	}
	if err := hostTool(ctx, "rauc", "info", "--keyring="+cert, bundle); err != nil {
		return nil, fmt.Errorf("RAUC refuses the bundle fsbench made: %w", err)
	}
	files[runplan.UpdateBundle] = bundle
	return files, nil
}

// slotImages builds, when the step's slot A partition has a filesystem,
// the old and the new image as that filesystem: the slot's own plan (its
// type, mkfs command line, UUID and label) at the slot's size, holding
// the slot's contents or, without them, the root filesystem's own (its
// contents and userland; not the runner and the tests, which fsbench
// adds), with runplan.UpdateSlotRelease naming the version. It returns
// their paths by file name, nil when the slot has no filesystem.
func (b *builder) slotImages(ctx context.Context, v plan.Variant, s runplan.Step, name, dir, userland string) (map[string]string, error) {
	slotName, err := s.Params.String("slot_a")
	if err != nil {
		return nil, err
	}
	slot, ok := v.TestPartition(slotName)
	if !ok || slot.Filesystem == nil {
		return nil, nil
	}
	contents, layers := slot.Filesystem.Contents, []string(nil)
	if contents == nil {
		if root := rootPartition(v); root != nil && root.Filesystem != nil {
			contents = root.Filesystem.Contents
			if userland != "" {
				layers = []string{userland}
			}
		}
	}
	files := map[string]string{}
	for _, f := range []struct{ file, version string }{{runplan.UpdateOldImage, "1"}, {runplan.UpdateNewImage, "2"}} {
		var c plan.Contents
		if contents != nil {
			c = *contents
		}
		release := fmt.Sprintf("fsbench update %s version %s\n", name, f.version)
		c.Files = append(slices.Clone(c.Files), plan.File{Path: runplan.UpdateSlotRelease, Content: &release, Mode: "0644"})
		out := filepath.Join(dir, f.file)
		b.log.Infof("building the %s image of update %s: %s filesystem of %s", f.file, name, slot.Filesystem.Type, slotName)
		if err := b.buildAs(ctx, *slot, c, layers, out); err != nil {
			return nil, fmt.Errorf("the %s image, a %s filesystem of slot %s: %w", f.file, slot.Filesystem.Type, slotName, err)
		}
		files[f.file] = out
	}
	return files, nil
}

// buildAs builds part's filesystem as the partition is built, but with
// contents c and layers over them, into the file out (sparse, the
// partition's size).
func (b *builder) buildAs(ctx context.Context, part plan.Partition, c plan.Contents, layers []string, out string) error {
	fs := *part.Filesystem
	fs.Contents, part.Filesystem = &c, &fs
	work := out + ".work"
	defer os.RemoveAll(work)
	return b.buildFilesystem(ctx, part, layers, work, work, func(path string) error { return sparseCopy(path, out, part.Size) })
}

// sparseCopy copies the file at src to dst, size bytes long, leaving
// holes where src has holes or zeros.
func sparseCopy(src, dst string, size int64) error {
	f, err := atomicfile.Create(dst, 0o644)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := f.Truncate(size); err != nil {
		return err
	}
	if err := copyFileAt(f, 0, src, size, false); err != nil {
		return err
	}
	return f.Commit()
}

// writeTestKey writes the case's key and certificate into dir.
func writeTestKey(dir, name string, epoch int64) (key, cert string, err error) {
	k, err := testKey(name)
	if err != nil {
		return "", "", err
	}
	kp, err := keyPEM(k)
	if err != nil {
		return "", "", err
	}
	cp, err := testCert(k, epoch)
	if err != nil {
		return "", "", err
	}
	key, cert = filepath.Join(dir, "key.pem"), filepath.Join(dir, runplan.UpdateCert)
	if err := os.WriteFile(key, kp, 0o600); err != nil {
		return "", "", err
	}
	return key, cert, os.WriteFile(cert, cp, 0o644)
}

// plainBundle writes RAUC's plain bundle of dir to out.
func plainBundle(ctx context.Context, dir, out, key, cert string, epoch int64) error {
	mtime := time.Unix(epoch, 0)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range append(entries, nil) {
		p := dir
		if e != nil {
			p = filepath.Join(dir, e.Name())
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			return err
		}
	}
	sq, sig := out+".squashfs", out+".sig"
	os.Remove(sq)
	defer os.Remove(sq)
	defer os.Remove(sig)
	if err := hostToolEnv(ctx, []string{"SOURCE_DATE_EPOCH=" + strconv.FormatInt(epoch, 10)},
		"mksquashfs", dir, sq, "-all-root", "-noappend", "-no-progress", "-quiet", "-no-xattrs"); err != nil {
		return err
	}
	if err := hostTool(ctx, "openssl", "cms", "-sign", "-binary", "-noattr", "-md", "sha256", "-in", sq, "-signer", cert, "-inkey", key,
		"-outform", "DER", "-out", sig); err != nil {
		return err
	}
	body, err := os.ReadFile(sq)
	if err != nil {
		return err
	}
	s, err := os.ReadFile(sig)
	if err != nil {
		return err
	}
	body = append(body, s...)
	body = binary.BigEndian.AppendUint64(body, uint64(len(s)))
	return atomicfile.WriteFile(out, body, 0o644)
}

// updateImage is one image of size bytes: each 512-byte sector says which
// image it belongs to and where it lies, then a filler byte of its own.
func updateImage(name, version string, size int64) []byte {
	out := make([]byte, size)
	for off := int64(0); off < size; off += 512 {
		sec := out[off:min(off+512, size)]
		head := fmt.Sprintf("fsbench update image %s version %s sector %d\n", name, version, off/512)
		k := copy(sec, head)
		fill := byte(off/512) ^ version[0]
		for i := k; i < len(sec); i++ {
			sec[i] = fill
		}
	}
	return out
}

// hostTool runs a program of the build host, its output the error's
// when it fails.
func hostTool(ctx context.Context, name string, args ...string) error {
	return hostToolEnv(ctx, nil, name, args...)
}

// hostToolEnv runs a program of the build host with env added to its
// environment.
func hostToolEnv(ctx context.Context, env []string, name string, args ...string) error {
	if _, err := exec.LookPath(name); err != nil {
		return fmt.Errorf("%s is not on this host (Debian's package %s; scripts/test.sh installs it)", name, name)
	}
	c := exec.CommandContext(ctx, name, args...)
	c.Env = append(os.Environ(), env...)
	out, err := c.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// tarFiles writes files into dir of the archive, owned by root, their
// times the build's epoch.
func tarFiles(tw *tar.Writer, dir string, files map[string]string, dirs map[string]bool, epoch int64) error {
	mtime := time.Unix(epoch, 0)
	var parents []string
	for d := dir; d != "." && d != "/" && !dirs[d]; d = path.Dir(d) {
		parents = append([]string{d}, parents...)
		dirs[d] = true
	}
	for _, d := range parents {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f, err := os.Open(files[name])
		if err != nil {
			return err
		}
		fi, err := f.Stat()
		if err == nil {
			err = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: dir + "/" + name, Mode: int64(fi.Mode().Perm()), Size: fi.Size(), ModTime: mtime, Format: tar.FormatPAX})
		}
		if err == nil {
			_, err = io.Copy(tw, f)
		}
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// updateEnvAndScript makes the factory environment (with redundancy the
// first copy current, flags 1 over 0) and the script that runs RAUC.
func (b *builder) updateEnvAndScript(ctx context.Context, v plan.Variant, dir string, p runplan.Params, files map[string]string) error {
	size, err := p.Int("env_size")
	if err != nil {
		return err
	}
	redundant, err := p.Bool("env_redundant")
	if err != nil {
		return err
	}
	copies := 1
	if redundant {
		copies = 2
	}
	var env []byte
	for i := range copies {
		c, err := ubootenv.Encode(runplan.UpdateFactoryEnv(), int(size), redundant, byte(1-i))
		if err != nil {
			return err
		}
		env = append(env, c...)
	}
	files[runplan.UpdateEnvImage] = filepath.Join(dir, runplan.UpdateEnvImage)
	files[runplan.UpdateScript] = filepath.Join(dir, runplan.UpdateScript)
	envFiles, err := runplan.UpdateEnvFiles(p)
	switch {
	case err != nil:
		return err
	case len(envFiles) > 0:
		err = b.envFilesystem(ctx, v, p, env, envFiles, files[runplan.UpdateEnvImage])
	default:
		err = os.WriteFile(files[runplan.UpdateEnvImage], env, 0o644)
	}
	if err != nil {
		return err
	}
	script := raucScript
	if updater, _ := p.String("updater"); updater == "swupdate" {
		script = swupdateScript
	}
	return os.WriteFile(files[runplan.UpdateScript], []byte(script), 0o755)
}

// envFilesystem writes to out the environment's partition as the factory
// leaves it when the environment is files (env_file): its filesystem,
// built as the partition is, holding each copy of env (copies of equal
// size, one per file) as its file.
func (b *builder) envFilesystem(ctx context.Context, v plan.Variant, p runplan.Params, env []byte, envFiles []string, out string) error {
	name, err := p.String("env")
	if err != nil {
		return err
	}
	part, ok := v.TestPartition(name)
	if !ok || part.Filesystem == nil {
		return fmt.Errorf("env_file: partition %s has no filesystem", name)
	}
	var c plan.Contents
	n := len(env) / len(envFiles)
	for i, file := range envFiles {
		data := string(env[i*n : (i+1)*n])
		c.Files = append(c.Files, plan.File{Path: "/" + file, Content: &data, Mode: "0644"})
	}
	if err := b.buildAs(ctx, *part, c, nil, out); err != nil {
		return fmt.Errorf("the environment's %s filesystem on %s: %w", part.Filesystem.Type, name, err)
	}
	return nil
}

// raucScript installs the case's bundle as a board's updater does: RAUC's
// service on a D-Bus system bus of its own, slot A booted, its U-Boot
// backend running fw_setenv with the /etc/fw_env.config the runner
// wrote. The runner gives the places in the environment; nothing of the
// spec is written into the script.
const raucScript = `#!/bin/sh
set -e
run=/run/fsbench-update
mkdir -p "$run/mnt"
rm -f "$run/bus.sock"
cat >"$run/system.conf" <<EOF
[system]
compatible=` + runplan.UpdateCompatible + `
bootloader=uboot
mountprefix=$run/mnt
statusfile=$run/status.raucs

[keyring]
path=$FSBENCH_DIR/` + runplan.UpdateCert + `

[slot.rootfs.0]
device=$FSBENCH_SLOT_A
type=raw
bootname=A

[slot.rootfs.1]
device=$FSBENCH_SLOT_B
type=raw
bootname=B
EOF
cat >"$run/bus.conf" <<EOF
<busconfig><type>system</type><listen>unix:path=$run/bus.sock</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>
EOF
dbus-daemon --config-file="$run/bus.conf" --nofork --nopidfile &
bus=$!
svc=
trap 'kill $svc $bus 2>/dev/null || true' EXIT
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$run/bus.sock"
i=0
until [ -S "$run/bus.sock" ]; do
	i=$((i + 1))
	[ $i -lt 60 ] || { echo "dbus-daemon made no socket" >&2; exit 1; }
	sleep 1
done
rauc service --conf="$run/system.conf" --override-boot-slot=A &
svc=$!
i=0
until rauc status --conf="$run/system.conf" >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 60 ] || { echo "rauc service did not answer" >&2; exit 1; }
	sleep 1
done
rauc install --conf="$run/system.conf" "$FSBENCH_BUNDLE"
`
