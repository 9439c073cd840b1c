// Package benchboard is a board on the bench made of QEMU, for trying
// and testing `fsbench run -target board` and `fsbench capture` without
// hardware: an arm64 machine that boots its disk through Debian's U-Boot
// for QEMU, as a board boots its card; its console on a pty that stays
// the same across power cycles, as a USB serial adapter's /dev/ttyUSB0
// does (and behind ser2net, as a lab exports it); its storage a disk
// image file that the -flash command writes (bmaptool copy); and its
// power a command that kills QEMU hard, with nothing flushed, and starts
// it again.
//
// It is a test fixture and a tool (scripts/bench-board.sh), never part of
// a run: fsbench drives it only through the commands a real bench has.
package benchboard

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/capture"
	"github.com/fsbench/fsbench/qemu"
	"github.com/fsbench/fsbench/wire/arch"
)

// Files in the bench's directory.
const (
	// DiskName is the board's storage: the image file -flash writes.
	DiskName = "disk.img"
	// SocketName is the power switch's socket, which Control talks to.
	SocketName = "power.sock"
)

// Config describes a bench board.
type Config struct {
	// Dir holds the disk image and the power switch's socket.
	Dir string
	// Arch is the board's architecture: arm64 (the default), arm or
	// x86_64, each booted by Debian's U-Boot for its QEMU machine.
	Arch arch.Arch
	// Accel is QEMU's accelerator: auto (the default), kvm or tcg.
	Accel     string
	MemoryMiB int
	Log       logrus.FieldLogger
}

// Board is a running bench board. It starts switched off.
type Board struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc
	master *os.File
	slave  string
	ln     *net.UnixListener
	mach   qemu.Machine

	mu      sync.Mutex
	vm      *qemu.VM
	bridged chan struct{} // closed when the running VM's console is drained
	muted   atomic.Bool
	wg      sync.WaitGroup
}

// Start sets up the bench: the console's pty, the power switch's socket.
// The board stays off until Power("on").
func Start(ctx context.Context, cfg Config) (*Board, error) {
	if cfg.Arch == "" {
		cfg.Arch = arch.ARM64
	}
	if cfg.Log == nil {
		l := logrus.New()
		l.Out = io.Discard
		cfg.Log = l
	}
	fw, err := qemu.UBootFirmware(cfg.Arch)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	master, slave, err := capture.OpenPTY()
	if err != nil {
		return nil, err
	}
	// Raw from the start: a line discipline in its default mode would
	// echo the board's output back to it as typed input until a reader
	// configured the port.
	if f, err := capture.OpenSerial(slave, capture.Config{}); err == nil {
		f.Close()
	}
	sock := filepath.Join(cfg.Dir, SocketName)
	os.Remove(sock)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		master.Close()
		return nil, err
	}
	b := &Board{cfg: cfg, master: master, slave: slave, ln: ln,
		mach: qemu.Machine{Arch: cfg.Arch, Firmware: fw, Accel: cfg.Accel, MemoryMiB: cfg.MemoryMiB, Watchdog: true,
			Disks: []qemu.Disk{{Path: filepath.Join(cfg.Dir, DiskName), Format: "raw", Interface: qemu.Virtio}}}}
	b.ctx, b.cancel = context.WithCancel(ctx)
	b.wg.Add(2)
	go b.serve()
	go b.keyboard()
	return b, nil
}

// Console is the board's serial console, as a serial adapter's device.
func (b *Board) Console() string { return b.slave }

// Disk is the board's storage, which -flash writes.
func (b *Board) Disk() string { return filepath.Join(b.cfg.Dir, DiskName) }

// Power switches the board: "on", "off", "cycle" (off, then on), or
// "mute": the console goes silent while the board runs on, as a hung
// board's or a broken wire's, until the next power on; "mute-after D"
// does that D (a duration) from now.
func (b *Board) Power(cmd string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if d, ok := strings.CutPrefix(cmd, "mute-after "); ok {
		after, err := time.ParseDuration(d)
		if err != nil || after < 0 {
			return fmt.Errorf("power %q: want mute-after DURATION", cmd)
		}
		time.AfterFunc(after, func() { b.muted.Store(true) })
		return nil
	}
	switch cmd {
	case "off":
		b.off()
		return nil
	case "on":
		return b.on()
	case "cycle":
		b.off()
		return b.on()
	case "mute":
		b.muted.Store(true)
		return nil
	}
	return fmt.Errorf("power %q: want on, off, cycle or mute", cmd)
}

