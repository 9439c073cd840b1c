package kernel

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// moduleSuffixes are the module file names depmod knows. Debian 12 ships
// plain .ko files; the compressed ones are read through the xz/zstd/gzip
// commands because fsbench adds no Go dependency for them.
var moduleSuffixes = []string{".ko", ".ko.xz", ".ko.zst", ".ko.gz"}

// normName maps a module or file name to the kernel's canonical module name:
// the kernel treats '-' and '_' in module names as the same character.
func normName(s string) string { return strings.ReplaceAll(s, "-", "_") }

// ModuleClosure returns the module files (relative to ModulesDir) that must be
// loaded, in this order, before the named modules can be used: every module
// comes after the modules it depends on, and the order depends only on the
// kernel and the names. Named modules that are built into the kernel are
// skipped; a name that is neither a module nor built in is an error.
//
// Dependencies are the `depends=` entries of each module's .modinfo section,
// which is what depmod itself reads; modules.dep is not used because the
// Debian package does not contain it. Soft dependencies (`softdep=`, e.g.
// ext4 -> crc32c) are not followed, as depmod does not put them in
// modules.dep either; callers that need them must name them.
func (k *Kernel) ModuleClosure(names ...string) ([]string, error) {
	mods, err := k.modules()
	if err != nil {
		return nil, err
	}
	var (
		order []string
		state = map[string]int{} // 1: visiting, 2: done
		visit func(name string, chain []string) error
	)
	visit = func(name string, chain []string) error {
		switch state[name] {
		case 1:
			return fmt.Errorf("kernel: module dependency cycle: %s -> %s", strings.Join(chain, " -> "), name)
		case 2:
			return nil
		}
		rel, ok := mods[name]
		switch {
		case !ok && len(chain) == 0:
			return fmt.Errorf("kernel %s has no %s driver: it is neither built in nor a module in %s",
				k.Release, name, k.ModulesDir)
		case !ok:
			return fmt.Errorf("kernel %s: module %s (needed by %s) not found in %s",
				k.Release, name, strings.Join(chain, " -> "), k.ModulesDir)
		}
		state[name] = 1
		deps, err := moduleDepends(filepath.Join(k.ModulesDir, rel))
		if err != nil {
			return err
		}
		// Sorted so that the order never depends on how modpost listed them.
		slices.Sort(deps)
		for _, d := range deps {
			if err := visit(d, append(chain, name)); err != nil {
				return err
			}
		}
		state[name] = 2
		order = append(order, rel)
		return nil
	}
	builtin, err := k.builtinModules()
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		n = normName(strings.TrimSuffix(n, ".ko"))
		if _, ok := mods[n]; !ok && builtin[n] {
			continue
		}
		if err := visit(n, nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// modules indexes ModulesDir once: module name -> file path.
func (k *Kernel) modules() (map[string]string, error) {
	k.modOnce.Do(func() {
		k.mods = map[string]string{}
		k.modErr = filepath.WalkDir(k.ModulesDir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			base := d.Name()
			for _, suf := range moduleSuffixes {
				if !strings.HasSuffix(base, suf) {
					continue
				}
				name := normName(strings.TrimSuffix(base, suf))
				rel, _ := filepath.Rel(k.ModulesDir, path)
				if prev, dup := k.mods[name]; dup {
					return fmt.Errorf("kernel: module %s exists twice: %s and %s", name, prev, rel)
				}
				k.mods[name] = rel
				break
			}
			return nil
		})
	})
	return k.mods, k.modErr
}

// builtinModules reads modules.builtin, the list of would-be modules that
// were configured =y, so that asking for e.g. "ext4" on a kernel with
// CONFIG_EXT4_FS=y is not an error.
func (k *Kernel) builtinModules() (map[string]bool, error) {
	b, err := os.ReadFile(filepath.Join(k.ModulesDir, "modules.builtin"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	m := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		m[normName(strings.TrimSuffix(filepath.Base(sc.Text()), ".ko"))] = true
	}
	return m, nil
}

// moduleDepends returns the `depends=` list from the .modinfo ELF section of
// the module file at path.
func moduleDepends(path string) ([]string, error) {
	data, err := readModule(path)
	if err != nil {
		return nil, err
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("kernel: %s: %w", path, err)
	}
	sec := f.Section(".modinfo")
	if sec == nil {
		return nil, fmt.Errorf("kernel: %s: no .modinfo section", path)
	}
	info, err := sec.Data()
	if err != nil {
		return nil, fmt.Errorf("kernel: %s: .modinfo: %w", path, err)
	}
	var deps []string
	for _, kv := range bytes.Split(info, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("depends=")); ok {
			for _, d := range strings.Split(string(v), ",") {
				if d = strings.TrimSpace(d); d != "" {
					deps = append(deps, normName(d))
				}
			}
		}
	}
	return deps, nil
}

// readModule returns the ELF bytes of a module, decompressing it with the
// matching command if it is compressed.
func readModule(path string) ([]byte, error) {
	var tool string
	switch {
	case strings.HasSuffix(path, ".ko.xz"):
		tool = "xz"
	case strings.HasSuffix(path, ".ko.zst"):
		tool = "zstd"
	case strings.HasSuffix(path, ".ko.gz"):
		tool = "gzip"
	default:
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("kernel: %w", err)
		}
		return b, nil
	}
	b, err := run(context.Background(), "", tool, "-dc", path)
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	return b, nil
}
