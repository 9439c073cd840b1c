//go:build linux

package capture

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/internal/ser2net"
	"github.com/fsbench/fsbench/internal/testenv"
)

// serveTTY serves a new pty's slave with a real ser2net over schemes and
// returns the pty's master.
func serveTTY(t *testing.T, schemes ...string) (*ser2net.Server, *bytesMaster) {
	t.Helper()
	_, err := ser2net.Program()
	testenv.Needf(t, err, "ser2net")
	master, slave, err := OpenPTY()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	srv, err := ser2net.Start(context.Background(), slave, 115200, false, schemes...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, &bytesMaster{fd: int(master.Fd()), t: t}
}

type bytesMaster struct {
	fd int
	t  *testing.T
}

func (m *bytesMaster) write(b []byte) {
	if _, err := unix.Write(m.fd, b); err != nil {
		m.t.Fatal(err)
	}
}

// speed is the line's speed as the slave's termios has it.
func (m *bytesMaster) speed() uint32 {
	tio, err := unix.IoctlGetTermios(m.fd, unix.TCGETS)
	if err != nil {
		m.t.Fatal(err)
	}
	return tio.Cflag & unix.CBAUD
}

// TestNetworkConsoles reads a console through a real ser2net over RFC
// 2217, telnet and raw TCP: every byte arrives as the board sent it,
// 0xFF (telnet's escape) and a prompt without newline included, and over
// RFC 2217 the server sets the line to the baud asked for.
func TestNetworkConsoles(t *testing.T) {
	console := []byte("U-Boot 2023.01\r\n\xff\xfe bytes telnet escapes\r\n[    1.0] VFS: Mounted root (ext4 filesystem)\r\nfsbench login: ")
	for _, scheme := range []string{SchemeRFC2217, SchemeTelnet, SchemeTCP} {
		t.Run(scheme, func(t *testing.T) {
			srv, master := serveTTY(t, scheme)
			src, err := Open(srv.URL(scheme), Config{Baud: 57600})
			if err != nil {
				t.Fatalf("%v (ser2net: %s)", err, srv.Output())
			}
			defer src.Close()
			if _, ok := newPollSource(src); !ok {
				t.Errorf("%s: the connection is not read in the runtime's poller", scheme)
			}
			if want := uint32(unix.B57600); scheme == SchemeRFC2217 && master.speed() != want {
				t.Errorf("the line is at %#o, want B57600 (%#o)", master.speed(), want)
			}
			var raw bytes.Buffer
			rd := NewReader(src, 100*time.Millisecond)
			rd.Raw = &raw
			defer rd.Close()
			// ser2net opens the device when the client connects: bytes
			// before that are a board's output with nobody listening.
			waitOpen(t, master)
			master.write(console)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var lines []string
			for len(lines) < 4 {
				l, err := rd.Next(ctx)
				if err != nil {
					t.Fatalf("after %q: %v (ser2net: %s)", lines, err, srv.Output())
				}
				lines = append(lines, l.Text())
			}
			if !bytes.Equal(raw.Bytes(), console) || lines[3] != "fsbench login: " {
				t.Errorf("raw %q, lines %q; want %q", raw.Bytes(), lines, console)
			}
		})
	}
}

// waitOpen waits until ser2net has opened the slave of the pty (the
// master no longer reports a hangup) and made it raw: before that the
// line discipline would turn \r into \n.
func waitOpen(t *testing.T, m *bytesMaster) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		fds := []unix.PollFd{{Fd: int32(m.fd), Events: unix.POLLOUT}}
		_, err := unix.Poll(fds, 0)
		tio, terr := unix.IoctlGetTermios(m.fd, unix.TCGETS)
		if err == nil && terr == nil && fds[0].Revents&unix.POLLHUP == 0 && tio.Lflag&unix.ICANON == 0 && tio.Iflag&unix.ICRNL == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("ser2net never opened the pty")
}

// A server without RFC 2217 is refused over rfc2217:// with the scheme to
// use; a wrong URL says what is wrong.
func TestNetworkConsoleErrors(t *testing.T) {
	for _, c := range []struct{ port, want string }{
		{"ssh://host:22", `unknown scheme "ssh"`},
		{"rfc2217://host", "want a TCP port"},
		{"rfc2217://host:99999", "want a TCP port"},
		{"tcp://:2000", "no host"},
		{"telnet://host:2000/ttyUSB0", "nothing else"},
	} {
		if _, err := Open(c.port, Config{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.port, err, c.want)
		}
	}
	srv, _ := serveTTY(t, SchemeTelnet)
	_, err := Open("rfc2217://"+srv.Ports[SchemeTelnet], Config{})
	if err == nil || !strings.Contains(err.Error(), "connect with telnet://") {
		t.Errorf("rfc2217:// to a telnet port without RFC 2217: %v", err)
	}
}
