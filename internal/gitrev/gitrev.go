// Package gitrev reads a file as a git revision has it, with `git show
// REV:PATH`, never by checking anything out: a spec under review is
// compared with the version of it on another branch. It runs git without
// a shell and refuses a revision that git would read as an option.
package gitrev

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsbench/fsbench/internal/srcfile"
)

// Show returns the content of the file at path (in a git work tree) as
// revision rev has it.
func Show(ctx context.Context, rev, path string) ([]byte, error) {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, ":\x00\n") {
		return nil, fmt.Errorf("%q is not a git revision", rev)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	dir := filepath.Dir(abs)
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is in no git work tree: %w", path, err)
	}
	root := strings.TrimSpace(string(top))
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("%s is outside the git work tree %s", path, root)
	}
	if _, err := git(ctx, root, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}"); err != nil {
		return nil, fmt.Errorf("git knows no revision %q", rev)
	}
	out, err := git(ctx, root, "show", "--no-textconv", "--end-of-options", rev+":"+filepath.ToSlash(rel))
	if err != nil {
		return nil, fmt.Errorf("revision %s has no %s: %w", rev, filepath.ToSlash(rel), err)
	}
	return srcfile.ReadFrom(bytes.NewReader(out), rev+":"+filepath.ToSlash(rel))
}

func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("%s", msg)
		}
		return nil, err
	}
	return out, nil
}
