// Package fsck runs a partition's filesystem checker on the target: the
// plan's command (or the default of its type) with the options set for a
// forced, read-only or repairing run, measured (wall and CPU time), and its
// exit code read as fsck(8)'s bits where the checker uses them.
//
// It never decides what a run means for a test; fsck_time times it and
// package crash judges a filesystem with it.
package fsck

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fsbench/fsbench/wire/runplan"
)

// Kind names the checkers whose options Argv knows.
func Kind(argv []string) string {
	switch base := filepath.Base(argv[0]); {
	case base == "e2fsck" || strings.HasPrefix(base, "fsck.ext"):
		return "e2fsck"
	case base == "fsck.f2fs":
		return "fsck.f2fs"
	case base == "btrfs" && len(argv) > 1 && argv[1] == "check", base == "btrfsck":
		return "btrfs check"
	case base == "xfs_repair":
		return "xfs_repair"
	case base == "fsck.vfat" || base == "fsck.fat" || base == "dosfsck":
		return "fsck.fat"
	}
	return ""
}

// Argv is the partition's checker command with "{device}" replaced
// and its options set for force and read_only:
//
//	e2fsck      force -f; read_only -n, else -p (preen: repair what is
//	            safe, ask nothing)
//	fsck.f2fs   force -f; read_only --dry-run, else -a
//	btrfs check read_only --readonly, else --repair --force (--force skips
//	            the ten-second countdown on an unmounted filesystem);
//	            it always checks everything
//	xfs_repair  read_only -n; it always checks everything
//	fsck.fat    read_only -n, else -a; it always checks everything
//
// Other checkers run as the plan gives them.
func Argv(p *runplan.Partition, force, readOnly bool) ([]string, error) {
	base := p.Check
	switch {
	case len(base) > 0:
	case p.NoCheck != "":
		return nil, errors.New(p.NoCheck)
	default:
		return nil, fmt.Errorf("partition %s (%s) has no checker in the plan", p.Name, p.FS)
	}
	kind := Kind(base)
	var drop func(string) bool
	var add []string
	switch kind {
	case "e2fsck":
		// Drop flag groups made of the mode letters only ("-fn", "-p"),
		// keep everything else as given.
		drop = func(a string) bool { return len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "fnpya") == "" }
		flags := "-"
		if force {
			flags += "f"
		}
		if readOnly {
			flags += "n"
		} else {
			flags += "p"
		}
		add = []string{flags}
	case "fsck.f2fs":
		drop = oneOf("-f", "-a", "-y", "--dry-run")
		if force {
			add = append(add, "-f")
		}
		add = append(add, cond(readOnly, "--dry-run", "-a"))
	case "btrfs check":
		drop = oneOf("--readonly", "--repair", "--force")
		if readOnly {
			add = []string{"--readonly"}
		} else {
			add = []string{"--repair", "--force"}
		}
	case "xfs_repair":
		drop = oneOf("-n")
		if readOnly {
			add = []string{"-n"}
		}
	case "fsck.fat":
		drop = oneOf("-n", "-a", "-r", "-y")
		add = []string{cond(readOnly, "-n", "-a")}
	}
	prefix := 1
	if kind == "btrfs check" && filepath.Base(base[0]) == "btrfs" {
		prefix = 2
	}
	argv := append([]string(nil), base[:prefix]...)
	argv = append(argv, add...)
	for _, a := range base[prefix:] {
		if drop != nil && drop(a) {
			continue
		}
		argv = append(argv, strings.ReplaceAll(a, "{device}", p.Device))
	}
	if !slices.ContainsFunc(base, func(a string) bool { return strings.Contains(a, "{device}") }) {
		argv = append(argv, p.Device)
	}
	return argv, nil
}

func oneOf(opts ...string) func(string) bool {
	return func(a string) bool { return slices.Contains(opts, a) }
}

func cond(c bool, yes, no string) string {
	if c {
		return yes
	}
	return no
}

// Result is how a checker ran.
type Result struct {
	Real, User, Sys time.Duration
	Code            int
	Output          string // the end of its output, for errors
}

// Run runs argv without a shell and measures it.
func Run(ctx context.Context, argv []string) (Result, error) {
	var run Result
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	tail := &tailBuffer{max: 4096}
	cmd.Stdout, cmd.Stderr = tail, tail
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return run, fmt.Errorf("starting the checker: %w", err)
	}
	err := cmd.Wait()
	run.Real = time.Since(t0)
	run.Output = tail.String()
	if ctx.Err() != nil {
		return run, fmt.Errorf("%s: %w", argv[0], ctx.Err())
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return run, fmt.Errorf("%s: %w", argv[0], err)
	}
	st := cmd.ProcessState
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return run, fmt.Errorf("%s was killed by signal %v\n%s", argv[0], ws.Signal(), run.Output)
	}
	run.Code = st.ExitCode()
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		run.User = time.Duration(ru.Utime.Nano())
		run.Sys = time.Duration(ru.Stime.Nano())
	}
	return run, nil
}

// Verdict reads a checker's exit code. e2fsck and fsck.f2fs use
// fsck(8)'s bits: 0 clean; 1 errors corrected; 2 corrected, reboot; 4
// errors left uncorrected; 8 operational error; 16 usage error; 32
// cancelled; 128 shared library error. Only 0 to 3 let the filesystem be
// used. The other checkers exit 0 when the filesystem is clean.
func Verdict(argv []string, code int) (string, error) {
	switch kind := Kind(argv); {
	case code == 0:
		return "clean", nil
	case kind == "e2fsck" || kind == "fsck.f2fs":
		if code&^3 == 0 {
			return "errors corrected", nil
		}
		var why []string
		for _, b := range []struct {
			bit  int
			what string
		}{{4, "errors left uncorrected"}, {8, "operational error"}, {16, "usage or syntax error"},
			{32, "cancelled by the user"}, {128, "shared library error"}} {
			if code&b.bit != 0 {
				why = append(why, b.what)
			}
		}
		return "", fmt.Errorf("exit code %d: %s", code, strings.Join(why, ", "))
	default:
		return "", fmt.Errorf("exit code %d: the filesystem is not clean or the check failed", code)
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }
