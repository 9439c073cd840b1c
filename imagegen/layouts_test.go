package imagegen

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/golden"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/internal/units"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// layoutBlobs are the boot loaders the board layouts in
// testdata/layouts place, with plausible sizes. Their bytes are drawn
// from their names, so that a read-back finds each at its place.
var layoutBlobs = map[string]int64{
	"u-boot-sunxi-with-spl.bin": 700 * units.KiB,
	"idbloader.img":             150 * units.KiB,
	"u-boot.itb":                900 * units.KiB,
	"flash.bin":                 1536 * units.KiB,
	"u-boot.bin.sd.bin":         1000 * units.KiB,
	"tf-a.stm32":                200 * units.KiB,
	"fip.bin":                   1300 * units.KiB,
}

func blobBytes(name string, n int64) []byte {
	h := fnv.New64a()
	h.Write([]byte(name))
	r := rand.New(rand.NewPCG(h.Sum64(), 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// buildLayout builds one board layout with its blobs and returns its plan
// and the image's path.
func buildLayout(t *testing.T, name string) (*plan.Image, string) {
	t.Helper()
	testenv.Tool(t, "sfdisk")
	testenv.Tool(t, "sgdisk")
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata/layouts", name+".fsb.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(dir, name+".fsb.hcl")
	os.WriteFile(specPath, src, 0o644)
	os.Mkdir(filepath.Join(dir, "blobs"), 0o755)
	for blob, n := range layoutBlobs {
		if err := os.WriteFile(filepath.Join(dir, "blobs", blob), blobBytes(blob, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, p, diags := plan.LoadSealed(specPath, spec.Options{})
	if diags.HasErrors() {
		t.Fatalf("spec: %s", diags.Error())
	}
	out := t.TempDir()
	log := logrus.New()
	log.SetOutput(testWriter{t})
	if _, err := Build(context.Background(), p, p.Variants[0], Options{OutDir: out, SpecDir: s.Dir, Epoch: 1, Log: log}); err != nil {
		t.Fatal(err)
	}
	img := &p.Variants[0].Images[0]
	return img, filepath.Join(out, p.Variants[0].Name, img.File)
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// checkLayout verifies an image with the real partitioners, compares its
// sfdisk dump with the golden one, and reads every raw region back.
func checkLayout(t *testing.T, name string, img *plan.Image, path string) []byte {
	t.Helper()
	if out, err := exec.Command("sfdisk", "--verify", path).CombinedOutput(); err != nil || !strings.Contains(string(out), "No errors detected") {
		t.Errorf("sfdisk --verify: %v\n%s", err, out)
	}
	if img.Table == "gpt" && (img.GPT == nil || img.GPT.Backup) {
		out, err := exec.Command("sgdisk", "-v", path).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "No problems found") {
			t.Errorf("sgdisk -v: %v\n%s", err, out)
		}
	}
	dump := run(t, "sfdisk", "-d", path)
	dump = strings.ReplaceAll(dump, path, img.File)
	golden.Check(t, filepath.Join("testdata/layouts", name+".sfdisk"), []byte(dump), *update)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range img.Raw {
		want := blobBytes(filepath.Base(r.File), layoutBlobs[filepath.Base(r.File)])
		got := data[r.Offset : r.Offset+int64(len(want))]
		for at := int64(0); at < int64(len(want)); at++ {
			if inHoles(at, r.Holes) {
				continue
			}
			if got[at] != want[at] {
				t.Errorf("raw %s: byte %d of the file (disk byte %d) is %#x, want %#x", r.Name, at, r.Offset+at, got[at], want[at])
				break
			}
		}
	}
	return data
}

func inHoles(at int64, holes []plan.Hole) bool {
	for _, h := range holes {
		if at >= h.Offset && at < h.Offset+h.Size {
			return true
		}
	}
	return false
}

func partitionByName(t *testing.T, img *plan.Image, name string) plan.Partition {
	t.Helper()
	for _, p := range img.Partitions {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no partition %s", name)
	return plan.Partition{}
}

// gptHeader reads the fields of the GPT header at lba that the layouts
// move: its own LBA, the other header's, the usable range and the entries.
func layoutGPTHeader(t *testing.T, data []byte, lba int64) (my, alt, first, last, entries uint64) {
	t.Helper()
	h := data[lba*512 : lba*512+92]
	if string(h[:8]) != "EFI PART" {
		t.Fatalf("no GPT header at sector %d", lba)
	}
	le := binary.LittleEndian
	return le.Uint64(h[24:]), le.Uint64(h[32:]), le.Uint64(h[40:]), le.Uint64(h[48:]), le.Uint64(h[72:])
}

// TestBoardLayouts builds each board's layout from the SoC's documented
// offsets and checks what its boot ROM reads.
func TestBoardLayouts(t *testing.T) {
	t.Run("allwinner-a64-sd", func(t *testing.T) {
		img, path := buildLayout(t, "allwinner-a64-sd")
		data := checkLayout(t, "allwinner-a64-sd", img, path)
		total := int64(len(data)) / 512
		// The entries moved to 1MiB, the SPL intact at 8KiB (sector 16).
		my, alt, first, _, entries := layoutGPTHeader(t, data, 1)
		if my != 1 || alt != uint64(total-1) || entries != 2048 || first != 2080 {
			t.Errorf("primary header: my %d alt %d first usable %d entries at %d; want 1, %d, 2080, 2048", my, alt, first, entries, total-1)
		}
		my, alt, _, _, entries = layoutGPTHeader(t, data, total-1)
		if my != uint64(total-1) || alt != 1 || entries != uint64(total-33) {
			t.Errorf("backup header: my %d alt %d entries at %d; want %d, 1, %d", my, alt, entries, total-1, total-33)
		}
		if b := partitionByName(t, img, "boot"); b.StartSector != 4096 {
			t.Errorf("boot starts at sector %d, want 4096 (the first 1MiB boundary after the entries)", b.StartSector)
		}
		if r := partitionByName(t, img, "rootfs"); r.Type != "b921b045-1df0-41c3-af44-4c6f280d3fae" {
			t.Errorf("rootfs type %s, want the arm64 root type the board's arch gives", r.Type)
		}
	})
	t.Run("rockchip-rk3399-emmc", func(t *testing.T) {
		img, path := buildLayout(t, "rockchip-rk3399-emmc")
		checkLayout(t, "rockchip-rk3399-emmc", img, path)
		if img.Raw[0].Offset != 64*512 || img.Raw[1].Offset != 16384*512 {
			t.Errorf("raw regions at %d and %d, want sectors 64 and 16384", img.Raw[0].Offset, img.Raw[1].Offset)
		}
		if b := partitionByName(t, img, "boot"); b.StartSector != 32768 || b.Number != 1 {
			t.Errorf("boot = %+v, want partition 1 at sector 32768", b)
		}
	})
	t.Run("imx8mm-sd", func(t *testing.T) {
		img, path := buildLayout(t, "imx8mm-sd")
		data := checkLayout(t, "imx8mm-sd", img, path)
		// flash.bin takes 33KiB up to 1569KiB: boot skips to 2MiB, and the
		// first usable sector is the loader's end.
		if b := partitionByName(t, img, "boot"); b.StartSector != 4096 {
			t.Errorf("boot starts at sector %d, want 4096", b.StartSector)
		}
		if _, _, first, _, _ := layoutGPTHeader(t, data, 1); first != (33*1024+1536*1024)/512 {
			t.Errorf("first usable sector %d, want %d, after flash.bin", first, (33*1024+1536*1024)/512)
		}
	})
	t.Run("rpi-hybrid", func(t *testing.T) {
		img, path := buildLayout(t, "rpi-hybrid")
		data := checkLayout(t, "rpi-hybrid", img, path)
		boot := partitionByName(t, img, "boot")
		e := mbrSlots(data)
		if e[0].status != 0x80 || e[0].typ != 0x0c || e[0].start != uint32(boot.StartSector) || e[0].sectors != uint32(boot.Sectors) {
			t.Errorf("MBR entry 1 = %+v, want the boot partition, 0x0c, active", e[0])
		}
		if e[1].typ != 0xee || e[1].start != 1 || e[1].sectors != 33 || e[2].typ != 0 || e[3].typ != 0 {
			t.Errorf("MBR entries 2-4 = %+v, want the protective 0xee over sectors 1-33, then none", e[1:])
		}
	})
	t.Run("amlogic-s905-sd", func(t *testing.T) {
		img, path := buildLayout(t, "amlogic-s905-sd")
		data := checkLayout(t, "amlogic-s905-sd", img, path)
		// The loader's boot code up to byte 440, then the table, then the
		// loader again from byte 512.
		blob := blobBytes("u-boot.bin.sd.bin", layoutBlobs["u-boot.bin.sd.bin"])
		if !bytes.Equal(data[:440], blob[:440]) || !bytes.Equal(data[512:4096], blob[512:4096]) {
			t.Error("the loader's bytes around its hole are not where it put them")
		}
		if data[510] != 0x55 || data[511] != 0xaa || binary.LittleEndian.Uint32(data[440:]) == binary.LittleEndian.Uint32(blob[440:]) {
			t.Error("the MBR's signature and disk id are not in the hole")
		}
	})
	t.Run("ti-am335x-sd", func(t *testing.T) {
		img, path := buildLayout(t, "ti-am335x-sd")
		data := checkLayout(t, "ti-am335x-sd", img, path)
		e := mbrSlots(data)
		if e[0].status != 0x80 || e[0].typ != 0x0c || e[1].typ != 0x0f || e[2].typ != 0x83 || e[3].typ != 0 {
			t.Errorf("MBR entries = %+v; want boot (active FAT), the extended partition in slot 2, factory in slot 3", e)
		}
		if f := partitionByName(t, img, "factory"); f.Number != 3 || int64(e[2].start) != f.StartSector || f.StartSector < img.Extended.StartSector+img.Extended.Sectors {
			t.Errorf("factory = %+v, want partition 3 after the extended partition %+v", f, img.Extended)
		}
	})
	t.Run("stm32mp157-sd", func(t *testing.T) {
		img, path := buildLayout(t, "stm32mp157-sd")
		checkLayout(t, "stm32mp157-sd", img, path)
		f1, f2, fip := partitionByName(t, img, "fsbl1"), partitionByName(t, img, "fsbl2"), partitionByName(t, img, "fip")
		if f1.StartSector != 34 || f1.Label != "fsbl1" || f2.StartSector != 34+512 || f2.Label != "fsbl2" {
			t.Errorf("fsbl1 %+v, fsbl2 %+v: want them at sectors 34 and 546, named so", f1, f2)
		}
		if fip.Size != 2*units.MiB || fip.StartSector != 2048 {
			t.Errorf("fip = %+v, want fip.bin's 1300KiB rounded up to 2MiB, at 1MiB", fip)
		}
	})
	t.Run("small-flash-no-backup", func(t *testing.T) {
		img, path := buildLayout(t, "small-flash-no-backup")
		data := checkLayout(t, "small-flash-no-backup", img, path)
		total := int64(len(data)) / 512
		if !bytes.Equal(data[(total-33)*512:], make([]byte, 33*512)) {
			t.Error("the image ends in a backup GPT it was not to have")
		}
	})
}

type mbrSlot struct {
	status, typ    byte
	start, sectors uint32
}

func mbrSlots(data []byte) [4]mbrSlot {
	var e [4]mbrSlot
	for i := range e {
		b := data[446+16*i:]
		e[i] = mbrSlot{b[0], b[4], binary.LittleEndian.Uint32(b[8:]), binary.LittleEndian.Uint32(b[12:])}
	}
	return e
}
