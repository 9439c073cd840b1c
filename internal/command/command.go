// Package command runs host tools without a shell and reports their
// failures with the command line and what they printed on stderr, which is
// where apt, dpkg and the decompressors explain themselves. It must never
// hand a command line to a shell.
package command

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// Output runs name with args in dir (never through a shell), with stdin as
// its input when not nil, and returns its standard output. LC_ALL=C keeps
// messages in English, so callers can recognise them.
func Output(ctx context.Context, dir string, stdin io.Reader, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	cmd.Env = append(cmd.Environ(), "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), &Error{
			Cmd:    name + " " + strings.Join(args, " "),
			Err:    err,
			Stderr: strings.TrimSpace(stderr.String()),
		}
	}
	return stdout.Bytes(), nil
}

// Error is a command that failed.
type Error struct {
	Cmd, Stderr string
	Err         error
}

func (e *Error) Error() string {
	if e.Stderr == "" {
		return fmt.Sprintf("%s: %v", e.Cmd, e.Err)
	}
	return fmt.Sprintf("%s: %v: %s", e.Cmd, e.Err, e.Stderr)
}

func (e *Error) Unwrap() error { return e.Err }
