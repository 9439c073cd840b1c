package driver

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

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
	// PowerCycle, when set, switches the board off and on (a relay, a
	// USB hub port, a lab's PDU command); without it the board is
	// powered on by hand once the console is open.
	PowerCycle []string
}

// RunBoard flashes (optionally) and powers on a board and follows its
// serial console until the runner reports the plan complete. The board's
// runner reboots it itself for boot_time and power_loss; it stays on at the
// end.
func RunBoard(ctx context.Context, v Variant, b Board, opt Options) (*Outcome, error) {
	log, m, p, runDir, err := prepare(v, opt, "a board run flashes one")
	if err != nil {
		return nil, err
	}
	port, err := capture.Open(b.Port, capture.Config{Baud: b.Baud, RTSCTS: b.RTSCTS})
	if err != nil {
		return nil, err
	}
	defer port.Close()
	timeout := opt.Timeout
	if timeout == 0 {
		timeout = PlanTimeout(p)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	image := filepath.Join(v.Dir, m.Images[0].File)
	if len(b.Flash) > 0 {
		argv := substitute(b.Flash, map[string]string{"{image}": image, "{bmap}": image + ".bmap"})
		log.Infof("flashing: %s", strings.Join(argv, " "))
		if err := runCommand(ctx, argv, log); err != nil {
			return nil, fmt.Errorf("flashing: %w", err)
		}
	}
	// The console is open before the board gets power, so no line of the
	// first boot is missed.
	out := &Outcome{Variant: v.Name, Results: filepath.Join(runDir, "results.jsonl"),
		Console: filepath.Join(runDir, "console.log")}
	f := follow{variant: v.Name, plan: p, out: out, attrs: map[string]string{"target": "board", "port": b.Port},
		opt: opt, log: log, stopWhenComplete: true}
	followed := make(chan error, 1)
	go func() {
		var err error
		out.Summary, err = f.run(ctx, newBoardPower(ctx, port, b.PowerCycle, log))
		followed <- err
	}()
	if len(b.PowerCycle) > 0 {
		log.Infof("power cycle: %s", strings.Join(b.PowerCycle, " "))
		if err := runCommand(ctx, b.PowerCycle, log); err != nil {
			cancel()
			<-followed
			return out, fmt.Errorf("power cycle: %w", err)
		}
	} else {
		log.Warnf("power the board on now; following %s", b.Port)
	}
	return out, <-followed
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

// runCommand runs argv without a shell and logs what it printed.
func runCommand(ctx context.Context, argv []string, log logrus.FieldLogger) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	b, err := cmd.CombinedOutput()
	if s := strings.TrimSpace(string(b)); s != "" {
		log.Infof("%s: %s", filepath.Base(argv[0]), s)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	return nil
}
