package kernel

import (
	"bytes"
	"compress/gzip"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsbench/fsbench/wire/arch"
)

// Uncompressed writes an uncompressed kernel into dir (once; later calls
// reuse it) and returns its path, for faster boots under TCG, where
// decompressing a 10 MB xz payload in emulated code costs seconds.
//
//   - x86_64: the vmlinux ELF extracted from the bzImage, the way the
//     kernel's scripts/extract-vmlinux does it: find a compression magic in
//     the image and decompress from there. QEMU (>= 4.0) boots such an ELF
//     with -kernel through its PVH entry point (the Xen PHYS32_ENTRY ELF
//     note, present when CONFIG_PVH=y), so the result is checked for that
//     note. Measured with QEMU 7.2 TCG on q35: 4.2 s to the no-root panic
//     instead of 10 s with the bzImage (see TestBootTime). microvm did not
//     reach the panic with console=ttyS0 and is not known to work yet.
//   - arm: the zImage as it is (see below).
//   - arm64: Debian 12's vmlinuz is already the raw Image (32 MB, the
//     "ARM\x64" magic at offset 0x38; CONFIG_EFI_ZBOOT is off), which is
//     returned as it is, without a copy. A gzip-compressed Image, as other
//     releases ship, is decompressed into dir.
func (k *Kernel) Uncompressed(ctx context.Context, dir string) (string, error) {
	if k.Arch == arch.ARM {
		// QEMU's arm -kernel boots a zImage and nothing else that Debian
		// ships; its decompressor runs in the guest.
		return k.Image, nil
	}
	out := filepath.Join(dir, "vmlinux-"+k.Release)
	if k.Arch == arch.ARM64 {
		out = filepath.Join(dir, "Image-"+k.Release)
		if isArm64Image(k.Image) {
			return k.Image, nil
		}
	}
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	img, err := os.ReadFile(k.Image)
	if err != nil {
		return "", fmt.Errorf("kernel: %w", err)
	}
	var raw []byte
	if k.Arch == arch.ARM64 {
		raw, err = gunzip(img)
		if err == nil && (len(raw) < 0x40 || !bytes.Equal(raw[0x38:0x3c], arm64Magic)) {
			err = errors.New("the decompressed file is not an arm64 Image")
		}
	} else {
		raw, err = extractVmlinux(ctx, img)
		if err == nil && !hasPVHNote(raw) {
			err = errors.New("vmlinux has no PVH entry note (CONFIG_PVH); QEMU cannot boot it with -kernel")
		}
	}
	if err != nil {
		return "", fmt.Errorf("kernel: uncompressing %s: %w", k.Image, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("kernel: %w", err)
	}
	// Temporary file + rename: a half-written kernel must never be found
	// by the Stat above.
	f, err := os.CreateTemp(dir, ".vmlinux-")
	if err != nil {
		return "", fmt.Errorf("kernel: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(raw); err != nil {
		f.Close()
		return "", fmt.Errorf("kernel: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("kernel: %w", err)
	}
	if err := os.Rename(f.Name(), out); err != nil {
		return "", fmt.Errorf("kernel: %w", err)
	}
	return out, nil
}

// payloadFormats are the compressions a bzImage payload can use, with their
// magic and the command that decompresses one stream from stdin, ignoring
// the data after it (the bzImage keeps the uncompressed size after the
// payload). Debian 12 amd64 uses xz (CONFIG_KERNEL_XZ=y), its cloud
// flavour lz4 in the legacy frame format.
var payloadFormats = []struct {
	name  string
	magic []byte
	cmd   []string
}{
	{"xz", []byte("\xfd7zXZ\x00"), []string{"xz", "-dc", "--single-stream"}},
	{"zstd", []byte("\x28\xb5\x2f\xfd"), []string{"zstd", "-dc"}},
	{"gzip", []byte("\x1f\x8b\x08"), nil}, // compress/gzip
	{"lz4", []byte("\x02\x21\x4c\x18"), []string{"lz4", "-dc"}},
}

// extractVmlinux tries each occurrence of each known magic, like
// extract-vmlinux, and accepts the first that decompresses to an ELF file.
func extractVmlinux(ctx context.Context, img []byte) ([]byte, error) {
	for _, pf := range payloadFormats {
		for off := 0; ; {
			i := bytes.Index(img[off:], pf.magic)
			if i < 0 {
				break
			}
			off += i
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			var raw []byte
			if pf.cmd == nil {
				raw, _ = gunzip(img[off:])
			} else {
				raw, _ = runStdin(ctx, img[off:], pf.cmd[0], pf.cmd[1:]...)
			}
			// A decompressor may complain about the trailing size field;
			// what counts is whether the output is a complete ELF file.
			if isELF(raw) {
				return raw, nil
			}
			off++
		}
	}
	var names []string
	for _, pf := range payloadFormats {
		names = append(names, pf.name)
	}
	return nil, fmt.Errorf("no compressed vmlinux found (tried %s)", strings.Join(names, ", "))
}

func isELF(b []byte) bool {
	if !bytes.HasPrefix(b, []byte(elf.ELFMAG)) {
		return false
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return false
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Off+p.Filesz > uint64(len(b)) {
			return false // truncated
		}
	}
	return true
}

// hasPVHNote reports whether the ELF has the XEN_ELFNOTE_PHYS32_ENTRY (18)
// note of owner "Xen", which is what QEMU's x86 loader looks for.
func hasPVHNote(b []byte) bool {
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return false
	}
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		data, err := io.ReadAll(p.Open())
		if err != nil {
			continue
		}
		for len(data) >= 12 {
			bo := f.ByteOrder
			namesz, descsz, typ := bo.Uint32(data), bo.Uint32(data[4:]), bo.Uint32(data[8:])
			name := data[12:]
			nameEnd := 12 + align4(namesz)
			end := nameEnd + align4(descsz)
			if uint64(len(data)) < end {
				break
			}
			if typ == 18 && bytes.Equal(bytes.TrimRight(name[:namesz], "\x00"), []byte("Xen")) {
				return true
			}
			data = data[end:]
		}
	}
	return false
}

// arm64Magic is the magic of the arm64 Image header at offset 0x38
// (Documentation/arch/arm64/booting.rst).
var arm64Magic = []byte("ARM\x64")

func isArm64Image(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 4)
	_, err = f.ReadAt(b, 0x38)
	return err == nil && bytes.Equal(b, arm64Magic)
}

func align4(n uint32) uint64 { return (uint64(n) + 3) &^ 3 }

func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	zr.Multistream(false) // the payload is followed by other data
	return io.ReadAll(zr)
}

// runStdin is run with data on standard input.
func runStdin(ctx context.Context, data []byte, name string, args ...string) ([]byte, error) {
	return runWith(ctx, bytes.NewReader(data), name, args...)
}
