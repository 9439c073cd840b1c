package imagegen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/imagegen/stage"
	"github.com/fsbench/fsbench/internal/units"
	"github.com/fsbench/fsbench/plan"
)

// buildFilesystem makes the filesystem of p in imgDir, its work files in
// dir: it stages the contents with layers over them, runs the plan's mkfs and populate command
// lines, then hands the result to place while the type's read-only
// checker reads it, and refuses a result larger than the partition.
// place copies: it only reads the file.
func (b *builder) buildFilesystem(ctx context.Context, p plan.Partition, layers []string, dir, imgDir string, place func(path string) error) error {
	f := p.Filesystem
	typ, ok := filesystems.Lookup(f.Type)
	if !ok {
		return fmt.Errorf("unknown filesystem type %q", f.Type)
	}
	for _, d := range []string{dir, imgDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	lim, err := scratchLimits(dir, p.Size)
	if err != nil {
		return err
	}
	out := filepath.Join(imgDir, f.Type+".img")
	if !typ.ReadOnly {
		if err := sparseFile(out, p.Size); err != nil {
			return err
		}
	}
	tree, err := b.stage(ctx, filepath.Join(dir, "root"), typ, f.Contents, layers, stageLimit(typ, p.Size))
	var big *stage.TooLargeError
	if errors.As(err, &big) {
		return fmt.Errorf("the contents (%s so far, at %s) do not fit partition %s (%s)%s",
			units.HumanSize(big.Bytes), big.Member, p.Name, units.HumanSize(p.Size), compressedNote(typ))
	}
	if err != nil {
		return fmt.Errorf("staging the contents of %s: %w", p.Name, err)
	}
	defer tree.remove()

	ph := placeholders{image: out, root: tree.root, epoch: strconv.FormatInt(b.opts.Epoch, 10)}
	steps := append([]filesystems.Command{f.Mkfs}, f.Populate...)
	if err := b.treeFiles(ctx, &ph, typ, steps, tree, dir); err != nil {
		return err
	}
	for _, step := range steps {
		argv, env, skip, err := ph.expand(step)
		if err != nil {
			return err
		}
		if skip {
			continue
		}
		b.log.Debugf("%s: %v", p.Name, argv)
		if _, err := runTool(ctx, tree.run, lim, argv, env); err != nil {
			return err
		}
	}
	if typ.Populate == filesystems.PopulateVM && (f.Contents != nil || len(layers) > 0) {
		if err := b.vmPopulate(ctx, f.Type, out, tree, dir, lim); err != nil {
			return err
		}
	}
	if typ.ReadOnly {
		if err := fits(out, p); err != nil {
			return err
		}
	}
	checked := make(chan error, 1)
	go func() { checked <- b.check(ctx, p, ph, lim) }()
	err = place(out)
	if cerr := <-checked; cerr != nil {
		return cerr // the checker's verdict explains more than a failed copy
	}
	return err
}

// check runs the type's read-only checker on the new filesystem.
func (b *builder) check(ctx context.Context, p plan.Partition, ph placeholders, lim limits) error {
	if p.Filesystem.Check == nil {
		return nil
	}
	argv, env, _, err := ph.expand(*p.Filesystem.Check)
	if err != nil {
		return err
	}
	if _, err := runTool(ctx, plainRunner, lim, argv, env); err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // stopped, not a verdict on the filesystem
		}
		return fmt.Errorf("the %s checker rejects the new filesystem of %s: %w", p.Filesystem.Type, p.Name, err)
	}
	return nil
}

// treeFiles checks the staged tree against what the type keeps, and
// writes what the steps read about it: the protofile, the debugfs script,
// the xfs mode fixups.
func (b *builder) treeFiles(ctx context.Context, ph *placeholders, typ *filesystems.Type, steps []filesystems.Command, t *tree, dir string) error {
	entries, err := t.entries(ctx)
	if err != nil {
		return err
	}
	if err := checkLosses(typ, entries); err != nil {
		return err
	}
	needProto, needScript := uses(steps, "{protofile}"), uses(steps, "{debugfs_script}")
	ph.modeFixups = xfsModeFixups(entries)
	if needProto {
		ph.protofile = filepath.Join(dir, "protofile")
		if err := writeProtofile(ph.protofile, t.root, entries); err != nil {
			return err
		}
	}
	if needScript {
		ph.debugfsScript = filepath.Join(dir, "debugfs.script")
		if err := writeDebugfsScript(ph.debugfsScript, entries, t.reowned, b.opts.Epoch); err != nil {
			return err
		}
	}
	return nil
}

// fits checks an image a tool sized itself (squashfs, erofs).
func fits(path string, p plan.Partition) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Size() > p.Size {
		return fmt.Errorf("the %s image of %s is %s, larger than its %s partition; enlarge the partition",
			p.Filesystem.Type, p.Name, units.HumanSize(fi.Size()), units.HumanSize(p.Size))
	}
	return nil
}

// sparseFile creates a file of size bytes that takes no space yet.
func sparseFile(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// stageLimit bounds what may be staged for a filesystem of size bytes:
// no more than fits in it, uncompressed; a compressing read-only type
// (squashfs, erofs) may take eight times as much.
func stageLimit(typ *filesystems.Type, size int64) int64 {
	if typ.ReadOnly {
		return 8 * size
	}
	return size
}

func compressedNote(typ *filesystems.Type) string {
	if typ.ReadOnly {
		return ", which takes 8 times its size before compression at most"
	}
	return ""
}
