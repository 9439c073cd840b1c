//go:build linux

package capture

import (
	"context"
	"net"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestOpenSerialTermios(t *testing.T) {
	for _, cfg := range []Config{{}, {Baud: 921600, RTSCTS: true}, {Baud: 9600}, {Baud: 4000000}} {
		_, slave := openPTY(t, cfg)
		// Through Control: Fd would switch the file to blocking mode.
		rc, err := slave.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var tio *unix.Termios
		var terr error
		var fl int
		if err := rc.Control(func(fd uintptr) {
			tio, terr = unix.IoctlGetTermios(int(fd), unix.TCGETS)
			fl, _ = unix.FcntlInt(fd, unix.F_GETFL, 0)
		}); err != nil {
			t.Fatal(err)
		}
		if terr != nil {
			t.Fatal(terr)
		}
		baud := cfg.Baud
		if baud == 0 {
			baud = DefaultBaud
		}
		if got := tio.Cflag & unix.CBAUD; got != bauds[baud] {
			t.Errorf("%+v: speed bits %#x, want %#x", cfg, got, bauds[baud])
		}
		if tio.Cflag&unix.CSIZE != unix.CS8 || tio.Cflag&(unix.PARENB|unix.CSTOPB) != 0 {
			t.Errorf("%+v: not 8N1: cflag %#x", cfg, tio.Cflag)
		}
		if tio.Cflag&(unix.CLOCAL|unix.CREAD) != unix.CLOCAL|unix.CREAD {
			t.Errorf("%+v: CLOCAL/CREAD missing", cfg)
		}
		if (tio.Cflag&unix.CRTSCTS != 0) != cfg.RTSCTS {
			t.Errorf("%+v: CRTSCTS = %v", cfg, tio.Cflag&unix.CRTSCTS != 0)
		}
		if tio.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG|unix.IEXTEN) != 0 ||
			tio.Iflag&(unix.ICRNL|unix.IXON|unix.ISTRIP|unix.INLCR|unix.IGNCR) != 0 ||
			tio.Oflag&unix.OPOST != 0 {
			t.Errorf("%+v: not raw: %+v", cfg, tio)
		}
		if tio.Cc[unix.VMIN] != 1 || tio.Cc[unix.VTIME] != 0 {
			t.Errorf("%+v: VMIN %d VTIME %d", cfg, tio.Cc[unix.VMIN], tio.Cc[unix.VTIME])
		}
		// Non-blocking descriptor in the poller: a Reader waits for it
		// there (see pollSource).
		if fl&unix.O_NONBLOCK == 0 {
			t.Errorf("%+v: descriptor blocking", cfg)
		}
		if err := slave.SetReadDeadline(time.Time{}); err != nil {
			t.Errorf("%+v: not in the poller: %v", cfg, err)
		}
	}
	if _, err := OpenSerial("/dev/null", Config{Baud: 12345}); err == nil {
		t.Error("baud 12345 accepted")
	}
	if _, err := OpenSerial("/dev/null", Config{}); err == nil {
		t.Error("/dev/null (not a tty) accepted")
	}
}

func TestOpenUnix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "console.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.Write([]byte("[    0.5] VFS: Mounted root (9p)\r\n"))
		time.Sleep(50 * time.Millisecond)
		c.Write([]byte("/ # "))
		time.Sleep(2 * time.Second) // keep the socket open: the prompt must end the capture
	}()
	f, err := OpenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := Capture(context.Background(), f, Options{KeepLines: true, Quit: regexp.MustCompile(`# $`), Idle: 50 * time.Millisecond, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	iv, err := res.Interval(RootMount, Prompt)
	if res.Stop != StopQuit || err != nil || iv < 40*time.Millisecond || iv > 500*time.Millisecond {
		t.Fatalf("stop %v interval %v %v", res.Stop, iv, err)
	}
}

func TestStripANSI(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[1;32mOK\x1b[0m":                       "OK",
		"\x1b]0;root@host\x07\x1b[1;34m~\x1b[0m # ": "~ # ",
		"\x1b]2;title\x1b\\$ ":                      "$ ",
		"\x1b(Bplain\x1b7\x1b8":                     "plain",
		"\x1b[?25lcafé ✓\x1b[K":                     "café ✓",
	} {
		if got := StripANSI(in); got != want {
			t.Errorf("StripANSI(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"a\r\n": "a", "a\r\r\n": "a", "a\rb\n": "a\rb", "# ": "# ", "\n": ""} {
		if got := (Line{Bytes: []byte(in)}).Text(); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}
