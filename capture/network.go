//go:build linux

package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Schemes of a console on the network, as console servers export a
// board's serial port: ser2net, labgrid's NetworkSerialPort, a terminal
// server.
const (
	// SchemeRFC2217 is telnet with the COM-PORT option (RFC 2217): the
	// line's settings (baud, 8N1, flow control) are asked of the server.
	// ser2net's "telnet(rfc2217),tcp,PORT"; labgrid's protocol rfc2217.
	SchemeRFC2217 = "rfc2217"
	// SchemeTelnet is a telnet server, or a raw TCP port: fsbench sends
	// nothing until the server negotiates, and answers only what it asks.
	// ser2net's "telnet,tcp,PORT".
	SchemeTelnet = "telnet"
	// SchemeTCP is a raw TCP port: every byte is the console's. ser2net's
	// "tcp,PORT"; labgrid's protocol raw.
	SchemeTCP = "tcp"
)

// Open opens the console at port: a serial device or pty (OpenSerial),
// or a console server given as rfc2217://HOST:PORT, telnet://HOST:PORT or
// tcp://HOST:PORT. Every kind is read in the runtime's poller and stamped
// at its read(2), as a local port is; a network console's telnet commands
// are taken out of the stream right after that read, so the raw log gets
// the console's own bytes.
func Open(port string, cfg Config) (io.ReadWriteCloser, error) {
	if !strings.Contains(port, "://") {
		return OpenSerial(port, cfg)
	}
	scheme, addr, err := ParseNetworkPort(port)
	if err != nil {
		return nil, err
	}
	return OpenNetwork(scheme, addr, cfg)
}

// ParseNetworkPort splits a console server's URL into its scheme and
// host:port, or says what is wrong with it.
func ParseNetworkPort(port string) (scheme, addr string, err error) {
	u, err := url.Parse(port)
	if err != nil {
		return "", "", fmt.Errorf("console %q: %w", port, err)
	}
	switch u.Scheme {
	case SchemeRFC2217, SchemeTelnet, SchemeTCP:
	default:
		return "", "", fmt.Errorf("console %q: unknown scheme %q: use rfc2217://HOST:PORT, telnet://HOST:PORT, tcp://HOST:PORT or a device path", port, u.Scheme)
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", "", fmt.Errorf("console %q: want %s://HOST:PORT and nothing else", port, u.Scheme)
	}
	if u.Hostname() == "" {
		return "", "", fmt.Errorf("console %q: no host", port)
	}
	if n, err := strconv.Atoi(u.Port()); err != nil || n < 1 || n > 65535 {
		return "", "", fmt.Errorf("console %q: want a TCP port from 1 to 65535 after the host", port)
	}
	return u.Scheme, u.Host, nil
}

// netTimeout bounds the connection and, over RFC 2217, the negotiation of
// the line's settings.
const netTimeout = 10 * time.Second

// OpenNetwork connects to the console server at addr (host:port) with
// scheme (SchemeRFC2217, SchemeTelnet or SchemeTCP). Over RFC 2217 it
// sets the line to cfg (baud, 8N1, RTS/CTS or no flow control) and checks
// that the server agreed; a server that does not speak RFC 2217 is an
// error that says which scheme to use.
func OpenNetwork(scheme, addr string, cfg Config) (io.ReadWriteCloser, error) {
	baud := cfg.Baud
	if baud == 0 {
		baud = DefaultBaud
	}
	if _, ok := bauds[baud]; !ok && scheme == SchemeRFC2217 {
		return nil, fmt.Errorf("unsupported baud rate %d (supported: %v)", baud, Bauds())
	}
	c, err := net.DialTimeout("tcp", addr, netTimeout)
	if err != nil {
		return nil, fmt.Errorf("console %s://%s: %w", scheme, addr, err)
	}
	tc := c.(*net.TCPConn)
	// Console lines are small and rare: sent at once, not gathered.
	_ = tc.SetNoDelay(true)
	if scheme == SchemeTCP {
		return tc, nil
	}
	t := &telnetConn{TCPConn: tc, comPort: scheme == SchemeRFC2217}
	if t.comPort {
		if err := t.negotiate(baud, cfg.RTSCTS); err != nil {
			tc.Close()
			return nil, fmt.Errorf("console %s://%s: %w", scheme, addr, err)
		}
	}
	return t, nil
}

