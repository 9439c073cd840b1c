package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fsbench/fsbench/capture"
	"golang.org/x/sys/unix"
)

// readerFlag makes the program the minimal reader as a process of its own
// ("minimal-proc"): the same read loop as the in-process one, printing
// "[abs delta] line" like fsbench with the same reset and quit. Its CPU
// time is then counted like fsbench's, Go runtime threads included
// (RUSAGE_THREAD of the in-process reader sees only its own thread), so it
// shows what any Go program blocking in read(2) costs.
const readerFlag = "-reader"

func childReaderTool(baud int, ref, quit string, l *bootLog, reset int) (tool, error) {
	exe, err := os.Executable()
	if err != nil {
		return tool{}, err
	}
	return externalTool("minimal-proc", func(slave string) []string {
		return []string{exe, readerFlag, slave, strconv.Itoa(baud), ref, quit}
	}, l, reset), nil
}

// childReader runs the reader: args are the slave, the baud rate and the
// reset and quit regexps.
func childReader(args []string) error {
	if len(args) != 4 {
		return fmt.Errorf("%s wants SLAVE BAUD RESET QUIT", readerFlag)
	}
	baud, err := strconv.Atoi(args[1])
	if err != nil {
		return err
	}
	reset, err := regexp.Compile(args[2])
	if err != nil {
		return err
	}
	quit, err := regexp.Compile(args[3])
	if err != nil {
		return err
	}
	f, err := openBlocking(args[0], baud)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 4096)
	var line []byte
	var start, base, prev time.Time
	for {
		n, err := f.Read(buf)
		t := time.Now()
		for _, b := range buf[:n] {
			if len(line) == 0 {
				start = t
			}
			line = append(line, b)
			if b != '\n' {
				continue
			}
			text := strings.TrimRight(string(line[:len(line)-1]), "\r")
			line = line[:0]
			if base.IsZero() {
				base, prev = start, start
			}
			if reset.MatchString(text) {
				base = start
			}
			fmt.Printf("[%11.6f %9.6f] %s\n", start.Sub(base).Seconds(), start.Sub(prev).Seconds(), text)
			prev = start
			if quit.MatchString(text) {
				return nil
			}
		}
		if err != nil {
			return nil // EIO or EOF: hung up
		}
	}
}

// openBlocking opens the slave like fsbench (capture.OpenSerial: raw
// termios, VMIN=1), then puts its descriptor in blocking mode, so that
// Read is a plain read(2) that sleeps until bytes arrive: the bare
// blocking reader every capture tool is measured against.
func openBlocking(slave string, baud int) (*os.File, error) {
	f, err := capture.OpenSerial(slave, capture.Config{Baud: baud})
	if err != nil {
		return nil, err
	}
	rc, err := f.SyscallConn()
	if err == nil {
		cerr := rc.Control(func(fd uintptr) { err = unix.SetNonblock(int(fd), false) })
		if err == nil {
			err = cerr
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: blocking mode: %w", slave, err)
	}
	return f, nil
}
