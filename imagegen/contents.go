package imagegen

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/imagegen/stage"
	"github.com/fsbench/fsbench/plan"
)

// tree is a staged content directory, how to run tools over it, and how
// it looks to those tools.
type tree struct {
	root    string
	run     runner
	entries func(context.Context) ([]stage.Entry, error)
	remove  func() error
	// reowned are the paths whose owner on disk is not their owner in
	// the image: a contents directory read in place.
	reowned map[string]bool
}

// stage prepares the content directory of one filesystem. Without
// contents or layers it is an empty directory; a plain contents directory
// that typ's steps can read in place is used as it is (see inPlace);
// otherwise the stage package fills it keeping owners, modes and device
// nodes, and supplies the runner under which tools see them (for a type
// that keeps none of them, without a fakeroot session).
//
// Staging stops at limit bytes (see stage.Input.Limit).
func (b *builder) stage(ctx context.Context, dir string, typ *filesystems.Type, c *plan.Contents, layers []string, limit int64) (*tree, error) {
	if c == nil && len(layers) == 0 {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := os.Chtimes(dir, epochTime(b.opts.Epoch), epochTime(b.opts.Epoch)); err != nil {
			return nil, err
		}
		empty := func(context.Context) ([]stage.Entry, error) {
			return []stage.Entry{{Path: ".", Mode: modeDir | 0o755}}, nil
		}
		return &tree{root: dir, run: plainRunner, entries: empty, remove: func() error { return os.RemoveAll(dir) }}, nil
	}
	if t, err := b.inPlace(ctx, typ, c, layers); t != nil || err != nil {
		return t, err
	}
	in := stage.Input{Epoch: b.opts.Epoch, Layers: layers, NoSession: typ.NoOwners, Limit: limit}
	if c == nil {
		c = &plan.Contents{}
	}
	if c.Dir != "" {
		in.Dir = b.input(c.Dir)
	}
	if c.Tar != "" {
		in.Tar = b.input(c.Tar)
	}
	for _, f := range c.Files {
		sf := stage.File{Path: f.Path, Content: f.Content, Mode: parseMode(f.Mode), UID: f.UID, GID: f.GID}
		if f.Source != "" {
			sf.Source = b.input(f.Source)
		}
		in.Files = append(in.Files, sf)
	}
	st, err := stage.Build(ctx, dir, in)
	if err != nil {
		return nil, err
	}
	return &tree{root: st.Root, run: st.Command, entries: st.Entries, remove: st.Remove}, nil
}

// inPlace returns the contents directory as the tree when typ's steps
// can read it where it is, or nil.
func (b *builder) inPlace(ctx context.Context, typ *filesystems.Type, c *plan.Contents, layers []string) (*tree, error) {
	if !typ.SetsInodes || b.opts.alwaysStage || c == nil || c.Dir == "" || c.Tar != "" || len(c.Files) > 0 || len(layers) > 0 {
		return nil, nil
	}
	dir, err := filepath.Abs(b.input(c.Dir))
	if err != nil {
		return nil, err
	}
	ip, why, err := readInPlace(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("contents dir: %w", err)
	}
	if ip == nil {
		b.log.Debugf("staging %s: %s", dir, why)
		return nil, nil
	}
	entries := func(context.Context) ([]stage.Entry, error) { return ip.entries, nil }
	// remove must never touch the directory: it is the user's.
	return &tree{root: dir, run: plainRunner, entries: entries, remove: func() error { return nil }, reowned: ip.reowned}, nil
}

func epochTime(epoch int64) time.Time { return time.Unix(epoch, 0) }

// parseMode reads the plan's octal mode text ("0644").
func parseMode(s string) uint32 {
	m, err := strconv.ParseUint(s, 8, 32)
	if err != nil {
		return 0o644
	}
	return uint32(m)
}
