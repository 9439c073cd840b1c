package imagegen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsbench/fsbench/filesystems"
)

// placeholders holds the values of the placeholders that the filesystems
// catalogue writes into command lines.
type placeholders struct {
	image, root, epoch, protofile, debugfsScript string
	modeFixups                                   []string // {xfs_mode_fixups}
}

// expand substitutes the placeholders of c. skip is true for a step that
// has nothing to do ({root_entries} of an empty tree). Arguments are
// substituted one by one and never joined or split: a path with spaces
// stays one argument, and nothing reaches a shell.
func (p placeholders) expand(c filesystems.Command) (argv, env []string, skip bool, err error) {
	for _, a := range c.Argv {
		if a == "{xfs_mode_fixups}" {
			if len(p.modeFixups) == 0 {
				return nil, nil, true, nil
			}
			argv = append(argv, p.modeFixups...)
			continue
		}
		if a == "{root_entries}" {
			entries, err := os.ReadDir(p.root)
			if err != nil {
				return nil, nil, false, err
			}
			if len(entries) == 0 {
				return nil, nil, true, nil
			}
			names := make([]string, len(entries))
			for i, e := range entries {
				names[i] = e.Name()
			}
			sort.Strings(names)
			for _, n := range names {
				argv = append(argv, filepath.Join(p.root, n))
			}
			continue
		}
		argv = append(argv, p.substitute(a))
	}
	for _, e := range c.Env {
		env = append(env, p.substitute(e))
	}
	if len(argv) == 0 {
		return nil, nil, false, fmt.Errorf("empty command")
	}
	return argv, env, false, nil
}

func (p placeholders) substitute(s string) string {
	return strings.NewReplacer(
		"{image}", p.image, "{root}", p.root, "{epoch}", p.epoch,
		"{protofile}", p.protofile, "{debugfs_script}", p.debugfsScript,
	).Replace(s)
}

// uses reports whether any command refers to a placeholder, so that the
// protofile or debugfs script is only written when a step reads it.
func uses(cmds []filesystems.Command, placeholder string) bool {
	for _, c := range cmds {
		for _, a := range c.Argv {
			if strings.Contains(a, placeholder) {
				return true
			}
		}
	}
	return false
}

// runner starts a command; the staged tree supplies one that runs it
// inside the fakeroot session that knows the tree's owners.
type runner func(ctx context.Context, argv, env []string) *exec.Cmd

func plainRunner(ctx context.Context, argv, env []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// ToolError is a host tool that failed, with what it printed.
type ToolError struct {
	Argv   []string
	Err    error
	Output string
}

func (e *ToolError) Error() string {
	out := strings.TrimSpace(e.Output)
	if len(out) > 2000 {
		out = "..." + out[len(out)-2000:]
	}
	return fmt.Sprintf("%s: %v\n%s", strings.Join(e.Argv, " "), e.Err, out)
}

// limits bound a host tool: it runs in an empty directory of its own, so
// that a relative path among its arguments names nothing of the user's
// working directory, and for at most timeout, so that a tool that spins
// (mke2fs on some extended options does) cannot hold a build forever.
type limits struct {
	dir     string
	timeout time.Duration
}

// toolTimeout bounds one tool's run on a filesystem of size bytes: ten
// minutes, and a minute more per GiB, far beyond what any of them takes.
func toolTimeout(size int64) time.Duration {
	return 10*time.Minute + time.Duration(size>>30)*time.Minute
}

// scratchLimits makes the empty working directory of the tools that build
// a filesystem of size bytes, in work.
func scratchLimits(work string, size int64) (limits, error) {
	dir := filepath.Join(work, "cwd")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return limits{}, err
	}
	return limits{dir: dir, timeout: toolTimeout(size)}, nil
}

// runTool runs one command and returns its combined output.
func runTool(ctx context.Context, run runner, lim limits, argv, env []string) (string, error) {
	if lim.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, lim.timeout, errToolTimeout)
		defer cancel()
	}
	cmd := run(ctx, argv, env)
	cmd.Dir = lim.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if errors.Is(context.Cause(ctx), errToolTimeout) {
			return out.String(), &ToolError{Argv: argv, Output: out.String(),
				Err: fmt.Errorf("ran longer than %s and was stopped", lim.timeout)}
		}
		if ctx.Err() != nil {
			return out.String(), ctx.Err()
		}
		return out.String(), &ToolError{Argv: argv, Err: err, Output: out.String()}
	}
	return out.String(), nil
}

var errToolTimeout = errors.New("tool timeout")
