// Package devmapper drives device-mapper through its ioctls on
// /dev/mapper/control (include/uapi/linux/dm-ioctl.h), so that a board
// needs no dmsetup: it creates devices from tables (linear, flakey,
// log-writes, snapshot), sends them messages, reads their status and
// removes them. Every request is one struct dm_ioctl followed by its
// payload; the kernel answers in the same buffer.
//
// It runs on the target only and links nothing but the standard
// library, golang.org/x/sys and the target's own packages.
package devmapper

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

	"github.com/fsbench/fsbench/target/linux"
	"golang.org/x/sys/unix"
)

const (
	dmControl     = "/dev/mapper/control"
	dmHeaderSize  = 312 // sizeof(struct dm_ioctl)
	dmSpecSize    = 40  // sizeof(struct dm_target_spec)
	dmNameLen     = 128
	dmBufferSize  = 16 << 10
	dmSuspendFlag = 1 << 1

	dmDevCreate   = 3
	dmDevRemove   = 4
	dmDevSuspend  = 6
	dmTableLoad   = 9
	dmTableStatus = 12
	dmTargetMsg   = 14
)

// dmRequest is _IOWR(0xfd, nr, struct dm_ioctl).
func dmRequest(nr uintptr) uintptr {
	return 3<<30 | dmHeaderSize<<16 | 0xfd<<8 | nr
}

// Target is one line of a device-mapper table.
type Target struct {
	Start, Length uint64 // sectors
	Kind, Params  string
}

// dmIoctl sends one request for the device name, with targets (for a
// table load), and returns the answer's header.
func dmIoctl(nr uintptr, name string, flags uint32, targets []Target) ([]byte, error) {
	var payload []byte
	for i, t := range targets {
		if len(t.Kind) >= 16 {
			return nil, fmt.Errorf("target type %q is too long", t.Kind)
		}
		n := (dmSpecSize + len(t.Params) + 1 + 7) &^ 7
		spec := make([]byte, n)
		ne := binary.NativeEndian
		ne.PutUint64(spec[0:], t.Start)
		ne.PutUint64(spec[8:], t.Length)
		copy(spec[24:40], t.Kind)
		copy(spec[dmSpecSize:], t.Params)
		if i < len(targets)-1 {
			ne.PutUint32(spec[20:], uint32(n))
		}
		payload = append(payload, spec...)
	}
	buf, err := dmCall(nr, name, flags, len(targets), payload)
	if err != nil {
		return nil, err
	}
	return buf[:dmHeaderSize], nil
}

// dmCall sends one request with its payload after the header and returns
// the whole answer.
func dmCall(nr uintptr, name string, flags uint32, targets int, payload []byte) ([]byte, error) {
	if len(name) >= dmNameLen {
		return nil, fmt.Errorf("device-mapper name %q is too long", name)
	}
	if dmHeaderSize+len(payload) > dmBufferSize {
		return nil, errors.New("device-mapper request too long")
	}
	buf := make([]byte, dmBufferSize)
	ne := binary.NativeEndian
	ne.PutUint32(buf[0:], 4) // interface version 4.0.0
	ne.PutUint32(buf[12:], uint32(len(buf)))
	ne.PutUint32(buf[16:], dmHeaderSize)
	ne.PutUint32(buf[20:], uint32(targets))
	ne.PutUint32(buf[28:], flags)
	copy(buf[48:48+dmNameLen], name)
	copy(buf[dmHeaderSize:], payload)
	fd, err := unix.Open(dmControl, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening %s (is dm_mod loaded?): %w", dmControl, err)
	}
	defer unix.Close(fd)
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), dmRequest(nr), uintptr(unsafe.Pointer(&buf[0]))); errno != 0 {
		return nil, errno
	}
	return buf, nil
}

