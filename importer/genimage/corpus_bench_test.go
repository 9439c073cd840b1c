package genimage

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/importer"
	"github.com/fsbench/fsbench/internal/testenv"
)

// corpusJob is one configuration of the corpus, ready for both tools:
// its inputs written, genimage's configuration with the placeholders
// filled in, and the imported spec with its variables.
type corpusJob struct {
	name, dir, bin, root, cfg, spec string
	vars                            []string
}

// BenchmarkBuildrootCorpus builds every Buildroot configuration that
// both tools build, one process per configuration as a build system runs
// them: Debian's genimage, then `fsbench build` of the imported spec.
// An iteration builds the whole corpus; the outputs are removed between
// configurations, untimed. With FSBENCH_BENCH_DROP_CACHES=1 the page
// cache is dropped before each build (cold), untimed too.
// bench/import-corpus-vs-genimage.sh runs it and prints the ratio.
func BenchmarkBuildrootCorpus(b *testing.B) {
	testenv.Tools(b, "genimage", "mkdosfs", "mcopy", "mmd", "mke2fs", "genext2fs", "e2fsck", "fsck.vfat", "go")
	dir := b.TempDir()
	fsbench := filepath.Join(dir, "fsbench")
	if out, err := exec.Command("go", "build", "-o", fsbench, "github.com/fsbench/fsbench/cmd/fsbench").CombinedOutput(); err != nil {
		b.Fatalf("building fsbench: %v\n%s", err, out)
	}
	jobs := corpusJobs(b, dir)
	b.Logf("%d configurations that both tools build", len(jobs))
	drop := os.Getenv("FSBENCH_BENCH_DROP_CACHES") == "1"
	tools := []struct {
		name string
		argv func(j corpusJob, out string) []string
	}{
		{"genimage", func(j corpusJob, out string) []string {
			return []string{"genimage", "--config", j.cfg, "--inputpath", j.bin, "--outputpath", out,
				"--rootpath", j.root, "--tmppath", filepath.Join(j.dir, "tmp")}
		}},
		{"fsbench", func(j corpusJob, out string) []string {
			args := []string{fsbench, "build", "-o", out, "-root", j.bin, "-root", j.root}
			for _, v := range j.vars {
				args = append(args, "-var", v)
			}
			return append(args, j.spec)
		}},
	}
	for _, tool := range tools {
		b.Run(tool.name, func(b *testing.B) {
			for range b.N {
				for _, j := range jobs {
					b.StopTimer()
					out := filepath.Join(j.dir, "out")
					os.RemoveAll(out)
					os.RemoveAll(filepath.Join(j.dir, "tmp"))
					if drop {
						dropCaches(b)
					}
					argv := tool.argv(j, out)
					cmd := exec.Command(argv[0], argv[1:]...)
					cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=1")
					b.StartTimer()
					if o, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("%s on %s: %v\n%s", tool.name, j.name, err, lastLines(o, 5))
					}
				}
			}
			b.ReportMetric(float64(len(jobs)), "configs/op")
		})
	}
}

// corpusJobs prepares the configurations that import and that genimage
// 16 builds.
func corpusJobs(b *testing.B, dir string) []corpusJob {
	var jobs []corpusJob
	for i, cfg := range configs(b) {
		if !strings.HasPrefix(cfg, "testdata/buildroot/") {
			continue
		}
		s, err := Import(cfg)
		if err != nil || s.Refused() {
			continue
		}
		src, _ := os.ReadFile(cfg)
		if newerGenimage(string(src)) != "" {
			continue
		}
		j := corpusJob{name: strings.TrimPrefix(cfg, "testdata/buildroot/"), dir: filepath.Join(dir, fmt.Sprint(i))}
		j.bin, j.root = filepath.Join(j.dir, "bin"), filepath.Join(j.dir, "root")
		os.MkdirAll(j.root, 0o755)
		vars := makeInputs(b, s, j.bin)
		for name, v := range vars {
			src = bytes.ReplaceAll(src, []byte("%"+strings.ToUpper(name)+"%"), []byte(v))
			j.vars = append(j.vars, name+"="+v)
		}
		j.vars = append(j.vars, "binaries="+j.bin)
		if slices.ContainsFunc(s.Variables, func(v importer.Variable) bool { return v.Name == "rootpath" }) {
			j.vars = append(j.vars, "rootpath="+j.root)
		}
		slices.Sort(j.vars)
		j.cfg, j.spec = filepath.Join(j.dir, "genimage.cfg"), filepath.Join(j.dir, "imported.fsb.hcl")
		out, err := importer.Write(s)
		if err != nil {
			b.Fatal(err)
		}
		os.WriteFile(j.cfg, src, 0o644)
		os.WriteFile(j.spec, out, 0o644)
		jobs = append(jobs, j)
	}
	return jobs
}

// dropCaches writes the page cache back and drops it.
func dropCaches(b *testing.B) {
	exec.Command("sync").Run()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0o200); err != nil {
		b.Fatalf("dropping the page cache (root only): %v", err)
	}
}
