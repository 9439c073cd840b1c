package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsbench/fsbench/internal/ser2net"
)

// networkTool is fsbench capture reading the pty through a ser2net on
// localhost, over scheme ("rfc2217" or "tcp"), as a board lab exports a
// console: the same playback, the same stamps, one network hop and
// ser2net's own reading in between. With chardelay, ser2net keeps its
// default of waiting two characters' time (at least 1 ms) after each
// byte before it sends. The CPU figure is fsbench's alone.
func networkTool(name, scheme string, chardelay bool, argv func(port string) []string, baud int, l *bootLog, reset int) tool {
	return tool{name: name, start: func(slave, dir string) (session, error) {
		srv, err := ser2net.Start(context.Background(), slave, baud, chardelay, scheme)
		if err != nil {
			return nil, err
		}
		ext := externalTool(name, func(string) []string { return argv(srv.URL(scheme)) }, l, reset)
		s, err := ext.start(slave, dir)
		if err != nil {
			srv.Close()
			return nil, err
		}
		return &netSession{external: s.(*external), srv: srv}, nil
	}}
}

// netSession is an external tool behind ser2net.
type netSession struct {
	*external
	srv *ser2net.Server
}

// ready waits until ser2net has opened the pty and waits for its input
// (it opens it when the tool connects), and the tool waits for bytes on
// its connection.
func (s *netSession) ready() error {
	pid := s.cmd.Process.Pid
	if err := waitReady(s.srv.Pid(), s.slave, s.exited, readyTimeout); err != nil {
		return fmt.Errorf("ser2net: %w%s", err, s.stderrTail())
	}
	deadline := time.Now().Add(readyTimeout)
	for {
		if socks := sockets(pid); len(socks) > 0 && waitsForInput(pid, socks) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not waiting for input on its connection after %s%s", readyTimeout, s.stderrTail())
		}
		time.Sleep(2 * time.Millisecond)
	}
	s.startup = cpuSoFar(pid)
	return nil
}

func (s *netSession) finish(hangup func()) (*take, error) {
	defer s.srv.Close()
	return s.external.finish(hangup)
}

// sockets lists the descriptors of process pid that are sockets.
func sockets(pid int) []string {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, _ := os.ReadDir(dir)
	var fds []string
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && strings.HasPrefix(target, "socket:") {
			fds = append(fds, e.Name())
		}
	}
	return fds
}

// parseNetwork reads -network: comma-separated schemes, each with
// "+chardelay" for ser2net's default delay.
func parseNetwork(v string) ([]netSpec, error) {
	var out []netSpec
	for _, item := range strings.Split(v, ",") {
		scheme, delay := strings.CutSuffix(item, "+chardelay")
		if scheme != "rfc2217" && scheme != "tcp" && scheme != "telnet" {
			return nil, fmt.Errorf("-network: %q: want rfc2217, telnet or tcp, each optionally with +chardelay", item)
		}
		out = append(out, netSpec{name: "fsbench-" + item, scheme: scheme, chardelay: delay})
	}
	return out, nil
}

type netSpec struct {
	name, scheme string
	chardelay    bool
}
