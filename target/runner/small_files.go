package runner

import (
	"context"
	"fmt"
)

func init() {
	register("small_files", Recipe{Schema: 1, Iterate: smallFiles, Finish: removeWorkDir})
}

// smallFiles runs seed 004's small-file workloads in the step's work
// directory: PostMark (postmark.go) or bonnie++ (bonnie.go).
func smallFiles(ctx context.Context, e *Env, iter int) (*Outcome, error) {
	mode := e.P.String("mode")
	if e.P.Err != nil {
		return nil, e.P.Err
	}
	switch mode {
	case "postmark":
		return postmarkStep(ctx, e)
	case "bonnie":
		return bonnieStep(ctx, e)
	}
	return nil, fmt.Errorf("mode is %q, want postmark or bonnie", mode)
}

func postmarkStep(ctx context.Context, e *Env) (*Outcome, error) {
	p := e.P
	cfg := pmConfig{
		files: int(p.Int("files")), transactions: int(p.Int("transactions")),
		minSize: int(p.Int("min_size")), maxSize: int(p.Int("max_size")),
		readBlock: int(p.Int("read_block")), writeBlock: int(p.Int("write_block")),
		subdirs:  int(p.Int("subdirectories")),
		readBias: int(p.Int("read_bias")), createBias: int(p.Int("create_bias")),
		buffered: p.Bool("buffered"), seed: uint32(p.Int("random_seed")),
	}
	if p.Err != nil {
		return nil, p.Err
	}
	dir, err := e.WorkDir()
	if err != nil {
		return nil, err
	}
	defer removeAll(dir)
	e.Quiesce()
	d, err := newPMDir(dir, cfg)
	if err != nil {
		return nil, err
	}
	defer d.close()
	st, err := runPostmark(ctx, cfg, d)
	if err != nil {
		return nil, err
	}
	out := &Outcome{}
	st.report(out, cfg)
	return out, nil
}

func bonnieStep(ctx context.Context, e *Env) (*Outcome, error) {
	p := e.P
	c := bonConfig{size: p.Int("bonnie_size"), ram: p.Int("bonnie_ram"), files: int(p.Int("bonnie_files")),
		seed: uint64(p.Int("random_seed"))}
	if p.Err != nil {
		return nil, p.Err
	}
	dir, err := e.WorkDir()
	if err != nil {
		return nil, err
	}
	defer removeAll(dir)
	out := &Outcome{}
	if err := runBonnie(ctx, dir, c, out); err != nil {
		return nil, err
	}
	return out, nil
}
