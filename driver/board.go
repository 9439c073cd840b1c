package driver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/capture"
)

// Board is a real board on a serial port, or on a console server
// (capture.Open).
type Board struct {
	Port   string
	Baud   int
	RTSCTS bool
	// Flash, when set, writes the variant's image before the power cycle:
	// an argv in which "{image}" and "{bmap}" stand for the image and its
	// block map (e.g. bmaptool copy --bmap {bmap} {image} /dev/sdX).
	Flash []string
	// FlashByHand, when Flash is not set, is how the user puts the image
	// on the board: it says which image to write and returns once the
	// user says it is done (an error ends the variant). Without either,
	// the board boots what it has.
	FlashByHand func(ctx context.Context, image, bmap string) error
	// PowerOff, when set, switches the board off before it is flashed,
	// so that the image it runs does not write to the storage being
	// flashed.
	PowerOff []string
	// PowerCycle, when set, switches the board off and on (a relay, a
	// USB hub port, a lab's PDU command); without it the board is
	// powered on by hand once the console is open.
	PowerCycle []string
	// PowerOnTimeout bounds the wait for the console's first byte after
	// PowerCycle switched the board on; 0 is DefaultPowerOnTimeout.
	PowerOnTimeout time.Duration
}

// DefaultPowerOnTimeout is how long a board may stay silent after it was
// switched on: a bootloader prints its banner within seconds.
const DefaultPowerOnTimeout = time.Minute

// RunBoard flashes (optionally) and powers on a board and follows its
// console until the runner reports the plan complete. The board's runner
// reboots it itself for boot_time and power_loss; it stays on at the end.
// A command that fails, a board that stays silent after its power came
// on, or a console that goes quiet ends the variant with what went wrong.
func RunBoard(ctx context.Context, v Variant, b Board, opt Options) (*Outcome, error) {
	log, m, p, runDir, err := prepare(v, opt, "a board run flashes one")
	if err != nil {
		return nil, err
	}
	timeout := cmp.Or(opt.Timeout, PlanTimeout(p))
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	defer cancelTimeout()
	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)

	image := filepath.Join(v.Dir, m.Images[0].File)
	if err := b.flash(ctx, image, log); err != nil {
		return nil, err
	}
	// The console is opened once the image is on the board, so that what
	// a flashing recipe made the bootloader print (U-Boot's ums or
	// fastboot) is not taken for a boot, and before the board gets power,
	// so that no line of the first boot is missed.
	port, err := capture.Open(b.Port, capture.Config{Baud: b.Baud, RTSCTS: b.RTSCTS})
	if err != nil {
		return nil, err
	}
	defer port.Close()
	out := &Outcome{Variant: v.Name, Results: filepath.Join(runDir, "results.jsonl"),
		Console: filepath.Join(runDir, "console.log")}
	f := follow{variant: v.Name, plan: p, out: out, attrs: map[string]string{"target": "board", "port": b.Port},
		opt: opt, log: log, stopWhenComplete: true}
	power := newBoardPower(ctx, port, b, log, fail)
	followed := make(chan error, 1)
	go func() {
		var err error
		out.Summary, err = f.run(ctx, power)
		followed <- err
	}()
	if len(b.PowerCycle) > 0 {
		log.Infof("power cycle: %s", strings.Join(b.PowerCycle, " "))
		power.switched()
		if err := runCommand(ctx, b.PowerCycle, log); err != nil {
			fail(fmt.Errorf("power cycle: %w", err))
		}
	} else {
		log.Warnf("power the board on now; following %s", b.Port)
	}
	err = <-followed
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, context.DeadlineExceeded) {
		return out, cause
	}
	return out, err
}

// flash switches the board off (PowerOff) and writes image onto it, by
// the Flash command or by hand.
func (b Board) flash(ctx context.Context, image string, log logrus.FieldLogger) error {
	if len(b.PowerOff) > 0 {
		log.Infof("power off: %s", strings.Join(b.PowerOff, " "))
		if err := runCommand(ctx, b.PowerOff, log); err != nil {
			return fmt.Errorf("power off: %w", err)
		}
	}
	switch {
	case len(b.Flash) > 0:
		argv := substitute(b.Flash, map[string]string{"{image}": image, "{bmap}": image + ".bmap"})
		log.Infof("flashing: %s", strings.Join(argv, " "))
		if err := runCommand(ctx, argv, log); err != nil {
			return fmt.Errorf("flashing: %w", err)
		}
	case b.FlashByHand != nil:
		if err := b.FlashByHand(ctx, image, image+".bmap"); err != nil {
			return fmt.Errorf("flashing by hand: %w", err)
		}
	}
	return nil
}

// substitute replaces whole-word placeholders in argv; values never pass
// through a shell.
func substitute(argv []string, vals map[string]string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		for k, v := range vals {
			a = strings.ReplaceAll(a, k, v)
		}
		out[i] = a
	}
	return out
}

// runCommand runs argv without a shell and logs what it printed; its
// error ends with the last lines it printed.
func runCommand(ctx context.Context, argv []string, log logrus.FieldLogger) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	b, err := cmd.CombinedOutput()
	s := strings.TrimSpace(string(b))
	if s != "" {
		log.Infof("%s: %s", filepath.Base(argv[0]), s)
	}
	if err != nil {
		if lines := strings.Split(s, "\n"); s != "" {
			s = ": " + strings.Join(lines[max(0, len(lines)-3):], " / ")
		}
		return fmt.Errorf("%s: %w%s", strings.Join(argv, " "), err, s)
	}
	return nil
}
