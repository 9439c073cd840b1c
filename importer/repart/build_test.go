package repart

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/imagegen"
	"github.com/fsbench/fsbench/importer"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// The ESP-and-root directory, imported and built by fsbench from a small
// root directory on a disk of repart's --size=512M: the table has the
// places systemd-repart gives (repartSized), the ESP holds the root's
// /boot and the root the whole tree, and both filesystems pass fsck.
func TestBuildESPAndRoot(t *testing.T) {
	testenv.Tools(t, "sfdisk", "mkfs.vfat", "mcopy", "mdir", "mke2fs", "e2fsck", "debugfs", "fsck.vfat")
	s, _ := importDir(t, "fsbench-esp-root")
	if s.Refused() {
		t.Fatalf("import: %v", s.Findings)
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	put(t, filepath.Join(root, "boot", "EFI", "BOOT", "BOOTX64.EFI"), strings.Repeat("MZ", 40_000))
	put(t, filepath.Join(root, "etc", "hostname"), "repart\n")
	put(t, filepath.Join(root, "usr", "bin", "true"), strings.Repeat("\x7fELF", 3_000))
	sized := repartSized["fsbench-esp-root"]
	img := build(t, s, dir, map[string]string{"root": root, "disk_size": sized.size})

	var dump struct {
		Table struct {
			Partitions []struct {
				Start, Size int64
				Name        string
			}
		} `json:"partitiontable"`
	}
	if err := json.Unmarshal([]byte(testenv.Run(t, "", "sfdisk", "-J", img)), &dump); err != nil {
		t.Fatal(err)
	}
	var got []slot
	for _, p := range dump.Table.Partitions {
		got = append(got, slot{p.Start, p.Size, p.Name})
	}
	if len(got) != 2 || got[0] != sized.slots[0] || got[1] != sized.slots[1] {
		t.Fatalf("sfdisk -J reads %v; systemd-repart writes %v", got, sized.slots)
	}
	esp := testenv.CopyRange(t, img, got[0].start*512, got[0].sectors*512, filepath.Join(dir, "esp.vfat"))
	rootfs := testenv.CopyRange(t, img, got[1].start*512, got[1].sectors*512, filepath.Join(dir, "root.ext4"))
	testenv.Run(t, "", "fsck.vfat", "-n", esp)
	testenv.Run(t, "", "e2fsck", "-fn", rootfs)
	if out := testenv.Run(t, "", "mdir", "-b", "-i", esp, "::/EFI/BOOT"); !strings.Contains(out, "BOOTX64.EFI") {
		t.Errorf("the ESP lacks /EFI/BOOT/BOOTX64.EFI (CopyFiles=/boot:/): mdir shows\n%s", out)
	}
	if out := testenv.Run(t, "", "debugfs", "-R", "cat /etc/hostname", rootfs); out != "repart\n" {
		t.Errorf("/etc/hostname of the root reads %q (CopyFiles=/)", out)
	}
}

func put(t *testing.T, path, content string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// build writes the spec, builds it with the variables' values and
// returns the image's path.
func build(t *testing.T, s *importer.Spec, dir string, vars map[string]string) string {
	src, err := importer.Write(s)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "imported.fsb.hcl")
	put(t, p, string(src))
	opts := spec.Options{Roots: []string{dir}}
	for k, v := range vars {
		opts.Vars = append(opts.Vars, k+"="+v)
	}
	sp, pl, diags := plan.LoadSealed(p, opts)
	if diags.HasErrors() {
		t.Fatalf("%s\n%s", diags.Error(), src)
	}
	out := filepath.Join(dir, "out")
	log := logrus.New()
	log.SetOutput(io.Discard)
	if _, err := imagegen.Build(context.Background(), pl, pl.Variants[0], imagegen.Options{OutDir: out, SpecDir: sp.Dir, Epoch: 1, Jobs: 1, Log: log}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(out, pl.Variants[0].Name, "disk.img")
}
