package lava

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/driver"
	"github.com/fsbench/fsbench/imagegen"
	"github.com/fsbench/fsbench/imagegen/payload"
	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/qemu/kernel"
	"github.com/fsbench/fsbench/spec"
)

// Build is how `fsbench lava jobs` builds a variant's files.
type Build struct {
	Out     string // the output directory: OUT/<variant>/ gets the image
	SpecDir string
	Runner  string // the runner binary, "" to find it beside fsbench
	Cache   string
	Epoch   int64
	Kernel  kernel.Request // a qemu device's direct boot
	Log     *logrus.Logger
}

// BuildVariant builds v and the files its jobs download (a qemu device's
// kernel and initramfs, or U-Boot's files), and returns its jobs.
func BuildVariant(ctx context.Context, p *plan.Plan, v plan.Variant, opt Options, b Build) ([]Job, error) {
	bin, err := payload.FindRunner(b.Runner, v.Board.Arch)
	if err != nil {
		return nil, err
	}
	if _, err := imagegen.Build(ctx, p, v, imagegen.Options{OutDir: b.Out, SpecDir: b.SpecDir, Epoch: b.Epoch, Log: b.Log,
		Runner: bin, CacheDir: b.Cache}); err != nil {
		return nil, fmt.Errorf("variant %s: %w", v.Name, err)
	}
	lv := Variant{Name: v.Name, Dir: filepath.Join(b.Out, v.Name), Board: v.Board}
	dt := opt.DeviceType
	if dt == "" && v.Board.LAVA != nil {
		dt = v.Board.LAVA.DeviceType
	}
	if dt == spec.LAVAQEMU {
		switch opt.Boot {
		case BootUBoot:
			err = PrepareUBoot(&lv)
		default:
			err = PrepareDirect(ctx, b.Log, &lv, driver.QEMU{KernelCache: filepath.Join(b.Cache, "kernels"), Kernel: b.Kernel}, bin)
		}
		if err != nil {
			return nil, fmt.Errorf("variant %s: %w", v.Name, err)
		}
	}
	return Jobs(lv, opt)
}

// SchemaErrors are the jobs LAVA's schema refuses.
type SchemaErrors []SchemaError

func (es SchemaErrors) Error() string {
	var lines []string
	for _, e := range es {
		lines = append(lines, "LAVA's schema refuses "+e.String())
	}
	return strings.Join(lines, "\n")
}

// WriteJobs writes the jobs' definitions into dir (OUT/lava) and returns
// their paths, after checking every one of them with LAVA's schema, and
// with lava-run --validate against deviceDict when it is given: a refused
// job (SchemaErrors) leaves the last good set in place. comment is the
// line above each definition. It returns the definitions too, by file,
// for SubmitJobs.
func WriteJobs(ctx context.Context, dir string, jobs []Job, comment func(Job) string, deviceDict string) ([]string, map[string][]byte, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".lava-check-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	files := map[string][]byte{}
	var checked []string
	for _, j := range jobs {
		b, err := j.Definition.YAML(comment(j))
		if err != nil {
			return nil, nil, err
		}
		f := filepath.Join(tmp, j.File)
		if err := os.WriteFile(f, b, 0o644); err != nil {
			return nil, nil, err
		}
		files[j.File], checked = b, append(checked, f)
	}
	bad, err := ValidateSchema(ctx, checked...)
	if err != nil {
		return nil, nil, err
	}
	if len(bad) > 0 {
		for i := range bad {
			bad[i].File = filepath.Base(bad[i].File)
		}
		return nil, nil, SchemaErrors(bad)
	}
	if deviceDict != "" {
		for _, f := range checked {
			if err := ValidateDispatcher(ctx, f, deviceDict, tmp); err != nil {
				return nil, nil, err
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	var paths []string
	for _, j := range jobs {
		p := filepath.Join(dir, j.File)
		if err := atomicfile.WriteFile(p, files[j.File], 0o644); err != nil {
			return nil, nil, err
		}
		paths = append(paths, p)
	}
	return paths, files, nil
}

// SubmittedFile is the file in OUT/lava that records the jobs a
// submission sent, for `fsbench lava results -jobs`.
const SubmittedFile = "submitted.json"

// Submitted is SubmittedFile.
type Submitted struct {
	Server string         `json:"server"`
	Jobs   []SubmittedJob `json:"jobs"`
}

// SubmittedJob is one job a server accepted.
type SubmittedJob struct {
	File    string `json:"file"`
	Variant string `json:"variant"`
	ID      int    `json:"id"`
}

// SubmitJobs submits every job (its definition from files) to server, in
// order, and records the ids the server gave in dir's SubmittedFile. It
// stops at the first refusal, keeping the record of what went before.
// accepted is called for each job id.
func SubmitJobs(ctx context.Context, server *Server, dir string, jobs []Job, files map[string][]byte, accepted func(j Job, id int)) (Submitted, error) {
	rec := Submitted{Server: server.URL}
	var failed error
	for _, j := range jobs {
		ids, err := server.Submit(ctx, files[j.File])
		if err != nil {
			failed = fmt.Errorf("submitting %s: %w", j.File, err)
			break
		}
		for _, id := range ids {
			rec.Jobs = append(rec.Jobs, SubmittedJob{File: j.File, Variant: j.Variant, ID: id})
			accepted(j, id)
		}
	}
	if len(rec.Jobs) > 0 {
		b, _ := json.MarshalIndent(rec, "", "  ")
		if err := atomicfile.WriteFile(filepath.Join(dir, SubmittedFile), append(b, '\n'), 0o644); err != nil {
			return rec, errors.Join(failed, err)
		}
	}
	return rec, failed
}

// ReadSubmitted reads a SubmittedFile.
func ReadSubmitted(path string) (Submitted, error) {
	var rec Submitted
	b, err := os.ReadFile(path)
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("%s: %v", path, err)
	}
	return rec, nil
}