// Message sends a message to the device's target (struct
// dm_target_msg: the sector, 0 for the first target, then the text).
func Message(name, msg string) error {
	payload := make([]byte, 8+len(msg)+1)
	copy(payload[8:], msg)
	if _, err := dmCall(dmTargetMsg, name, 0, 0, payload); err != nil {
		return fmt.Errorf("message %q to %s: %w", msg, name, err)
	}
	return nil
}

// Status is the status line of the device's first target (its INFO
// status: log-writes gives "<entries> <sector>[ logging_disabled]", a
// snapshot "<used>/<total> <metadata>", "Invalid" or "Overflow").
func Status(name string) (string, error) {
	buf, err := dmCall(dmTableStatus, name, 0, 0, nil)
	if err != nil {
		return "", fmt.Errorf("status of %s: %w", name, err)
	}
	ne := binary.NativeEndian
	start, count := ne.Uint32(buf[16:]), ne.Uint32(buf[20:])
	if count == 0 || int(start)+dmSpecSize > len(buf) {
		return "", fmt.Errorf("status of %s: no target", name)
	}
	text := buf[int(start)+dmSpecSize:]
	if i := bytes.IndexByte(text, 0); i >= 0 {
		text = text[:i]
	}
	return string(text), nil
}

// Device is a device-mapper device the runner created.
type Device struct {
	Name  string
	Node  string // the block device node the runner made for it
	KName string // the kernel's name for it, dm-N, as in its messages
}

// Create creates the device name with one table and activates it. It
// makes its own device node under dir, since boards without udev get none
// in /dev/mapper.
func Create(name, dir string, targets []Target) (*Device, error) {
	hdr, err := dmIoctl(dmDevCreate, name, 0, nil)
	if err != nil {
		return nil, fmt.Errorf("creating device-mapper device %s: %w", name, err)
	}
	d := &Device{Name: name}
	if _, err := dmIoctl(dmTableLoad, name, 0, targets); err != nil {
		d.Remove()
		return nil, fmt.Errorf("loading the table of %s (is the target's module loaded?): %w", name, err)
	}
	if _, err := dmIoctl(dmDevSuspend, name, 0, nil); err != nil { // no suspend flag: resume
		d.Remove()
		return nil, fmt.Errorf("activating %s: %w", name, err)
	}
	dev := binary.NativeEndian.Uint64(hdr[40:])
	d.KName = fmt.Sprintf("dm-%d", unix.Minor(dev))
	d.Node = filepath.Join(dir, name)
	os.Remove(d.Node)
	if err := unix.Mknod(d.Node, unix.S_IFBLK|0o600, int(dev)); err != nil {
		d.Remove()
		return nil, fmt.Errorf("device node for %s: %w", name, err)
	}
	return d, nil
}

// Remove removes the device, retrying while it is still busy (an unmount
// lets go of it asynchronously).
func (d *Device) Remove() error {
	if d.Node != "" {
		os.Remove(d.Node)
	}
	// The device is busy for a moment after most unmounts: wait a little
	// at first (crash_states removes one per state), up to about 5 s.
	var err error
	for i, waited := 1, time.Duration(0); waited < 5*time.Second; i++ {
		if _, err = dmIoctl(dmDevRemove, d.Name, 0, nil); err == nil || errors.Is(err, unix.ENXIO) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) {
			break
		}
		pause := min(time.Duration(i)*5*time.Millisecond, 100*time.Millisecond)
		time.Sleep(pause)
		waited += pause
	}
	return fmt.Errorf("removing device-mapper device %s: %w", d.Name, err)
}

// FlakeyTable is the dm-flakey table over dev: healthy for up seconds,
// faulty for down, with the features of the case.
func FlakeyTable(dev string, sectors uint64, up, down int, features []string) (Target, error) {
	num, err := linux.DevNumber(dev)
	if err != nil {
		return Target{}, err
	}
	params := fmt.Sprintf("%s 0 %d %d", num, up, down)
	if len(features) > 0 {
		params += fmt.Sprintf(" %d %s", len(features), strings.Join(features, " "))
	}
	return Target{Start: 0, Length: sectors, Kind: "flakey", Params: params}, nil
}
