package runner

import (
	"context"
	"os"
	"path/filepath"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
)

// removeWorkDir is the Finish of recipes that work in Env.WorkDir: it
// removes what an interrupted iteration left behind.
func removeWorkDir(ctx context.Context, e *step.Env) error {
	dir, err := e.WorkDir()
	if err != nil {
		return err
	}
	return removeAll(dir)
}

// removeAll deletes dir and what it holds, and syncs the filesystem so that
// the next measurement does not pay for the deletion.
func removeAll(dir string) error {
	err := os.RemoveAll(dir)
	if serr := linux.SyncFS(filepath.Dir(dir)); err == nil {
		err = serr
	}
	return err
}
