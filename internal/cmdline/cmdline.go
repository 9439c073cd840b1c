// Package cmdline says which spec values may become a word of a kernel
// command line, a mount option or an fstab field, and writes them with the
// quoting each consumer reads: the kernel's own parser, extlinux.conf,
// U-Boot's hush (boot.cmd puts the command line in double quotes),
// the Raspberry Pi firmware's one-line cmdline.txt and fstab(5); and
// which lines a spec may add to the firmware's config.txt.
//
// A word that could split into two arguments, end a line, close a quote or
// start an expansion in any of them is refused, so that no spec value can
// add an argument, a line or a command to a generated file. The spec's
// checks call it at the attribute, with the reason; the writers call it
// again and never write what it refuses.
package cmdline

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// forbidden are the printable characters a bootloader or the kernel reads
// as syntax: a quote the kernel's parser pairs, hush's escape, command
// substitution and expansion, and a comment.
const forbidden = "\"\\`$#"

// Word reports why s cannot be one word of a kernel command line, or nil:
// it must be 1 to 4096 printable ASCII characters, none of them a space
// or one of " \ ` $ #.
func Word(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("it is empty")
	case len(s) > 4096:
		return fmt.Errorf("it is %d bytes long; a kernel command line holds 4096 at most", len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			return fmt.Errorf("it holds a space, which would split it into two arguments")
		case c == '\n' || c == '\r':
			return fmt.Errorf("it holds a line break, which would end the boot file's line")
		case c < 0x20 || c == 0x7f:
			return fmt.Errorf("it holds the control character %q", string(c))
		case c >= 0x80:
			return fmt.Errorf("it holds a byte outside printable ASCII (%q)", s)
		case strings.IndexByte(forbidden, c) >= 0:
			return fmt.Errorf("it holds %q, which a bootloader or the kernel reads as syntax (quotes, escapes, $ expansions and # comments are refused)", string(c))
		}
	}
	return nil
}

// MountOption reports why s cannot be one mount option, written into
// rootflags= and fstab: a Word without a comma, which separates options.
func MountOption(s string) error {
	if err := Word(s); err != nil {
		return err
	}
	if strings.Contains(s, ",") {
		return fmt.Errorf("it holds a comma, which separates mount options")
	}
	return nil
}

// Path reports why s cannot be a path in fstab or on the target: a line
// break or another control character. Spaces are allowed; FstabField
// escapes them.
func Path(s string) error {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("it holds the control character %q", string(r))
		}
	}
	return nil
}

// FstabField escapes a field of fstab(5) the way getmntent(3) unescapes
// it: space, tab, newline and backslash as octal escapes.
func FstabField(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\\':
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Line joins words into a command line, or fails on the first word that
// is not one: the writers of bootargs.txt, extlinux.conf, boot.cmd and
// cmdline.txt never write a line whose words would not read back as they
// are.
func Line(words []string) (string, error) {
	for i, w := range words {
		if err := Word(w); err != nil {
			return "", fmt.Errorf("kernel argument %d (%q): %v", i+1, w, err)
		}
	}
	return strings.Join(words, " "), nil
}

// Split reads a command line the way the kernel does (next_arg in
// lib/cmdline.c): words separated by whitespace, a double-quoted stretch
// kept in one word with its quotes removed.
func Split(line string) []string {
	var out []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '"':
			quoted, inWord = !quoted, true
		case (c == ' ' || c == '\t' || c == '\n') && !quoted:
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// rpiReserved are the config.txt settings fsbench writes itself, or that
// would move where the Raspberry Pi firmware reads the kernel, the device
// tree or the command line from.
var rpiReserved = []string{
	"kernel", "kernel_address", "initramfs", "ramfsfile", "ramfsaddr", "initrd_address",
	"device_tree", "device_tree_address", "cmdline", "os_prefix", "arm_64bit", "include",
}

// RPiConfigLine reports why s cannot be one line of a Raspberry Pi
// config.txt that fsbench writes, or nil: a line must not hold a control
// character (which could end it and start another), must not open a
// conditional section ("[pi4]": the lines after it would apply to some
// boards only), and must not set what fsbench sets (kernel=, initramfs,
// cmdline=, ...).
func RPiConfigLine(s string) error {
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return fmt.Errorf("control character %q: one list element is one line", r)
		}
	}
	t := strings.TrimSpace(s)
	if t == "" || strings.HasPrefix(t, "#") {
		return nil
	}
	if strings.HasPrefix(t, "[") {
		return errors.New("a conditional section would hold the lines after it: give each line unconditionally")
	}
	key, _, _ := strings.Cut(strings.ReplaceAll(t, "\t", " "), " ")
	key, _, _ = strings.Cut(key, "=")
	if key == "" {
		return errors.New("a line starts with a setting's name")
	}
	if slices.Contains(rpiReserved, strings.ToLower(key)) {
		return fmt.Errorf("%s is set by fsbench from the boot block (kernel, initramfs, dtb) and the bootargs", key)
	}
	return nil
}