// Telnet's bytes (RFC 854, 855) and the COM-PORT option's (RFC 2217).
const (
	tnSE   = 240
	tnSB   = 250
	tnWILL = 251
	tnWONT = 252
	tnDO   = 253
	tnDONT = 254
	tnIAC  = 255

	optBinary  = 0
	optEcho    = 1
	optSGA     = 3
	optComPort = 44

	cpSetBaud     = 1
	cpSetDataSize = 2
	cpSetParity   = 3
	cpSetStopSize = 4
	cpSetControl  = 5
	cpServer      = 100 // a server's answer is the client's command + 100
)

// telnetConn is a telnet connection to a console server. Read and the
// capture's poller hand over only the console's bytes: the stream is
// filtered in place right after each read(2), and the server's
// negotiations are answered from there.
type telnetConn struct {
	*net.TCPConn
	comPort bool

	wmu sync.Mutex // writes: the answers and the caller's bytes

	// The filter's state, the reading side's alone.
	state   int
	cmd     byte
	sub     []byte
	pending []byte // console bytes read while negotiating
	// What we said of each option, so that an answer is sent once.
	will, do map[byte]bool
	refused  map[[2]byte]bool
	// answers are the COM-PORT settings the server confirmed.
	answers map[byte][]byte
}

// States of the filter.
const (
	stData = iota
	stIAC
	stOption
	stSub
	stSubIAC
)

// Read returns the console's bytes.
func (t *telnetConn) Read(p []byte) (int, error) {
	if len(t.pending) > 0 {
		n := copy(p, t.pending)
		t.pending = t.pending[n:]
		return n, nil
	}
	for {
		n, err := t.TCPConn.Read(p)
		n = t.filter(p[:n])
		if n > 0 || err != nil {
			return n, err
		}
	}
}

