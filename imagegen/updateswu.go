package imagegen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/wire/runplan"
)

// An SWUpdate image (updater = "swupdate") is a cpio archive in the
// "070702" format (SWUpdate reads newc with checksums): sw-description
// first, its detached CMS signature (SWUpdate as Debian builds it takes
// signed images only), then the new image. sw-description writes the
// image raw into slot B, through the node the runner records it by, then
// sets U-Boot's environment (its bootenv section, applied after the
// images): slot B first with three attempts. Signed without a signing
// time by the test's key, it is the same at every build of an epoch;
// swupdate -c checks it against the certificate at build time.

// swDescription is the image's sw-description, in libconfig's syntax.
func swDescription(img []byte) string {
	return fmt.Sprintf(`software = {
	version = "2";
	hardware-compatibility: [ "%s" ];
	images: (
		{
			filename = "rootfs.img";
			device = "%s";
			type = "raw";
			sha256 = "%x";
		}
	);
	bootenv: (
		{ name = "BOOT_ORDER"; value = "B A"; },
		{ name = "BOOT_B_LEFT"; value = "3"; }
	);
};
`, runplan.UpdateHWRevision, runplan.UpdateSlotNode("slot_b"), sha256.Sum256(img))
}

// makeSWU makes the case's SWUpdate image from its new image.
func makeSWU(ctx context.Context, dir string, files map[string]string, key, cert string, epoch int64) error {
	img, err := os.ReadFile(files[runplan.UpdateNewImage])
	if err != nil {
		return err
	}
	desc := filepath.Join(dir, "sw-description")
	if err := os.WriteFile(desc, []byte(swDescription(img)), 0o644); err != nil {
		return err
	}
	sig := desc + ".sig"
	if err := hostTool(ctx, "openssl", "cms", "-sign", "-binary", "-noattr", "-nosmimecap", "-md", "sha256", "-in", desc,
		"-signer", cert, "-inkey", key, "-outform", "DER", "-out", sig); err != nil {
		return err
	}
	var archive bytes.Buffer
	for _, f := range []struct{ name, path string }{{"sw-description", desc}, {"sw-description.sig", sig}, {"rootfs.img", files[runplan.UpdateNewImage]}} {
		data, err := os.ReadFile(f.path)
		if err != nil {
			return err
		}
		cpioEntry(&archive, f.name, data, epoch)
	}
	cpioEntry(&archive, "TRAILER!!!", nil, 0)
	swu := filepath.Join(dir, runplan.UpdateSWU)
	if err := atomicfile.WriteFile(swu, archive.Bytes(), 0o644); err != nil {
		return err
	}
	if err := checkSWU(ctx, swu, cert); err != nil {
		return fmt.Errorf("SWUpdate refuses the image fsbench made: %w", err)
	}
	files[runplan.UpdateSWU] = swu
	return nil
}

// checkSWU checks the image with swupdate -c. Every swupdate binds the
// same abstract socket (@NotifyServer), so that one started while
// another runs (a build beside this one) fails whatever its image: the
// check is tried again a few times before its failure counts.
func checkSWU(ctx context.Context, swu, cert string) error {
	var err error
	for try := range 4 {
		if try > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(try) * 700 * time.Millisecond):
			}
		}
		if err = hostTool(ctx, "swupdate", "-c", "-i", swu, "-k", cert, "-H", runplan.UpdateCompatible+":"+runplan.UpdateHWRevision); err == nil {
			return nil
		}
	}
	return err
}

// cpioEntry appends one regular file (or the trailer) in the "070702"
// format: a header of hexadecimal fields, the name and the data each
// padded to 4 bytes, the checksum the sum of the data's bytes.
func cpioEntry(w *bytes.Buffer, name string, data []byte, mtime int64) {
	var sum uint32
	for _, b := range data {
		sum += uint32(b)
	}
	mode := 0o100644
	if name == "TRAILER!!!" {
		mode = 0
	}
	fmt.Fprintf(w, "070702%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		0, mode, 0, 0, 1, mtime, len(data), 0, 0, 0, 0, len(name)+1, sum)
	w.WriteString(name)
	w.WriteByte(0)
	pad(w)
	w.Write(data)
	pad(w)
}

func pad(w *bytes.Buffer) {
	for w.Len()%4 != 0 {
		w.WriteByte(0)
	}
}

// swupdateScript installs the case's image as a board's updater does:
// swupdate with U-Boot's environment through libubootenv, which finds
// its copies in the /etc/fw_env.config the runner wrote.
const swupdateScript = `#!/bin/sh
set -e
exec swupdate -l 3 -i "$FSBENCH_BUNDLE" -B uboot -k "$FSBENCH_DIR/` + runplan.UpdateCert + `" -H ` + runplan.UpdateCompatible + `:` + runplan.UpdateHWRevision + `
`
