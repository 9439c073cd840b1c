package bootinit

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/target/populate"
	"github.com/fsbench/fsbench/wire/bootabi"
)

// helperOptions returns the fsbench.populate* options of the kernel
// command line: present, the boot is a helper boot of fsbench build, which
// fills a new filesystem instead of booting a root filesystem.
func helperOptions(cmdline string) map[string]string {
	var out map[string]string
	for _, arg := range splitCmdline(cmdline) {
		if arg == "--" {
			break
		}
		k, v, _ := strings.Cut(arg, "=")
		if k == bootabi.PopulateSource || strings.HasPrefix(k, bootabi.PopulateSource+".") {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// runHelper does the helper boot's job and powers off; it returns only
// on failure.
func runHelper(l *logger, opts map[string]string) error {
	l.printf(levelNotice, "helper boot: populating %s from %s", opts[bootabi.PopulateTarget], opts[bootabi.PopulateSource])
	if err := populate.Helper(opts, os.Stdout); err != nil {
		return err
	}
	unix.Sync()
	if err := unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF); err != nil {
		return fmt.Errorf("the filesystem is populated, but power off failed: %w", err)
	}
	return errors.New("power off returned")
}
