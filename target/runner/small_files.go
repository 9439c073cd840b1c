package runner

import (
	"context"
	"fmt"

	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/target/workload"
)

func init() {
	register("small_files", step.Recipe{Schema: 1, Iterate: smallFiles, Finish: removeWorkDir})
}

// smallFiles runs seed 004's small-file workloads in the step's work
// directory: PostMark (postmark.go) or bonnie++ (bonnie.go).
func smallFiles(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
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

func postmarkStep(ctx context.Context, e *step.Env) (*step.Outcome, error) {
	p := e.P
	cfg := workload.PostmarkConfig{
		Files: int(p.Int("files")), Transactions: int(p.Int("transactions")),
		MinSize: int(p.Int("min_size")), MaxSize: int(p.Int("max_size")),
		ReadBlock: int(p.Int("read_block")), WriteBlock: int(p.Int("write_block")),
		Subdirs:  int(p.Int("subdirectories")),
		ReadBias: int(p.Int("read_bias")), CreateBias: int(p.Int("create_bias")),
		Buffered: p.Bool("buffered"), Seed: uint32(p.Int("random_seed")),
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
	d, err := workload.NewPostmarkDir(dir, cfg)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	st, err := workload.Postmark(ctx, cfg, d)
	if err != nil {
		return nil, err
	}
	return &step.Outcome{Set: st.Measures(cfg)}, nil
}

func bonnieStep(ctx context.Context, e *step.Env) (*step.Outcome, error) {
	p := e.P
	c := workload.BonnieConfig{Size: p.Int("bonnie_size"), RAM: p.Int("bonnie_ram"), Files: int(p.Int("bonnie_files")),
		Seed: uint64(p.Int("random_seed"))}
	if p.Err != nil {
		return nil, p.Err
	}
	dir, err := e.WorkDir()
	if err != nil {
		return nil, err
	}
	defer removeAll(dir)
	set, err := workload.Bonnie(ctx, dir, c)
	if err != nil {
		return nil, err
	}
	return &step.Outcome{Set: set}, nil
}
