package repart

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/importer"
	"github.com/fsbench/fsbench/spec/hclfmt"
)

// writeDir makes a repart.d directory of the files given.
func writeDir(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// What systemd-repart refuses, the import refuses at the line.
func TestSyntaxErrorsAreLocated(t *testing.T) {
	for src, want := range map[string]string{
		"[Partition]\nFormat=ext4\n":                                "x.conf:1: Type= not defined",
		"# a comment\n[Partition]\nType=rootfs\n":                   "x.conf:3: Type=rootfs: neither a partition type",
		"[Partition]\nType=esp\nSizeMinBytes=lots\n":                "x.conf:3: SizeMinBytes=: \"lots\" is not a size",
		"[Partition]\nType=esp\nSizeMinBytes=2M\nSizeMaxBytes=1M\n": "x.conf:1: SizeMinBytes= larger than SizeMaxBytes=",
		"[Partition\nType=esp\n":                                    "x.conf:1: \"[Partition\": a section header ends with ]",
		"[Partition]\nType esp\n":                                   "x.conf:2: \"Type esp\" is no KEY=VALUE",
	} {
		_, err := Import(writeDir(t, map[string]string{"x.conf": src}))
		if err == nil || !importer.AsSyntaxError(err) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: error %v, want one starting %q", src, err, want)
		}
	}
}

// The files go in the order of their names; an empty file is masked; a
// value continues on the next line after a backslash; the last of
// several assignments counts, and the other sections are noted.
func TestReadOrderAndSyntax(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"20-b.conf": "[Partition]\nType=swap\nLabel=first\nLabel=sec\\\nond\nSizeMinBytes=4M\nSizeMaxBytes=4M\n[Other]\nKey=1\n",
		"10-a.conf": "; a comment\n[Partition]\nType=esp\nSizeMinBytes=4M\nSizeMaxBytes=4M\n",
		"15-m.conf": "",
		"notes.txt": "[Partition]\nType=home\n",
	})
	s, err := Import(dir)
	if err != nil {
		t.Fatal(err)
	}
	parts := s.Images[0].Partitions
	if len(parts) != 2 || parts[0].Name != "10-a" || parts[1].Label != "sec ond" {
		t.Fatalf("partitions %+v", parts)
	}
	var found []string
	for _, f := range s.Findings {
		found = append(found, f.String())
	}
	all := strings.Join(found, "\n")
	for _, want := range []string{"15-m.conf:1: note: 15-m.conf: empty", "20-b.conf:9: note: [Other] Key"} {
		if !strings.Contains(all, want) {
			t.Errorf("no finding %q in\n%s", want, all)
		}
	}
}

// An imported label or path cannot add a line, an interpolation or a
// block to the spec: it goes through HCL's quoting.
func TestImportQuotesEverything(t *testing.T) {
	dir := writeDir(t, map[string]string{"a.conf": "[Partition]\nType=esp\nLabel=x\"${var.y}\nFormat=vfat\nCopyFiles=/b${c}:/d\"e\nSizeMinBytes=4M\nSizeMaxBytes=4M\n"})
	s, err := Import(dir)
	if err != nil {
		t.Fatal(err)
	}
	out, err := importer.Write(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, diags := hclfmt.Format(out, "x.fsb.hcl"); diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for _, want := range []string{`"x\"$${var.y}"`, `file "/d\"e" {`, `source = "${var.root}/b$${c}"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the spec lacks %s:\n%s", want, out)
		}
	}
}
