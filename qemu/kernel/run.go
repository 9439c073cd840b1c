package kernel

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// run executes name with args (never through a shell) in dir and returns its
// standard output. The error carries the command line and its stderr, which is
// where apt and dpkg explain themselves.
func run(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	return runIn(ctx, dir, nil, name, args...)
}

// runWith is run with stdin as the command's standard input.
func runWith(ctx context.Context, stdin io.Reader, name string, args ...string) ([]byte, error) {
	return runIn(ctx, "", stdin, name, args...)
}

func runIn(ctx context.Context, dir string, stdin io.Reader, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	// apt-get and apt-cache translate their messages; the error matching in
	// classify needs the English ones.
	cmd.Env = append(cmd.Environ(), "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), &cmdError{
			cmd:    name + " " + strings.Join(args, " "),
			err:    err,
			stderr: strings.TrimSpace(stderr.String()),
		}
	}
	return stdout.Bytes(), nil
}

type cmdError struct {
	cmd, stderr string
	err         error
}

func (e *cmdError) Error() string {
	if e.stderr == "" {
		return fmt.Sprintf("%s: %v", e.cmd, e.err)
	}
	return fmt.Sprintf("%s: %v: %s", e.cmd, e.err, e.stderr)
}

func (e *cmdError) Unwrap() error { return e.err }
