package imagegen

import (
	"context"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"

	"github.com/fsbench/fsbench/imagegen/payload"
	"github.com/fsbench/fsbench/imagegen/userland"
	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/wire/runplan"
)

// targetPrograms are the programs the runner runs for the plan's steps,
// as the plan compiled them from each recipe's needs: the checker and
// mkfs of the partitions the reliability tests and fsck_time work on,
// sqlite3 for sqlite_tps, and the cleaner of a partition a test mounts
// (nilfs_cleanerd). A program a step merely prefers to its built-in
// engine (fio) is not needed. Sorted, as the plan names them (a name or a
// path).
func targetPrograms(rp *runplan.Plan) []string {
	var progs []string
	add := func(p string) {
		if !slices.Contains(progs, p) {
			progs = append(progs, p)
		}
	}
	for _, s := range rp.Steps {
		for _, p := range s.Needs.Programs {
			add(p)
		}
		if part, ok := rp.Partition(s.On); ok && len(part.Cleaner) > 0 {
			add(part.Cleaner[0])
		}
	}
	slices.Sort(progs)
	return progs
}

// toolsLayer writes, for a busybox userland, the tarball of the Debian
// programs the variant's tests run on the target, with their libraries,
// and records their packages in um. It returns "" when the tests run
// none. A program no package is known for is a warning: the runner
// reports the tests that need it as skipped, with the reason.
func (b *builder) toolsLayer(ctx context.Context, p *plan.Plan, v plan.Variant, work string, um *UserlandManifest) (string, error) {
	rp, err := payload.Compile(p, &v)
	if err != nil {
		return "", err
	}
	progs := targetPrograms(rp)
	var names []string
	for _, prog := range progs {
		name := path.Base(prog)
		if _, ok := userland.ToolPackage(name); !ok {
			b.log.Warnf("the tests run %s on the target, and fsbench knows no Debian package for it: "+
				"the busybox userland goes without, and the runner skips what needs it", prog)
			continue
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return "", nil
	}
	tools, err := userland.FetchTools(ctx, b.log, b.opts.cacheDir(), v.Board.Arch, names)
	if err != nil {
		return "", err
	}
	for _, prog := range progs {
		if at, ok := tools.Programs[path.Base(prog)]; ok && path.IsAbs(prog) && at != prog {
			b.log.Warnf("the tests run %s, and Debian installs it at %s: give the plan its name or that path", prog, at)
		}
	}
	tarPath := filepath.Join(work, "tools.tar")
	if err := atomicfile.WriteFunc(tarPath, 0o644, func(w io.Writer) error { return tools.WriteTar(w, b.opts.Epoch) }); err != nil {
		return "", fmt.Errorf("target tools: %w", err)
	}
	um.ToolPackages, um.Programs = tools.PackageNames(), tools.Programs
	return tarPath, nil
}
