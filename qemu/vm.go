package qemu

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/command"
)

// VM is a running QEMU.
type VM struct {
	argv    []string
	accel   string
	cmd     *exec.Cmd
	console *os.File
	// counters serves the guest's requests for QEMU's disk counters
	// (Machine.HostCounters); nil without.
	counters *counterServer
	stderr   *tail
	exited   chan struct{}
	waitErr  error
	killed   bool
	mu       sync.Mutex
	ctx      context.Context
}

// connectTimeout bounds the wait for QEMU to connect to the console
// socket, which it does while it starts, before the guest runs.
const connectTimeout = 30 * time.Second

// ErrKilled is what Wait returns after Kill.
var ErrKilled = errors.New("qemu: killed")

// Start starts QEMU for m and returns once it is connected to the console,
// before the guest has run. QEMU is killed when ctx ends. With Accel
// "auto" (the default) the first Start of the process may spend up to
// ProbeTimeout deciding whether KVM works (see ProbeKVM).
func Start(ctx context.Context, m Machine, log logrus.FieldLogger) (*VM, error) {
	m, err := m.normalized()
	if err != nil {
		return nil, err
	}
	if m.Accel == "auto" {
		ok, why := ProbeKVM(ctx, m, log)
		m.Accel = "tcg"
		if ok {
			m.Accel = "kvm"
		}
		log.Infof("qemu: accelerator %s (%s)", m.Accel, why)
	} else {
		log.Infof("qemu: accelerator %s, as the machine asks", m.Accel)
	}
	return start(ctx, m, log, logrus.WarnLevel)
}

// start runs m, whose accelerator is decided. QEMU's stderr is logged at
// stderrLevel (warnings, or debug for the KVM probe, whose failures are
// expected).
func start(ctx context.Context, m Machine, log logrus.FieldLogger, stderrLevel logrus.Level) (*VM, error) {
	dir, err := os.MkdirTemp("", "fsbench-qemu-")
	if err != nil {
		return nil, fmt.Errorf("qemu: %w", err)
	}
	// Once QEMU is connected nothing needs the directory; on every path
	// out of start it is removed.
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "console")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("qemu: console socket: %w", err)
	}
	defer ln.Close()
	var qmpLn, ioLn *net.UnixListener
	if m.HostCounters {
		m.qmpSock, m.ioSock = filepath.Join(dir, "qmp"), filepath.Join(dir, "hostio")
		if qmpLn, err = net.ListenUnix("unix", &net.UnixAddr{Name: m.qmpSock, Net: "unix"}); err != nil {
			return nil, fmt.Errorf("qemu: QMP socket: %w", err)
		}
		defer qmpLn.Close()
		if ioLn, err = net.ListenUnix("unix", &net.UnixAddr{Name: m.ioSock, Net: "unix"}); err != nil {
			return nil, fmt.Errorf("qemu: counters socket: %w", err)
		}
		defer ioLn.Close()
	}

	argv, err := m.Command(sock)
	if err != nil {
		return nil, err
	}
	vm := &VM{argv: argv, accel: m.Accel, stderr: &tail{max: 4096}, exited: make(chan struct{}), ctx: ctx}
	vm.cmd = exec.CommandContext(ctx, argv[0], argv[1:]...)
	vm.cmd.SysProcAttr = procAttr()
	vm.cmd.Stdout = io.Discard // -nographic -nodefaults: QEMU prints nothing there
	vm.cmd.Stderr = &lineLogger{t: vm.stderr, log: log, level: stderrLevel}
	vm.cmd.WaitDelay = time.Second
	log.Debugf("qemu: %s", shellQuote(argv))
	if err := vm.run(); err != nil {
		return nil, fmt.Errorf("qemu: %w", err)
	}

	conn, err := accept(ln, vm.exited)
	if err != nil {
		vm.Kill()
		return nil, fmt.Errorf("qemu: %s did not connect to its console: %w%s", argv[0], err, vm.stderr.say())
	}
	// A dup in the runtime's poller, which a capture.Reader reads without
	// holding a thread while the console is silent.
	f, err := conn.File()
	conn.Close()
	if err != nil {
		vm.Kill()
		return nil, fmt.Errorf("qemu: %w", err)
	}
	vm.console = f
	if m.HostCounters {
		if vm.counters, err = serveCounters(qmpLn, ioLn, vm.exited, "disk0", log); err != nil {
			vm.Close()
			return nil, fmt.Errorf("qemu: %w%s", err, vm.stderr.say())
		}
	}
	return vm, nil
}

