package bootinit

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Cmdline holds the kernel command line parameters that concern the root
// filesystem, with the kernel's defaults filled in.
type Cmdline struct {
	Root     Root     // root=; Kind is RootNone when absent
	FSTypes  []string // rootfstype=, comma-separated; empty: try all the kernel knows
	Flags    string   // rootflags=, handed to mount(2) as its data argument
	ReadOnly bool     // true unless rw comes after the last ro, as in the kernel
	Init     string   // init=, the program to exec in the new root
	RootWait bool     // rootwait or rootwait=N was given
	// Wait is how long to look for the root device before giving up.
	// The kernel's rootwait waits forever; here it waits RootWaitLimit, or
	// N seconds for rootwait=N (the syntax of Linux 6.5), so that a
	// mistyped PARTUUID powers the machine off instead of hanging it.
	// Without rootwait the kernel tries once after its drivers finished
	// probing; here drivers are modules whose probes (mmc card detection)
	// may still run after finit_module returns, so the device is given
	// NoWaitLimit to appear.
	Wait time.Duration
	// Delay is rootdelay=: a pause before the root device is looked for,
	// as in the kernel.
	Delay time.Duration
}

// DefaultInit is the program started in the new root without init=.
const DefaultInit = "/sbin/init"

// The bounds of Cmdline.Wait; see there.
const (
	RootWaitLimit = 30 * time.Second
	NoWaitLimit   = 5 * time.Second
)

// ParseCmdline reads a kernel command line the way the kernel splits it:
// parameters are separated by blanks, double quotes group blanks into a
// value and are removed, and "--" ends the kernel's parameters (what
// follows belongs to init). Parameters other than the root ones are
// ignored. A later occurrence of a parameter overrides an earlier one.
func ParseCmdline(s string) (Cmdline, error) {
	c := Cmdline{ReadOnly: true, Init: DefaultInit, Wait: NoWaitLimit}
	for _, arg := range splitCmdline(s) {
		if arg == "--" {
			break
		}
		key, val, hasVal := strings.Cut(arg, "=")
		if err := c.set(key, val, hasVal); err != nil {
			return Cmdline{}, err
		}
	}
	return c, nil
}

func (c *Cmdline) set(key, val string, hasVal bool) error {
	var err error
	switch key {
	case "root":
		c.Root, err = ParseRoot(val)
	case "rootfstype":
		c.FSTypes = nil
		for _, t := range strings.Split(val, ",") {
			if t != "" {
				c.FSTypes = append(c.FSTypes, t)
			}
		}
	case "rootflags":
		c.Flags = val
	case "ro":
		c.ReadOnly = true
	case "rw":
		c.ReadOnly = false
	case "init":
		if !strings.HasPrefix(val, "/") {
			return fmt.Errorf("init=%q: want an absolute path", val)
		}
		c.Init = val
	case "rootwait":
		c.RootWait, c.Wait = true, RootWaitLimit
		if hasVal {
			c.Wait, err = seconds(key, val)
		}
	case "rootdelay":
		c.Delay, err = seconds(key, val)
	}
	return err
}

func seconds(key, val string) (time.Duration, error) {
	n, err := strconv.Atoi(val)
	if err != nil || n <= 0 || n > 3600 {
		return 0, fmt.Errorf("%s=%q: want a number of seconds from 1 to 3600", key, val)
	}
	return time.Duration(n) * time.Second, nil
}

// splitCmdline splits at blanks outside double quotes and drops the
// quotes, like the kernel's next_arg.
func splitCmdline(s string) []string {
	var (
		out     []string
		cur     strings.Builder
		inQuote bool
		inArg   bool
	)
	for _, r := range s {
		switch {
		case r == '"':
			inQuote, inArg = !inQuote, true
		case !inQuote && (r == ' ' || r == '\t' || r == '\n'):
			if inArg {
				out = append(out, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if inArg {
		out = append(out, cur.String())
	}
	return out
}