// Write sends p to the console, with telnet's escape for 0xFF.
func (t *telnetConn) Write(p []byte) (int, error) {
	esc := make([]byte, 0, len(p))
	for _, b := range p {
		if b == tnIAC {
			esc = append(esc, tnIAC)
		}
		esc = append(esc, b)
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if _, err := t.TCPConn.Write(esc); err != nil {
		return 0, err
	}
	return len(p), nil
}

// filterRead is what the capture's poller calls after each read(2) of
// the connection: it keeps the console's bytes at the front of p and
// returns how many.
func (t *telnetConn) filterRead(p []byte) int { return t.filter(p) }

// takePending hands over console bytes read before the capture began.
func (t *telnetConn) takePending(p []byte) int {
	n := copy(p, t.pending)
	t.pending = t.pending[n:]
	return n
}

// filter takes telnet's commands out of p in place and returns the number
// of console bytes left at its front.
func (t *telnetConn) filter(p []byte) int {
	out := 0
	for _, b := range p {
		switch t.state {
		case stData:
			if b == tnIAC {
				t.state = stIAC
				continue
			}
			p[out] = b
			out++
		case stIAC:
			switch {
			case b == tnIAC: // an escaped 0xFF: a console byte
				p[out] = b
				out++
				t.state = stData
			case b >= tnWILL && b <= tnDONT:
				t.cmd, t.state = b, stOption
			case b == tnSB:
				t.sub, t.state = t.sub[:0], stSub
			default: // NOP, GA, and the other commands without an option
				t.state = stData
			}
		case stOption:
			t.answer(t.cmd, b)
			t.state = stData
		case stSub:
			if b == tnIAC {
				t.state = stSubIAC
			} else if len(t.sub) < 64 {
				t.sub = append(t.sub, b)
			}
		case stSubIAC:
			switch b {
			case tnSE:
				t.subnegotiation(t.sub)
				t.state = stData
			case tnIAC:
				if len(t.sub) < 64 {
					t.sub = append(t.sub, tnIAC)
				}
				t.state = stSub
			default:
				t.state = stSub
			}
		}
	}
	return out
}

// answer replies to the server's WILL, WONT, DO or DONT for opt, once per
// change: binary, suppress-go-ahead and (over RFC 2217) COM-PORT are
// agreed to, echo is let be, and everything else refused.
func (t *telnetConn) answer(cmd, opt byte) {
	if t.will == nil {
		t.will, t.do, t.refused = map[byte]bool{}, map[byte]bool{}, map[[2]byte]bool{}
	}
	ours := opt == optBinary || opt == optSGA || (opt == optComPort && t.comPort)
	agree := func(on map[byte]bool, yes, no byte, ok bool) byte {
		if ok {
			if on[opt] {
				return 0
			}
			on[opt] = true
			return yes
		}
		if t.refused[[2]byte{yes, opt}] {
			return 0
		}
		t.refused[[2]byte{yes, opt}] = true
		return no
	}
	var reply byte
	switch cmd {
	case tnDO:
		reply = agree(t.will, tnWILL, tnWONT, ours)
	case tnWILL:
		reply = agree(t.do, tnDO, tnDONT, ours || opt == optEcho)
	case tnDONT:
		if t.will[opt] {
			t.will[opt], reply = false, tnWONT
		}
	case tnWONT:
		if t.do[opt] {
			t.do[opt], reply = false, tnDONT
		}
	}
	if reply != 0 {
		t.send([]byte{tnIAC, reply, opt})
	}
}

// subnegotiation keeps the server's COM-PORT answers.
func (t *telnetConn) subnegotiation(sub []byte) {
	if len(sub) < 2 || sub[0] != optComPort || sub[1] < cpServer {
		return
	}
	if t.answers == nil {
		t.answers = map[byte][]byte{}
	}
	t.answers[sub[1]-cpServer] = append([]byte(nil), sub[2:]...)
}

// send writes telnet commands; a failure shows at the next read.
func (t *telnetConn) send(b []byte) {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	_, _ = t.TCPConn.Write(b)
}

// negotiate agrees on the COM-PORT option and sets the line: baud, 8
// data bits, no parity, one stop bit, flow control. It reads until the
// server has confirmed every setting; console bytes read meanwhile are
// kept for the first reads.
func (t *telnetConn) negotiate(baud int, rtscts bool) error {
	t.will, t.do = map[byte]bool{optBinary: true, optSGA: true, optComPort: true}, map[byte]bool{optBinary: true, optSGA: true}
	t.refused = map[[2]byte]bool{}
	t.send([]byte{tnIAC, tnWILL, optComPort, tnIAC, tnWILL, optBinary, tnIAC, tnDO, optBinary, tnIAC, tnWILL, optSGA, tnIAC, tnDO, optSGA})
	control := byte(1) // no flow control
	if rtscts {
		control = 3
	}
	var b4 [4]byte
	binary.BigEndian.PutUint32(b4[:], uint32(baud))
	want := map[byte][]byte{cpSetBaud: b4[:], cpSetDataSize: {8}, cpSetParity: {1}, cpSetStopSize: {1}, cpSetControl: {control}}
	for _, c := range []byte{cpSetBaud, cpSetDataSize, cpSetParity, cpSetStopSize, cpSetControl} {
		msg := []byte{tnIAC, tnSB, optComPort, c}
		for _, v := range want[c] {
			if v == tnIAC {
				msg = append(msg, tnIAC)
			}
			msg = append(msg, v)
		}
		t.send(append(msg, tnIAC, tnSE))
	}
	deadline := time.Now().Add(netTimeout)
	if err := t.TCPConn.SetReadDeadline(deadline); err != nil {
		return err
	}
	defer t.TCPConn.SetReadDeadline(time.Time{})
	buf := make([]byte, 4096)
	for len(t.answers) < len(want) {
		if !t.will[optComPort] {
			return errors.New("the server refuses RFC 2217's COM-PORT option: connect with telnet:// (or tcp:// to a raw port)")
		}
		n, err := t.TCPConn.Read(buf)
		t.pending = append(t.pending, buf[:t.filter(buf[:n])]...)
		if isTimeout(err) {
			return fmt.Errorf("the server confirmed %d of the line's %d settings within %s: is it an RFC 2217 server (ser2net's telnet(rfc2217))?", len(t.answers), len(want), netTimeout)
		}
		if err != nil {
			return fmt.Errorf("negotiating the line's settings: %w", err)
		}
	}
	if got := t.answers[cpSetBaud]; len(got) == 4 && binary.BigEndian.Uint32(got) != uint32(baud) {
		return fmt.Errorf("the server set the line to %d baud, not %d", binary.BigEndian.Uint32(got), baud)
	}
	return nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
