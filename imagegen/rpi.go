package imagegen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsbench/fsbench/imagegen/stage"
	"github.com/fsbench/fsbench/internal/cmdline"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/wire/arch"
)

// maxConfigTxt bounds the board's own config.txt, which fsbench reads to
// extend it.
const maxConfigTxt = 1 << 20

// rpiFiles are the Raspberry Pi firmware's files for a variant:
// cmdline.txt with the variant's bootargs, and config.txt, the board's own
// (from the boot partition's contents) followed by the spec's lines and
// those that load the kernel, initramfs and device tree fsbench put
// beside it. The firmware reads both from the top of the first FAT
// partition; in config.txt a later setting wins, and [all] ends any
// conditional section the board's lines left open.
func (b *builder) rpiFiles(ctx context.Context, v plan.Variant, line, kernelName string, hasInitrd bool, dtb string) ([]bootFile, error) {
	bt := v.Board.Boot
	var own []byte
	if c := bootContents(v); c != nil {
		var err error
		if own, err = b.contentsFile(ctx, c, "config.txt"); err != nil {
			return nil, fmt.Errorf("the boot partition's config.txt: %w", err)
		}
	}
	conf, err := rpiConfig(own, v.Name, v.Board.Arch, bt.ConfigTxt, kernelName, hasInitrd, dtb)
	if err != nil {
		return nil, err
	}
	return []bootFile{{name: "cmdline.txt", data: []byte(line + "\n")}, {name: "config.txt", data: []byte(conf)}}, nil
}

// rpiConfig writes config.txt. Lines of the board's own that would move
// where the firmware reads the kernel or the command line from
// (os_prefix, cmdline=) are refused: fsbench's settings must be the ones
// the firmware follows.
func rpiConfig(own []byte, variant string, a arch.Arch, lines []string, kernelName string, hasInitrd bool, dtb string) (string, error) {
	var b strings.Builder
	if len(own) > 0 {
		for i, l := range strings.Split(string(own), "\n") {
			key, _, _ := strings.Cut(strings.TrimSpace(l), "=")
			switch strings.ToLower(strings.TrimSpace(key)) {
			case "os_prefix", "cmdline":
				return "", fmt.Errorf("config.txt:%d: %s moves where the firmware reads the kernel or cmdline.txt from, which fsbench writes: remove it from the partition's contents", i+1, key)
			}
		}
		b.Write(own)
		if !bytes.HasSuffix(own, []byte("\n")) {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[all]\n# fsbench variant %s\n", variant)
	for _, l := range lines {
		if err := cmdline.RPiConfigLine(l); err != nil {
			return "", fmt.Errorf("config_txt line %q: %v", l, err)
		}
		b.WriteString(l + "\n")
	}
	if a == arch.ARM64 {
		b.WriteString("arm_64bit=1\n")
	}
	fmt.Fprintf(&b, "kernel=%s\n", kernelName)
	if hasInitrd {
		fmt.Fprintf(&b, "initramfs %s followkernel\n", initramfsName)
	}
	if dtb != "" {
		fmt.Fprintf(&b, "device_tree=%s\n", dtb)
	}
	b.WriteString("cmdline=cmdline.txt\n")
	return b.String(), nil
}

// bootContents are the contents of the partition that takes the boot
// files, or nil.
func bootContents(v plan.Variant) *plan.Contents {
	bt := v.Board.Boot
	for _, img := range v.Images {
		if img.Name != bt.Image {
			continue
		}
		for _, p := range img.Partitions {
			if p.Name == bt.Partition && p.Filesystem != nil {
				return p.Filesystem.Contents
			}
		}
	}
	return nil
}

// contentsFile reads the regular file name (relative to the partition's
// top) from contents c's tarball or directory: nil when it has none. The
// spec refuses a files entry of the names the boot block writes, as one
// would be placed over them.
func (b *builder) contentsFile(ctx context.Context, c *plan.Contents, name string) ([]byte, error) {
	switch {
	case c.Tar != "":
		data, _, err := stage.TarballFile(ctx, b.input(c.Tar), name, maxConfigTxt)
		return data, err
	case c.Dir != "":
		data, err := readRegular(filepath.Join(b.input(c.Dir), name))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return data, err
	}
	return nil, nil
}

// readRegular reads a regular file of at most maxConfigTxt bytes; a
// symbolic link is not followed out of the contents.
func readRegular(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > maxConfigTxt {
		return nil, fmt.Errorf("%s is %d bytes, over %d", path, fi.Size(), maxConfigTxt)
	}
	return os.ReadFile(path)
}
