//go:build !linux

package fio

import (
	"context"
	"errors"
	"runtime"
)

var errNotLinux = errors.New("the built-in fio engine runs on Linux only, not " + runtime.GOOS)

// builtin exists on Linux only; elsewhere only fio itself can run a job.
type builtin struct{}

func newBuiltin(*Job, hooks) engine { return builtin{} }

func (builtin) layout(context.Context) error         { return errNotLinux }
func (builtin) run(context.Context) (*Result, error) { return nil, errNotLinux }

func dropCaches() error { return errNotLinux }
