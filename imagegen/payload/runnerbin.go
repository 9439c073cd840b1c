package payload

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fsbench/fsbench/wire/arch"
)

// RunnerEnv names the environment variable that points at a runner binary,
// as Yocto and Buildroot builds set it to the one they built.
const RunnerEnv = "FSBENCH_RUNNER"

// FindRunner returns the runner binary for a board of architecture a: the explicit path when
// given (the -runner flag, or $FSBENCH_RUNNER), else
// fsbench-runner-<goarch> beside the fsbench executable or in
// ../libexec/fsbench from it, where scripts/install.sh puts them.
func FindRunner(explicit string, a arch.Arch) (string, error) {
	if explicit != "" {
		if fi, err := os.Stat(explicit); err != nil {
			return "", fmt.Errorf("runner binary: %w", err)
		} else if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("runner binary %s is not a file", explicit)
		}
		if err := checkRunnerArch(explicit, a); err != nil {
			return "", err
		}
		return explicit, nil
	}
	if !a.Valid() {
		return "", fmt.Errorf("no runner for architecture %q", a)
	}
	name := "fsbench-runner-" + a.GOARCH()
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	dir := filepath.Dir(exe)
	candidates := []string{filepath.Join(dir, name), filepath.Join(dir, "..", "libexec", "fsbench", name)}
	for _, c := range candidates {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			return c, nil
		}
	}
	return "", &MissingRunnerError{Arch: a, Name: name, Looked: candidates}
}

// MissingRunnerError says where a runner was looked for and how to get one.
type MissingRunnerError struct {
	Arch   arch.Arch
	Name   string
	Looked []string
}

func (e *MissingRunnerError) Error() string {
	return fmt.Sprintf("no fsbench-runner for %s: looked for %s; build it with "+
		"`CGO_ENABLED=0 GOARCH=<arch> go build -o %s ./cmd/fsbench-runner` (scripts/install.sh does it for every architecture), "+
		"or pass -runner PATH or set %s", e.Arch, joinOr(e.Looked), e.Name, RunnerEnv)
}

func joinOr(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := s[0]
	for _, x := range s[1 : len(s)-1] {
		out += ", " + x
	}
	return out + " and " + s[len(s)-1]
}

// checkRunnerArch refuses a runner built for another architecture than
// the board's, which would not start on the target.
func checkRunnerArch(path string, a arch.Arch) error {
	if !a.Valid() {
		return nil
	}
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("runner binary %s is not an ELF program: %w", path, err)
	}
	defer f.Close()
	if machine, class := a.ELF(); f.Machine != elf.Machine(machine) || f.Class != elf.Class(class) {
		return fmt.Errorf("runner binary %s is for %s (%s), and the board is %s: build it with GOARCH=%s", path, f.Machine, f.Class, a, a.GOARCH())
	}
	return nil
}
