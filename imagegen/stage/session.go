package stage

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/fsbench/fsbench/internal/command"
)

// session is one faked daemon. A process joins it through its environment:
// FAKEROOTKEY names the daemon and LD_PRELOAD loads libfakeroot, exactly
// what the fakeroot script sets before running its command.
type session struct {
	key  string
	fr   fakerootSetup
	proc *os.Process
	done chan struct{} // closed when faked has exited
	err  error         // faked's exit, valid after done

	stderr    lockedBuffer
	closeOnce sync.Once
}

// fakerootSetup is what the installed fakeroot puts in a command's
// environment, and the faked that goes with its library.
type fakerootSetup struct {
	faked, preload, libraryPath, mode string
}

// discover asks the installed fakeroot for its environment rather than
// guessing library paths, which differ between distributions.
var discover = sync.OnceValues(func() (fakerootSetup, error) {
	if _, err := exec.LookPath("fakeroot"); err != nil {
		return fakerootSetup{}, errors.New("stage: fakeroot not installed: it records owners and device nodes without root (apt-get install fakeroot)")
	}
	cmd := exec.Command("fakeroot", "--", "env", "-0")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		return fakerootSetup{}, fmt.Errorf("stage: fakeroot -- env: %w", err)
	}
	env := strings.Split(string(out), "\x00")
	s := fakerootSetup{
		preload:     lookupEnv(env, "LD_PRELOAD"),
		libraryPath: lookupEnv(env, "LD_LIBRARY_PATH"),
		mode:        lookupEnv(env, "FAKED_MODE"),
	}
	if s.preload == "" {
		return s, errors.New("stage: fakeroot set no LD_PRELOAD")
	}
	// libfakeroot-sysv.so talks to faked-sysv, libfakeroot-tcp.so to
	// faked-tcp; a build with one flavour names its daemon faked.
	lib := filepath.Base(strings.Split(s.preload, ":")[0])
	names := []string{"faked"}
	if f := strings.TrimSuffix(strings.Replace(lib, "libfakeroot", "faked", 1), ".so"); f != "faked" {
		names = append([]string{f}, names...)
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			s.faked = p
			return s, nil
		}
	}
	return s, fmt.Errorf("stage: no faked for %s (looked for %s)", lib, strings.Join(names, ", "))
})

// startSession starts faked, which writes state when it exits.
func startSession(state string) (*session, error) {
	fr, err := discover()
	if err != nil {
		return nil, err
	}
	s := &session{fr: fr, done: make(chan struct{})}
	cmd := exec.Command(fr.faked, "--foreground", "--save-file", state)
	// faked refuses to start inside another session, which is what
	// running fsbench itself under fakeroot would look like.
	cmd.Env = withoutSession(os.Environ())
	cmd.Stderr = &s.stderr
	// On Linux faked gets SIGTERM (and saves, and removes its message
	// queue) when its parent dies, even by SIGKILL; StartHeld keeps the
	// forking thread alive as long as faked runs.
	cmd.SysProcAttr = deathSignal()
	// A pipe of our own rather than StdoutPipe, which Wait closes: the
	// wait starts at once.
	// The read end stays open while faked runs, so that nothing it
	// prints later meets a closed pipe.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	waited, err := command.StartHeld(cmd)
	w.Close()
	if err != nil {
		r.Close()
		return nil, err
	}
	// faked prints "key:pid" once it listens.
	line, err := bufio.NewReader(r).ReadString('\n')
	key, _, ok := strings.Cut(strings.TrimSpace(line), ":")
	if err != nil || !ok || key == "" {
		cmd.Process.Kill()
		<-waited
		r.Close()
		return nil, fmt.Errorf("stage: faked did not start: %q %s", line, s.stderr.String())
	}
	s.key, s.proc = key, cmd.Process
	go func() {
		s.err = <-waited
		r.Close()
		close(s.done)
	}()
	return s, nil
}

// close stops faked, which saves its state file first.
func (s *session) close() error {
	s.closeOnce.Do(func() {
		s.proc.Signal(syscall.SIGTERM)
		<-s.done
		if s.err != nil {
			s.err = fmt.Errorf("stage: faked: %v %s", s.err, s.stderr.String())
		}
	})
	return s.err
}

func (s *session) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// environ puts the session after base; exec keeps the last value of a
// variable, and a command's own LD_PRELOAD and LD_LIBRARY_PATH come after
// fakeroot's, as the fakeroot script orders them.
func (s *session) environ(base []string) []string {
	join := func(a, b string) string {
		if b == "" {
			return a
		}
		return a + ":" + b
	}
	return append(base,
		"FAKEROOTKEY="+s.key,
		"LD_PRELOAD="+join(s.fr.preload, lookupEnv(base, "LD_PRELOAD")),
		"LD_LIBRARY_PATH="+join(s.fr.libraryPath, lookupEnv(base, "LD_LIBRARY_PATH")),
		"FAKED_MODE="+s.fr.mode,
		// Even as root, chown only tells faked: on disk the tree stays
		// the build user's, the same as without root.
		"FAKEROOTDONTTRYCHOWN=1",
	)
}

// Command runs argv inside the tree's fakeroot session, with env added to
// this process's environment. Nothing is wrapped: argv[0] is executed
// directly, never through a shell. A program that the session cannot reach
// (statically linked, or written in Go) is refused through cmd.Err, so
// that Run and Start report it, because it would read the tree without the
// owners, device nodes and xattrs. A tree staged without a session
// (Input.NoSession) runs argv as it is.
func (t *Tree) Command(ctx context.Context, argv, env []string) *exec.Cmd {
	if len(argv) == 0 {
		return &exec.Cmd{Err: errors.New("stage: empty command")}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if cmd.Err != nil {
		return cmd
	}
	if t.m != nil { // NoSession: the tools read names, data and mtimes only
		cmd.Env = append(withoutSession(os.Environ()), env...)
		return cmd
	}
	if t.sess == nil || !t.sess.alive() {
		cmd.Err = errors.New("stage: the tree's fakeroot session is closed")
		return cmd
	}
	if err := checkPreloadable(cmd.Path); err != nil {
		cmd.Err = err
		return cmd
	}
	cmd.Env = t.sess.environ(append(withoutSession(os.Environ()), env...))
	return cmd
}

// checkPreloadable refuses binaries LD_PRELOAD does not reach: without an
// ELF interpreter nothing loads libfakeroot, and a Go program makes its
// system calls without libc even when it links it. Scripts pass: their
// interpreter is checked by nobody, but sh, perl and python use libc.
func checkPreloadable(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if f.Section(".go.buildinfo") != nil {
		return fmt.Errorf("stage: %s is a Go program: it bypasses libc, so the fakeroot session cannot show it the tree's owners, device nodes and xattrs", path)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return nil
		}
	}
	return fmt.Errorf("stage: %s is statically linked: LD_PRELOAD cannot put it in the fakeroot session, so it would not see the tree's owners, device nodes and xattrs", path)
}

// withoutSession drops the variables of an enclosing fakeroot session.
func withoutSession(env []string) []string {
	var out []string
	for _, kv := range env {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "FAKEROOTKEY", "LD_PRELOAD", "FAKED_MODE":
		default:
			out = append(out, kv)
		}
	}
	return out
}

func lookupEnv(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// lockedBuffer collects faked's stderr, written by exec's copier while
// close or startSession may read it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.TrimSpace(l.b.String())
}
