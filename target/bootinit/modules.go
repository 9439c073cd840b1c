package bootinit

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// loadModules loads every module in the list at path, in order. A module
// that is already loaded (or built in) is fine. One that finds nothing to
// drive (ENODEV, e.g. crc32c_intel on a CPU without SSE4.2) is reported
// in skipped, since a later mount tells whether it mattered; any other
// failure stops the boot. A missing list means no modules.
func loadModules(path string) (loaded int, skipped []string, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		mod := strings.TrimSpace(sc.Text())
		if mod == "" || strings.HasPrefix(mod, "#") {
			continue
		}
		switch err := loadModule(mod); {
		case err == nil, errors.Is(err, unix.EEXIST):
			loaded++
		case errors.Is(err, unix.ENODEV):
			skipped = append(skipped, mod)
		default:
			return loaded, skipped, fmt.Errorf("loading module %s (listed in %s): %w", mod, path, err)
		}
	}
	if err := sc.Err(); err != nil {
		return loaded, skipped, fmt.Errorf("reading %s: %w", path, err)
	}
	return loaded, skipped, nil
}

func loadModule(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.FinitModule(int(f.Fd()), "", 0)
}
