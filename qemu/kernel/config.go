package kernel

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// Builtin reports how the kernel was configured with option, e.g.
// "CONFIG_EXT4_FS" (the "CONFIG_" prefix may be left out): y if built in, m
// if built as a module, neither if unset. A
// filesystem or disk driver that is m must go into the initramfs.
func (k *Kernel) Builtin(option string) (y, m bool, err error) {
	cfg, err := k.config()
	if err != nil {
		return false, false, err
	}
	if !strings.HasPrefix(option, "CONFIG_") {
		option = "CONFIG_" + option
	}
	switch cfg[option] {
	case "y":
		return true, false, nil
	case "m":
		return false, true, nil
	}
	return false, false, nil
}

func (k *Kernel) config() (map[string]string, error) {
	k.cfgOnce.Do(func() {
		k.cfg, k.cfgErr = readConfig(k.Config)
	})
	return k.cfg, k.cfgErr
}

// readConfig parses a kernel .config: "CONFIG_X=value" lines; "# CONFIG_X is
// not set" and other comments leave X absent.
func readConfig(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cfg := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			cfg[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}
