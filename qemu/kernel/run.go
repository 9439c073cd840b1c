package kernel

import (
	"context"
	"io"

	"github.com/fsbench/fsbench/internal/command"
)

// run executes name with args (never through a shell) in dir and returns
// its standard output.
func run(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	return command.Output(ctx, dir, nil, name, args...)
}

// runWith is run with stdin as the command's standard input.
func runWith(ctx context.Context, stdin io.Reader, name string, args ...string) ([]byte, error) {
	return command.Output(ctx, "", stdin, name, args...)
}
