package genimage

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/imagegen"
	"github.com/fsbench/fsbench/importer"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// The Buildroot corpus: every configuration imported, built by fsbench
// and by Debian's genimage from the same inputs, and the two tables
// (sfdisk -d, sgdisk -p) and every raw region's and prebuilt
// partition's bytes compared. The outcome of each configuration is one
// of: identical; refused by the import, at a line; built by fsbench
// only, genimage 16 refusing what later genimage reads (listed apart);
// or differs (a failure).
func TestBuildrootCorpus(t *testing.T) {
	testenv.Tools(t, "genimage", "sfdisk", "sgdisk", "mkdosfs", "mcopy", "mmd", "mke2fs", "genext2fs", "e2fsck", "fsck.vfat")
	var cfgs []string
	for _, c := range configs(t) {
		if strings.HasPrefix(c, "testdata/buildroot/") {
			cfgs = append(cfgs, c)
		}
	}
	counts := map[string]int{}
	var apart, refused []string
	for _, cfg := range cfgs {
		outcome, detail := corpusCase(t, cfg)
		counts[outcome]++
		name := strings.TrimPrefix(cfg, "testdata/buildroot/")
		switch outcome {
		case "differs":
			t.Errorf("%s: fsbench and genimage differ:\n%s", name, detail)
		case "genimage16":
			apart = append(apart, name+": "+detail)
		case "refused":
			refused = append(refused, name+": "+detail)
		}
	}
	t.Logf("%d configurations: %d identical, %d refused with a located reason, %d built by fsbench where genimage 16 refuses a later genimage's option, %d differ",
		len(cfgs), counts["identical"], counts["refused"], counts["genimage16"], counts["differs"])
	t.Logf("refused:\n  %s", strings.Join(refused, "\n  "))
	t.Logf("genimage 16 refuses:\n  %s", strings.Join(apart, "\n  "))
}

// corpusCase imports and builds one configuration both ways.
func corpusCase(t *testing.T, cfg string) (outcome, detail string) {
	s, err := Import(cfg)
	if err != nil {
		return "refused", err.Error()
	}
	if s.Refused() {
		var first []string
		for _, f := range s.Findings {
			if !f.Note {
				first = append(first, f.String())
			}
		}
		return "refused", first[0]
	}
	dir := t.TempDir()
	bin, root := filepath.Join(dir, "bin"), filepath.Join(dir, "root")
	os.MkdirAll(root, 0o755)
	vars := makeInputs(t, s, bin)
	src, _ := os.ReadFile(cfg)
	for name, v := range vars {
		src = bytes.ReplaceAll(src, []byte("%"+strings.ToUpper(name)+"%"), []byte(v))
	}
	gcfg := filepath.Join(dir, "genimage.cfg")
	os.WriteFile(gcfg, src, 0o644)
	gout := filepath.Join(dir, "genimage-out")
	cmd := exec.Command("genimage", "--config", gcfg, "--inputpath", bin, "--outputpath", gout, "--rootpath", root, "--tmppath", filepath.Join(dir, "tmp"))
	if out, err := cmd.CombinedOutput(); err != nil {
		if why := newerGenimage(string(src)); why != "" {
			if fout, _, ferr := buildFsbench(t, s, dir, bin, root, vars); ferr != nil {
				return "differs", fmt.Sprintf("genimage 16 refuses %s, and fsbench fails too: %v\n%s", why, ferr, fout)
			}
			return "genimage16", why
		}
		return "differs", fmt.Sprintf("genimage: %v\n%s", err, lastLines(out, 5))
	}
	fout, images, err := buildFsbench(t, s, dir, bin, root, vars)
	if err != nil {
		return "differs", fmt.Sprintf("fsbench: %v\n%s", err, fout)
	}
	var diffs, apart []string
	for i, img := range s.Images {
		d, a := compareImage(t, img, filepath.Join(gout, img.Title), filepath.Join(fout, img.Name+".img"), images[i], string(src))
		diffs, apart = append(diffs, d...), append(apart, a...)
	}
	if len(diffs) > 0 {
		return "differs", strings.Join(diffs, "\n")
	}
	if len(apart) > 0 {
		return "genimage16", strings.Join(apart, "; ")
	}
	return "identical", ""
}

