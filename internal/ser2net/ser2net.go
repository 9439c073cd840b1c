// Package ser2net runs Debian's ser2net on localhost, serving a serial
// device (a pty) as a board lab's console server does: over RFC 2217,
// telnet and raw TCP. The bench board, the tests of network consoles and
// the capture benchmark use it. It must never listen beyond the loopback
// address.
package ser2net

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Program finds ser2net: on PATH or in /usr/sbin, where Debian puts it.
func Program() (string, error) {
	if p, err := exec.LookPath("ser2net"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/sbin/ser2net"); err == nil {
		return "/usr/sbin/ser2net", nil
	}
	return "", errors.New("ser2net is not installed (Debian's package ser2net)")
}

// Server is a running ser2net with one port per scheme.
type Server struct {
	// Ports maps each scheme ("rfc2217", "telnet", "tcp") to its
	// 127.0.0.1:PORT.
	Ports  map[string]string
	cmd    *exec.Cmd
	dir    string
	mu     sync.Mutex
	output bytes.Buffer
	done   chan struct{}
}

// accepters are ser2net's accepter for each scheme.
var accepters = map[string]string{
	"rfc2217": "telnet(rfc2217),tcp",
	"telnet":  "telnet,tcp",
	"tcp":     "tcp",
}

// Start serves device at baud (8N1) over each of schemes, on free ports
// of 127.0.0.1. chardelay is ser2net's wait after each byte from the
// device before it sends (its default, on: two characters' time, at
// least 1 ms, to gather them); off sends each read at once. Close stops
// it.
func Start(ctx context.Context, device string, baud int, chardelay bool, schemes ...string) (*Server, error) {
	prog, err := Program()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "fsbench-ser2net-")
	if err != nil {
		return nil, err
	}
	s := &Server{Ports: map[string]string{}, dir: dir, done: make(chan struct{})}
	var conf strings.Builder
	for i, scheme := range schemes {
		acc, ok := accepters[scheme]
		if !ok {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("ser2net: no accepter for %q", scheme)
		}
		port, err := freePort()
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		s.Ports[scheme] = "127.0.0.1:" + strconv.Itoa(port)
		fmt.Fprintf(&conf, "connection: &con%d\n  accepter: %s,127.0.0.1,%d\n  connector: serialdev,%s,%dn81,local\n  options:\n    kickolduser: true\n    chardelay: %t\n",
			i, acc, port, device, baud, chardelay)
	}
	path := filepath.Join(dir, "ser2net.yaml")
	if err := os.WriteFile(path, []byte(conf.String()), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// -n: in the foreground, a child of this process; -u: no UUCP lock
	// files in /var/lock for the device.
	s.cmd = exec.CommandContext(ctx, prog, "-n", "-u", "-c", path, "-P", filepath.Join(dir, "ser2net.pid"))
	s.cmd.Stdout, s.cmd.Stderr = (*lockedBuffer)(s), (*lockedBuffer)(s)
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("ser2net: %w", err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	if err := s.waitListening(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// URL is the console's address for capture.Open: SCHEME://127.0.0.1:PORT.
func (s *Server) URL(scheme string) string { return scheme + "://" + s.Ports[scheme] }

// waitListening waits until every port listens, from /proc/net/tcp (a
// connection would open the device).
func (s *Server) waitListening() error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("ser2net exited: %s", s.Output())
		default:
		}
		if listening(s.Ports) {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("ser2net did not listen within 10 s: %s", s.Output())
}

// listening reports whether every address of ports is in LISTEN state.
func listening(ports map[string]string) bool {
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return false
	}
	for _, addr := range ports {
		_, p, _ := net.SplitHostPort(addr)
		n, _ := strconv.Atoi(p)
		// local_address 0100007F:PORT, st 0A (LISTEN)
		if !bytes.Contains(b, []byte(fmt.Sprintf("0100007F:%04X 00000000:0000 0A", n))) {
			return false
		}
	}
	return true
}

// Output is what ser2net printed.
func (s *Server) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.TrimSpace(s.output.String())
}

// Close stops ser2net and removes its files.
func (s *Server) Close() error {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	return os.RemoveAll(s.dir)
}

type lockedBuffer Server

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.output.Len() < 8192 {
		b.output.Write(p)
	}
	return len(p), nil
}

// freePort is a TCP port of 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Pid is ser2net's process ID.
func (s *Server) Pid() int { return s.cmd.Process.Pid }