// off kills QEMU hard, as a cut of the power: nothing is flushed.
func (b *Board) off() {
	if b.vm == nil {
		return
	}
	b.vm.Kill()
	<-b.bridged
	b.vm.Close()
	b.vm = nil
	b.cfg.Log.Infof("bench board: off")
}

func (b *Board) on() error {
	if b.vm != nil {
		select {
		case <-b.vm.Exited():
			b.off() // it powered itself off
		default:
			return nil // on already
		}
	}
	if _, err := os.Stat(b.Disk()); err != nil {
		return fmt.Errorf("the board has no storage yet: flash %s first", b.Disk())
	}
	vm, err := qemu.Start(b.ctx, b.mach, b.cfg.Log)
	if err != nil {
		return err
	}
	b.mach.Accel = vm.Accel()
	b.vm, b.bridged = vm, make(chan struct{})
	b.muted.Store(false)
	go b.bridge(vm, b.bridged)
	b.cfg.Log.Infof("bench board: on (%s)", vm.Accel())
	return nil
}

// bridge copies what the board prints to the console until QEMU ends.
func (b *Board) bridge(vm *qemu.VM, done chan<- struct{}) {
	defer close(done)
	buf := make([]byte, 4096)
	for {
		n, err := vm.Console().Read(buf)
		if n > 0 && !b.muted.Load() {
			b.print(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// print writes to the console's pty. With no program on the port (the
// master reports a hangup) the bytes are lost, as a serial adapter's
// are when nobody reads it.
func (b *Board) print(p []byte) {
	fds := []unix.PollFd{{Fd: int32(b.master.Fd()), Events: unix.POLLOUT}}
	if _, err := unix.Poll(fds, 0); err != nil || fds[0].Revents&unix.POLLHUP != 0 {
		return
	}
	_, _ = b.master.Write(p)
}

// keyboard passes what a program types on the port to the board, when
// it is on. It waits in poll(2), so that Close ends it.
func (b *Board) keyboard() {
	defer b.wg.Done()
	fd := int(b.master.Fd())
	buf := make([]byte, 1024)
	for b.ctx.Err() == nil {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(fds, 200); err != nil || n == 0 {
			continue
		}
		if fds[0].Revents&unix.POLLIN == 0 {
			time.Sleep(100 * time.Millisecond) // no program on the port
			continue
		}
		n, _ := unix.Read(fd, buf)
		if n <= 0 {
			continue
		}
		b.mu.Lock()
		if b.vm != nil {
			_, _ = b.vm.Console().Write(buf[:n])
		}
		b.mu.Unlock()
	}
}

// serve answers the power switch's socket: one command a connection,
// answered "ok" or "error: ...".
func (b *Board) serve() {
	defer b.wg.Done()
	for {
		c, err := b.ln.AcceptUnix()
		if err != nil {
			return
		}
		line, _ := bufio.NewReader(io.LimitReader(c, 64)).ReadString('\n')
		reply := "ok\n"
		if err := b.Power(strings.TrimSpace(line)); err != nil {
			reply = "error: " + err.Error() + "\n"
		}
		_, _ = c.Write([]byte(reply))
		c.Close()
	}
}

// Close switches the board off and takes the bench down.
func (b *Board) Close() error {
	b.mu.Lock()
	b.off()
	b.mu.Unlock()
	b.cancel()
	b.ln.Close()
	b.wg.Wait()
	return b.master.Close()
}

// Control sends a power command to the bench board whose directory is
// dir, as the bench's power switch.
func Control(dir, cmd string) error {
	c, err := net.DialTimeout("unix", filepath.Join(dir, SocketName), 5*time.Second)
	if err != nil {
		return fmt.Errorf("no bench board in %s: %w", dir, err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(cmd + "\n")); err != nil {
		return err
	}
	// Starting QEMU takes a moment; the board answers once it is on.
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Minute))
	reply, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return fmt.Errorf("the bench board did not answer: %w", err)
	}
	if msg, bad := strings.CutPrefix(strings.TrimSpace(reply), "error: "); bad {
		return errors.New(msg)
	}
	return nil
}
