package benchboard

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/ser2net"
	"github.com/fsbench/fsbench/wire/arch"
)

// Command is the bench board's command name.
const Command = "fsbench-bench-board"

const usage = `Usage:
  fsbench-bench-board start -dir DIR [-arch arm64|arm|x86_64] [-accel auto|kvm|tcg] [-ser2net]
      sets up a board made of QEMU in DIR and keeps it until interrupted: it
      prints its console (a pty; with -ser2net also rfc2217:// and tcp://
      URLs on localhost) and the -flash, -power-off and -power-cycle
      commands of fsbench run -target board
  fsbench-bench-board power on|off|cycle|mute|mute-after=DURATION -dir DIR
      switches the board in DIR; mute silences its console while it runs on,
      until it is switched on again
`

// Main runs the bench board's command line and returns its exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	fs := flag.NewFlagSet(Command+" "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	dir := fs.String("dir", "", "the bench's directory")
	a := fs.String("arch", "arm64", "the board's architecture")
	accel := fs.String("accel", "auto", "QEMU's accelerator")
	withSer2net := fs.Bool("ser2net", false, "also serve the console with ser2net on localhost")
	switch args[0] {
	case "start":
		if fs.Parse(args[1:]) != nil || fs.NArg() != 0 || *dir == "" {
			fs.Usage()
			return 2
		}
		return start(*dir, arch.Arch(*a), *accel, *withSer2net, stdout, stderr)
	case "power":
		if len(args) < 2 || fs.Parse(args[2:]) != nil || fs.NArg() != 0 || *dir == "" {
			fs.Usage()
			return 2
		}
		if err := Control(*dir, strings.Replace(args[1], "=", " ", 1)); err != nil {
			fmt.Fprintf(stderr, "%s: %s\n", Command, err)
			return 1
		}
		return 0
	}
	fs.Usage()
	return 2
}

func start(dir string, a arch.Arch, accel string, withSer2net bool, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := logrus.New()
	log.Out = stderr
	abs, err := filepath.Abs(dir)
	if err == nil {
		var b *Board
		if b, err = Start(ctx, Config{Dir: abs, Arch: a, Accel: accel, Log: log}); err == nil {
			defer b.Close()
			err = announce(ctx, b, withSer2net, stdout)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", Command, err)
		return 1
	}
	return 0
}

// announce says how fsbench reaches the board, and waits for the end.
func announce(ctx context.Context, b *Board, withSer2net bool, w io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		self = Command
	}
	fmt.Fprintf(w, "console:     %s\n", b.Console())
	if withSer2net {
		srv, err := ser2net.Start(ctx, b.Console(), 115200, false, "rfc2217", "tcp")
		if err != nil {
			return err
		}
		defer srv.Close()
		fmt.Fprintf(w, "             %s\n             %s\n", srv.URL("rfc2217"), srv.URL("tcp"))
	}
	fmt.Fprintf(w, "storage:     %s\n", b.Disk())
	fmt.Fprintf(w, "-flash       \"bmaptool copy --bmap {bmap} {image} %s\"\n", b.Disk())
	for _, c := range []string{"off", "cycle"} {
		fmt.Fprintf(w, "-power-%-5s \"%s power %s -dir %s\"\n", c, self, c, b.cfg.Dir)
	}
	fmt.Fprintf(w, "The board is off; interrupt this command to take it down.\n")
	<-ctx.Done()
	return nil
}
