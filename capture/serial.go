//go:build linux

package capture

import (
	"fmt"
	"os"
	"sort"

	"golang.org/x/sys/unix"
)

// Config is the line setting of a serial port. The frame is always 8N1:
// boot consoles use nothing else, and a wrong parity setting would make the
// UART drop or alter bytes.
type Config struct {
	Baud   int  // bits per second; 0 means 115200
	RTSCTS bool // hardware flow control (CRTSCTS)
}

// DefaultBaud is the rate used when Config.Baud is 0.
const DefaultBaud = 115200

// bauds maps the standard rates to their termios constants. Arbitrary rates
// (BOTHER/termios2) are left out on purpose: boards use standard ones.
var bauds = map[int]uint32{
	9600: unix.B9600, 19200: unix.B19200, 38400: unix.B38400,
	57600: unix.B57600, 115200: unix.B115200, 230400: unix.B230400,
	460800: unix.B460800, 500000: unix.B500000, 576000: unix.B576000,
	921600: unix.B921600, 1000000: unix.B1000000, 1152000: unix.B1152000,
	1500000: unix.B1500000, 2000000: unix.B2000000, 2500000: unix.B2500000,
	3000000: unix.B3000000, 3500000: unix.B3500000, 4000000: unix.B4000000,
}

// Bauds lists the supported rates in increasing order.
func Bauds() []int {
	r := make([]int, 0, len(bauds))
	for b := range bauds {
		r = append(r, b)
	}
	sort.Ints(r)
	return r
}

// OpenSerial opens a serial device or a pty slave (QEMU's "-serial pty"
// prints /dev/pts/N), configures it with [Configure] and returns it as an
// *os.File in the runtime's poller, which a Reader reads without holding a
// thread while it waits (see NewReader). Its Read, Write and Close behave
// as for any file.
func OpenSerial(path string, cfg Config) (*os.File, error) {
	// O_NONBLOCK also for open() itself: without it, opening a
	// modem-control port waits for carrier (DCD).
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := Configure(fd, cfg); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("capture: %s: %w", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// Configure sets fd to raw 8N1 at cfg.Baud (the cfmakeraw equivalent plus
// CLOCAL, CREAD, VMIN=1, VTIME=0) and checks that the kernel applied it,
// since TCSETS succeeds when only part of the request was honoured.
func Configure(fd int, cfg Config) error {
	baud := cfg.Baud
	if baud == 0 {
		baud = DefaultBaud
	}
	speed, ok := bauds[baud]
	if !ok {
		return fmt.Errorf("unsupported baud rate %d (supported: %v)", baud, Bauds())
	}
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return fmt.Errorf("TCGETS: %w", err)
	}
	// cfmakeraw: no CR/NL translation (ICRNL would turn \r into \n), no
	// software flow control (IXON would swallow 0x11/0x13), no stripping of
	// bit 8 (ISTRIP would mangle UTF-8), no canonical mode (a prompt without
	// newline would never be returned), no echo, no signals, no output
	// processing.
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR |
		unix.IGNCR | unix.ICRNL | unix.IXON | unix.IXOFF | unix.IXANY | unix.INPCK
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB | unix.CSTOPB | unix.CBAUD | unix.CRTSCTS
	t.Cflag |= unix.CS8 | unix.CREAD | unix.CLOCAL | speed
	if cfg.RTSCTS {
		t.Cflag |= unix.CRTSCTS
	}
	t.Ispeed, t.Ospeed = speed, speed
	// VMIN=1, VTIME=0: read() blocks until at least one byte is there and
	// returns at once with whatever is buffered.
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, t); err != nil {
		return fmt.Errorf("TCSETS: %w", err)
	}
	got, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return fmt.Errorf("TCGETS: %w", err)
	}
	if got.Iflag != t.Iflag || got.Oflag != t.Oflag || got.Lflag != t.Lflag ||
		got.Cflag&(unix.CSIZE|unix.PARENB|unix.CSTOPB|unix.CBAUD|unix.CRTSCTS) != t.Cflag&(unix.CSIZE|unix.PARENB|unix.CSTOPB|unix.CBAUD|unix.CRTSCTS) ||
		got.Cc[unix.VMIN] != 1 || got.Cc[unix.VTIME] != 0 {
		return fmt.Errorf("termios not applied: want %+v, got %+v", *t, *got)
	}
	return nil
}

// OpenUnix connects to a QEMU unix-socket chardev
// ("-chardev socket,id=c,path=P,server=on,wait=off -serial chardev:c").
// Like OpenSerial, it returns a file in the runtime's poller.
func OpenUnix(path string) (*os.File, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("capture: socket: %w", err)
	}
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "connect", Path: path, Err: err}
	}
	// Non-blocking once connected: a connect(2) in that mode may fail
	// with EAGAIN while the listener's backlog is full.
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("capture: %s: %w", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}
