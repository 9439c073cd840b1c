package bootinit

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Kernel log levels of the messages bootinit writes.
const (
	levelErr    = 3
	levelWarn   = 4
	levelNotice = 5
	levelInfo   = 6
)

// msgPrefix starts every line bootinit writes, so that the host can tell
// them from the kernel's.
const msgPrefix = "fsbench-init: "

// logger writes bootinit's messages to /dev/kmsg, where they get the
// kernel's timestamps and reach the console through printk, and writes
// them to the console directly when printk would not show them (quiet,
// loglevel=) or /dev/kmsg cannot be written. Each message thus reaches the
// console exactly once.
type logger struct {
	kmsgPath    string
	consolePath string
	fallback    io.Writer // the console as inherited from the kernel (fd 2)
	// consoleLevel is the console_loglevel from /proc/sys/kernel/printk:
	// printk shows a message on the console when its level is below it.
	// 0 until /proc is mounted: show everything directly.
	consoleLevel int
}

func newLogger() *logger {
	return &logger{kmsgPath: "/dev/kmsg", consolePath: "/dev/console", fallback: os.Stderr}
}

// readConsoleLevel is called once /proc is mounted.
func (l *logger) readConsoleLevel(printkPath string) {
	b, err := os.ReadFile(printkPath)
	if err != nil {
		return
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		l.consoleLevel, _ = strconv.Atoi(f[0])
	}
}

func (l *logger) printf(level int, format string, args ...any) {
	line := msgPrefix + fmt.Sprintf(format, args...)
	line = strings.ReplaceAll(line, "\n", " ")
	// /dev/kmsg is reopened for every line: writes are rate-limited per
	// open file (10 lines per 5 s), and a dropped line may be the one that
	// says why the boot failed.
	kmsgOK := writeOnce(l.kmsgPath, fmt.Sprintf("<%d>%s\n", level, line)) == nil
	if kmsgOK && level < l.consoleLevel {
		return
	}
	if writeOnce(l.consolePath, line+"\r\n") != nil {
		fmt.Fprint(l.fallback, line+"\r\n")
	}
}

func writeOnce(path, s string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|unix.O_NOCTTY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
