package qemu

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// WaitLine reads the console until a line holds one of markers and
// returns that line from the marker on. A helper boot, whose guest prints
// one verdict line, needs no more of a console than this; a boot to be
// timed goes through package capture instead. When the console ends first
// (QEMU exited, or was killed as its context ended), the error carries the
// console's last lines.
func (vm *VM) WaitLine(markers ...string) (string, error) {
	const keep = 15
	var last []string
	r := bufio.NewReader(vm.console)
	for {
		line, err := r.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		for _, m := range markers {
			if i := strings.Index(line, m); i >= 0 {
				return line[i:], nil
			}
		}
		if line != "" {
			last = append(last, line)
			if len(last) > keep {
				last = last[1:]
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the console ended")
			}
			return "", fmt.Errorf("%w before any of %q; it ended with:\n%s", err, markers, strings.Join(last, "\n"))
		}
	}
}
