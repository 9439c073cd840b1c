package imagegen

import (
	"context"
	"os"
	"strconv"
	"time"

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
}

// stage prepares the content directory of one filesystem. Without
// contents or layers it is an empty directory; otherwise the stage package
// fills it keeping owners, modes and device nodes, and supplies the runner
// under which tools see them.
func (b *builder) stage(ctx context.Context, dir string, c *plan.Contents, layers []string) (*tree, error) {
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
	in := stage.Input{Epoch: b.opts.Epoch, Layers: layers}
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

func epochTime(epoch int64) time.Time { return time.Unix(epoch, 0) }

// parseMode reads the plan's octal mode text ("0644").
func parseMode(s string) uint32 {
	m, err := strconv.ParseUint(s, 8, 32)
	if err != nil {
		return 0o644
	}
	return uint32(m)
}
