package driver

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/qemu"
	"github.com/fsbench/fsbench/wire/runplan"
)

// powerSwitch is the QEMU console as one stream across power cuts. When
// the runner asks for a cut ("fsbench-power-cut: N" on the console, the
// power_loss recipe's host_kill trigger), it kills QEMU N seconds later:
// the guest loses its memory and any I/O in flight, while the disk image
// keeps every write QEMU completed, as a board's flash keeps what reached
// it. Then it starts QEMU again on the same disk and goes on reading, so
// the console follower sees one more boot.
type powerSwitch struct {
	ctx  context.Context
	mach qemu.Machine
	log  logrus.FieldLogger

	mu      sync.Mutex
	vm      *qemu.VM
	cutting bool // a cut is under way: the next end of the console is ours
	timer   *time.Timer
	cuts    int
	req     cutRequests
}

func newPowerSwitch(ctx context.Context, vm *qemu.VM, mach qemu.Machine, log logrus.FieldLogger) *powerSwitch {
	s := &powerSwitch{ctx: ctx, vm: vm, mach: mach, log: log}
	s.req.fire = s.schedule
	return s
}

// VM is the QEMU that runs now.
func (s *powerSwitch) VM() *qemu.VM {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.vm
}

func (s *powerSwitch) Read(p []byte) (int, error) {
	for {
		vm := s.VM()
		n, err := vm.Console().Read(p)
		if n > 0 {
			s.req.scan(p[:n])
			return n, nil
		}
		s.mu.Lock()
		cut := s.cutting
		s.mu.Unlock()
		if err != io.EOF || !cut {
			return n, err
		}
		<-vm.Exited()
		vm.Close()
		next, err := qemu.Start(s.ctx, s.mach, s.log)
		if err != nil {
			return 0, fmt.Errorf("restarting QEMU after the power cut: %w", err)
		}
		s.mu.Lock()
		s.vm, s.cutting = next, false
		s.cuts++
		s.mu.Unlock()
	}
}

// cutRequests finds the runner's requests for a power cut in the
// console's complete lines and passes them to fire.
type cutRequests struct {
	line []byte
	fire func(after time.Duration)
}

func (c *cutRequests) scan(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(c.line) < 256 {
				c.line = append(c.line, b...)
			}
			return
		}
		line := append(c.line, b[:i]...)
		c.line = c.line[:0]
		b = b[i+1:]
		if secs, ok := cutRequest(string(line)); ok {
			c.fire(time.Duration(secs) * time.Second)
		}
	}
}

// boardPower passes a board's console through and, when the runner asks
// for a power cut, runs the power-cycle command at the time it asked for
// (or tells the user to do it by hand). After each power cycle it wants
// the console's first byte within the board's PowerOnTimeout; a board
// that stays silent, or a power command that fails, ends the run through
// fail.
type boardPower struct {
	r       io.Reader
	req     cutRequests
	timeout time.Duration
	fail    context.CancelCauseFunc

	mu    sync.Mutex
	heard bool
	timer *time.Timer
	cycle string
}

func newBoardPower(ctx context.Context, r io.Reader, board Board, log logrus.FieldLogger, fail context.CancelCauseFunc) *boardPower {
	b := &boardPower{r: r, fail: fail, timeout: cmp.Or(board.PowerOnTimeout, DefaultPowerOnTimeout),
		cycle: strings.Join(board.PowerCycle, " ")}
	b.req.fire = func(after time.Duration) {
		time.AfterFunc(after, func() {
			if len(board.PowerCycle) == 0 {
				log.Warnf("the runner asks for a power cut now: switch the board off and on")
				return
			}
			log.Infof("power cut, as the runner asked: %s", b.cycle)
			b.switched()
			if err := runCommand(ctx, board.PowerCycle, log); err != nil {
				fail(fmt.Errorf("power cut, as the runner asked: %w", err))
			}
		})
	}
	return b
}

// switched starts the wait for the console's first byte after the power
// came on.
func (b *boardPower) switched() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.heard = false
	if b.timer != nil {
		b.timer.Stop()
	}
	b.timer = time.AfterFunc(b.timeout, func() {
		b.mu.Lock()
		heard := b.heard
		b.mu.Unlock()
		if !heard {
			b.fail(fmt.Errorf("the board printed nothing on its console within %s of %q: does that command switch its power "+
				"(try it by hand), is -port the board's console, and are its baud rate and wiring (TX to RX, a common ground) right?", b.timeout, b.cycle))
		}
	})
}

func (b *boardPower) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		b.mu.Lock()
		if !b.heard {
			b.heard = true
			if b.timer != nil {
				b.timer.Stop()
			}
		}
		b.mu.Unlock()
	}
	b.req.scan(p[:n])
	return n, err
}

// cutRequest parses "fsbench-power-cut: N".
func cutRequest(line string) (int, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), runplan.PowerCutMarker)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(rest))
	if err != nil || n < 0 || n > 86400 {
		return 0, false
	}
	return n, true
}

func (s *powerSwitch) schedule(after time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
	}
	vm := s.vm
	s.log.Infof("power cut in %s, as the runner asked", after)
	s.timer = time.AfterFunc(after, func() {
		s.mu.Lock()
		if s.vm != vm {
			s.mu.Unlock()
			return
		}
		s.cutting = true
		s.mu.Unlock()
		vm.Kill()
	})
}

// Close stops a pending cut and QEMU.
func (s *powerSwitch) Close() error {
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	vm := s.vm
	s.mu.Unlock()
	return vm.Close()
}