// run starts QEMU and waits for it in the background, closing vm.exited
// when it has gone.
func (vm *VM) run() error {
	done, err := command.StartHeld(vm.cmd)
	if err != nil {
		return err
	}
	go func() {
		err := <-done
		vm.mu.Lock()
		vm.waitErr = err
		vm.mu.Unlock()
		close(vm.exited)
	}()
	return nil
}

// accept waits for QEMU's connection, or its exit, or connectTimeout.
func accept(ln *net.UnixListener, exited <-chan struct{}) (*net.UnixConn, error) {
	type result struct {
		c   *net.UnixConn
		err error
	}
	ch := make(chan result, 1)
	ln.SetDeadline(time.Now().Add(connectTimeout))
	go func() {
		c, err := ln.AcceptUnix()
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		return r.c, r.err
	case <-exited:
		ln.Close() // ends the Accept
		if r := <-ch; r.c != nil {
			return r.c, nil // it connected, then exited: the caller reads the EOF
		}
		return nil, errors.New("it exited")
	}
}

// Console is the guest's serial console: reading it gives every byte the
// guest sends, from the first one of the boot, until QEMU exits (then
// io.EOF); writing it types into the guest. It is an *os.File in the
// runtime's poller, as capture.NewReader wants it. It stays open until
// Close.
func (vm *VM) Console() *os.File { return vm.console }

// Accel is the accelerator the VM runs under: "kvm" or "tcg".
func (vm *VM) Accel() string { return vm.accel }

// Argv is the QEMU command line, for logs and reports.
func (vm *VM) Argv() []string { return vm.argv }

// Exited is closed when QEMU has exited.
func (vm *VM) Exited() <-chan struct{} { return vm.exited }

// Wait waits for QEMU to exit. It returns nil when QEMU ended by itself
// with status 0 (the guest powered off, or rebooted with NoReboot),
// ErrKilled after Kill, the context's error when the context ended, and
// otherwise an error carrying the end of QEMU's stderr.
func (vm *VM) Wait() error {
	<-vm.exited
	vm.mu.Lock()
	defer vm.mu.Unlock()
	switch {
	case vm.killed:
		return ErrKilled
	case vm.waitErr == nil:
		return nil
	case vm.ctx.Err() != nil:
		return fmt.Errorf("qemu: %w", vm.ctx.Err())
	}
	return fmt.Errorf("qemu: %s: %w%s", vm.argv[0], vm.waitErr, vm.stderr.say())
}

// Kill kills QEMU, if it still runs, and returns once it has exited.
func (vm *VM) Kill() error {
	select {
	case <-vm.exited:
		return nil
	default:
	}
	vm.mu.Lock()
	vm.killed = true
	vm.mu.Unlock()
	err := vm.cmd.Process.Kill()
	<-vm.exited
	if errors.Is(err, os.ErrProcessDone) {
		err = nil
	}
	return err
}

// Close kills QEMU if it still runs and closes the console.
func (vm *VM) Close() error {
	err := vm.Kill()
	if vm.counters != nil {
		vm.counters.close()
	}
	if vm.console != nil {
		if cerr := vm.console.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// tail keeps the last max bytes of QEMU's stderr for error messages.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

// say is the tail as the end of an error message.
func (t *tail) say() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.b))
	if s == "" {
		return ""
	}
	return ": " + s
}

// lineLogger copies QEMU's stderr to the tail and logs it line by line
// at level: QEMU writes its warnings there ("host doesn't support
// requested feature"), a line sometimes in several writes.
type lineLogger struct {
	t       *tail
	log     logrus.FieldLogger
	level   logrus.Level
	pending []byte
}

func (l *lineLogger) Write(p []byte) (int, error) {
	l.t.Write(p)
	l.pending = append(l.pending, p...)
	for {
		i := bytes.IndexByte(l.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		if s := strings.TrimSpace(string(l.pending[:i])); s != "" {
			logAt(l.log, l.level, "qemu: "+s)
		}
		l.pending = l.pending[i+1:]
	}
}

func logAt(log logrus.FieldLogger, level logrus.Level, msg string) {
	if level == logrus.DebugLevel {
		log.Debug(msg)
		return
	}
	log.Warn(msg)
}

// shellQuote renders argv for a log line that can be pasted into a shell.
func shellQuote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`;&|<>(){}*?[]#~!") {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