// newerGenimage names an option of the configuration that genimage 16
// does not know, or "".
func newerGenimage(cfg string) string {
	if m := regexp.MustCompile(`(?m)^\s*(#[A-Z_]+#)\s*$`).FindStringSubmatch(cfg); m != nil {
		return "the comment " + m[1] + " inside a list, which Debian 12's libconfuse 3.3 reads as a token (later libconfuse as a comment)"
	}
	for _, m := range regexp.MustCompile(`partition-type-uuid\s*=\s*"?([A-Za-z0-9-]+)"?`).FindAllStringSubmatch(cfg, -1) {
		if v := strings.ToLower(m[1]); !importer.IsGUID(v) && !slices.Contains(shortcuts16, v) {
			return "the type shortcut " + m[1] + " (genimage 17 and later)"
		}
	}
	for _, opt := range []string{"forced-primary", "imageoffset", "sparse"} {
		if strings.Contains(cfg, opt) {
			return "the option " + opt + " (genimage 17 and later)"
		}
	}
	return ""
}

// dirInputs are the inputs of Buildroot's configurations that are
// directories (a vfat files list copies them whole).
var dirInputs = []string{"EFI", "extlinux", "overlays", "ti"}

// makeInputs writes every input the spec names under bin, with bytes
// drawn from its name, and returns the values of the spec's other
// variables (the placeholders of a template).
func makeInputs(t testing.TB, s *importer.Spec, bin string) map[string]string {
	vars := map[string]string{}
	uuidVars := map[string]bool{}
	for _, img := range s.Images {
		for _, p := range img.Partitions {
			if p.UUIDVar != "" {
				uuidVars[p.UUIDVar] = true
			}
		}
	}
	for _, v := range s.Variables {
		switch {
		case v.Name == "binaries" || v.Name == "rootpath":
		case uuidVars[v.Name]:
			vars[v.Name] = "0d2ec0c2-5e34-4a6b-8c17-9ab6e35d2c11"
		default:
			vars[v.Name] = v.Name + ".bin"
		}
	}
	write := func(tx importer.Text, size int64) {
		rel := strings.TrimPrefix(resolve(tx, vars), "${var.binaries}/")
		p := filepath.Join(bin, rel)
		if slices.Contains(dirInputs, filepath.Base(rel)) {
			os.MkdirAll(filepath.Join(p, "sub"), 0o755)
			os.WriteFile(filepath.Join(p, "sub", "file.conf"), inputBytes(rel, 300), 0o644)
			return
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if fi, err := os.Stat(p); err == nil && fi.Size() <= size {
			return // the smaller place decides
		}
		if err := os.WriteFile(p, inputBytes(rel, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, img := range s.Images {
		for _, r := range img.Raw {
			size := int64(8 << 10)
			if r.Size > 0 {
				size = min(size, r.Size)
			}
			write(r.File, size)
		}
		for _, p := range img.Partitions {
			if !p.Image.IsZero() {
				size := int64(8 << 10) // a loader
				if strings.Contains(p.Image.String(), "rootfs") {
					size = 2 << 20
				}
				if p.Size > 0 {
					size = min(size, p.Size/2)
				}
				write(p.Image, size)
			}
			if p.Filesystem != nil {
				for _, f := range p.Filesystem.Files {
					write(f.Source, 64<<10)
				}
			}
		}
	}
	return vars
}

// resolve writes tx with the variables' values, binaries left as is.
func resolve(tx importer.Text, vars map[string]string) string {
	var b strings.Builder
	for _, s := range tx {
		if v, ok := vars[s.Var]; ok && s.Var != "" {
			b.WriteString(v)
		} else {
			b.WriteString(importer.Text{s}.String())
		}
	}
	return b.String()
}

func inputBytes(name string, n int64) []byte {
	h := fnv.New64a()
	h.Write([]byte(name))
	r := rand.New(rand.NewPCG(h.Sum64(), 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// buildFsbench writes the spec, builds it, and returns the directory of
// the images.
func buildFsbench(t *testing.T, s *importer.Spec, dir, bin, root string, vars map[string]string) (string, []plan.Image, error) {
	src, err := importer.Write(s)
	if err != nil {
		return "", nil, err
	}
	p := filepath.Join(dir, "imported.fsb.hcl")
	os.WriteFile(p, src, 0o644)
	opts := spec.Options{Vars: []string{"binaries=" + bin}, Roots: []string{bin, root}}
	if slices.ContainsFunc(s.Variables, func(v importer.Variable) bool { return v.Name == "rootpath" }) {
		opts.Vars = append(opts.Vars, "rootpath="+root)
	}
	for name, v := range vars {
		opts.Vars = append(opts.Vars, name+"="+v)
	}
	sp, pl, diags := plan.LoadSealed(p, opts)
	if diags.HasErrors() {
		return string(src), nil, fmt.Errorf("%s", diags.Error())
	}
	out := filepath.Join(dir, "fsbench-out")
	log := logrus.New()
	log.SetOutput(&bytes.Buffer{})
	if _, err := imagegen.Build(context.Background(), pl, pl.Variants[0], imagegen.Options{OutDir: out, SpecDir: sp.Dir, Epoch: 1, Log: log}); err != nil {
		return string(src), nil, err
	}
	return filepath.Join(out, pl.Variants[0].Name), pl.Variants[0].Images, nil
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// compareImage compares one image of both tools: the tables, and the
// bytes of every raw region and prebuilt partition image. It returns the
// differences, and apart those that are genimage 16's rule where later
// genimage follows fsbench's.
func compareImage(t *testing.T, img *importer.Image, gimg, fimg string, pl plan.Image, cfg string) (diffs, apart []string) {
	if _, err := os.Stat(gimg); err != nil {
		return []string{fmt.Sprintf("genimage wrote no %s", filepath.Base(gimg))}, nil
	}
	switch img.Table {
	case "none":
		if img.Fill == 0xff && !sameFile(gimg, fimg) {
			diffs = append(diffs, "the flash images' bytes differ")
		}
	default:
		d, a := compareTables(gimg, fimg, img, cfg)
		diffs, apart = append(diffs, d...), append(apart, a...)
	}
	for _, r := range pl.Raw {
		if !sameBytes(gimg, fimg, r.Offset, r.Size, r.Holes) {
			diffs = append(diffs, fmt.Sprintf("raw region %s: the bytes at %d differ", r.Name, r.Offset))
		}
	}
	for _, p := range pl.Partitions {
		if p.Image == "" {
			continue
		}
		fi, err := os.Stat(p.Image)
		if err != nil {
			diffs = append(diffs, err.Error())
			continue
		}
		if !sameBytes(gimg, fimg, p.Offset, fi.Size(), nil) {
			diffs = append(diffs, fmt.Sprintf("partition %s: the image's bytes at %d differ", p.Name, p.Offset))
		}
	}
	return diffs, apart
}

// compareTables compares sfdisk -d (and on GPT sgdisk -p, and a hybrid
// MBR's entries) of the two images, without what genimage draws at
// random: the disk GUID and partition GUIDs the configuration does not
// give.
func compareTables(gimg, fimg string, img *importer.Image, cfg string) (diffs, apart []string) {
	dumps := [][]string{{"sfdisk", "-d"}}
	if img.Table == "gpt" {
		dumps = append(dumps, []string{"sgdisk", "-p"})
		if len(img.HybridMBR) > 0 {
			dumps = append(dumps, []string{"sfdisk", "-d", "--label-nested", "dos"})
		}
	}
	if regexp.MustCompile(`gpt-no-backup\s*=\s*"?(true|yes|on)`).MatchString(cfg) {
		// Without a backup, genimage's header names itself as its
		// backup (sfdisk then reads the protective MBR), fsbench's the
		// last sector (sgdisk then warns): the partitions are compared.
		dumps = [][]string{{"sgdisk", "-p"}}
		apart = append(apart, "gpt-no-backup: genimage's header gives LBA 1 as its backup's place, fsbench's the last sector, where UEFI looks for it")
	}
	for _, argv := range dumps {
		g, gerr := exec.Command(argv[0], append(argv[1:], gimg)...).Output()
		f, ferr := exec.Command(argv[0], append(argv[1:], fimg)...).Output()
		if gerr != nil || ferr != nil {
			diffs = append(diffs, fmt.Sprintf("%s: genimage's %v, fsbench's %v", strings.Join(argv, " "), gerr, ferr))
			continue
		}
		gn, fn := normalize(string(g), gimg, cfg), normalize(string(f), fimg, cfg)
		if len(dumps) == 1 && argv[0] == "sgdisk" && img.NoGPTBackup {
			gn, fn = partitionLines(gn), partitionLines(fn)
		}
		if gn == fn {
			continue
		}
		if rule := genimage16Rule(gn, fn); rule != "" {
			apart = append(apart, rule)
			continue
		}
		diffs = append(diffs, fmt.Sprintf("%s:\n--- genimage\n%s--- fsbench\n%s", strings.Join(argv, " "), gn, fn))
	}
	return diffs, apart
}

var (
	uuidField = regexp.MustCompile(`, uuid=([0-9A-Fa-f-]{36})`)
	guidLine  = regexp.MustCompile(`(?m)^(label-id|Disk identifier \(GUID\)): *([0-9A-Fa-f-]{36})$`)
)

// normalize takes the image's path and the GUIDs genimage draws at
// random out of a dump.
func normalize(dump, img, cfg string) string {
	dump = strings.ReplaceAll(dump, img, "IMG")
	lower := strings.ToLower(cfg)
	dump = uuidField.ReplaceAllStringFunc(dump, func(m string) string {
		if strings.Contains(lower, strings.ToLower(m[len(", uuid="):])) {
			return m
		}
		return ""
	})
	dump = guidLine.ReplaceAllStringFunc(dump, func(m string) string {
		sub := guidLine.FindStringSubmatch(m)
		if strings.Contains(lower, strings.ToLower(sub[2])) {
			return m
		}
		return sub[1] + ": (random)"
	})
	var keep []string
	for _, l := range strings.Split(dump, "\n") {
		// grain: sfdisk's alignment hint, from the file's size, which
		// genimage ends at the last data written
		if !strings.HasPrefix(l, "device:") && !strings.HasPrefix(l, "Disk IMG") && !strings.HasPrefix(l, "grain:") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// genimage16Rule names the rule of genimage 16 that explains the
// difference of two dumps, where genimage 17 and later write fsbench's,
// or "".
func genimage16Rule(g, f string) string {
	gl, fl := strings.Split(g, "\n"), strings.Split(f, "\n")
	if len(gl) != len(fl) {
		return ""
	}
	var rules []string
	for i := range gl {
		if gl[i] == fl[i] {
			continue
		}
		switch {
		case strings.HasPrefix(gl[i], "first-lba:") || strings.HasPrefix(gl[i], "First usable sector") || strings.HasPrefix(gl[i], "Total free space"):
			rules = append(rules, "the GPT's first usable sector: genimage 16 writes the first partition's start, genimage 17 and later (and fsbench) the end of the entries or of a loader before the first partition (genimage commit 1ccb8c3)")
		case strings.Contains(gl[i], "type=f") && strings.Contains(fl[i], "type=f"):
			rules = append(rules, "the extended partition's size: genimage 16 runs it to the end of the image, genimage 17 and later (and fsbench) to the end of the last logical partition")
		default:
			return ""
		}
	}
	slices.Sort(rules)
	return strings.Join(slices.Compact(rules), "; ")
}

func sameFile(a, b string) bool {
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// sameBytes compares n bytes at off of two files, holes left out.
func sameBytes(a, b string, off, n int64, holes []plan.Hole) bool {
	read := func(p string) []byte {
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		buf := make([]byte, n)
		k, _ := f.ReadAt(buf, off)
		buf = buf[:k]
		for _, h := range holes {
			for i := h.Offset; i < h.Offset+h.Size && i < int64(len(buf)); i++ {
				buf[i] = 0
			}
		}
		return buf
	}
	x, y := read(a), read(b)
	return x != nil && len(x) == len(y) && bytes.Equal(x, y)
}

// partitionLines is the partition list of sgdisk -p.
func partitionLines(dump string) string {
	if i := strings.Index(dump, "Number  Start"); i >= 0 {
		return dump[i:]
	}
	return dump
}
