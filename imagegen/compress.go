package imagegen

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// Compressions are the formats -compress accepts.
var Compressions = []string{"zst", "xz"}

// compressImage writes IMAGE.zst or IMAGE.xz beside the image, atomically.
// The encoders run single-threaded: a multi-threaded encoder may split
// its input differently from run to run, and the compressed file must be
// as reproducible as the image.
func compressImage(image, format string) error {
	src, err := os.Open(image)
	if err != nil {
		return err
	}
	defer src.Close()
	final := image + "." + format
	tmp, err := os.CreateTemp(filepath.Dir(image), "."+filepath.Base(final)+".partial-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	buf := bufio.NewWriterSize(tmp, 1<<20)
	if err := encode(buf, src, format); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", final, err)
	}
	if err := buf.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), final)
}

func encode(w io.Writer, r io.Reader, format string) error {
	var enc io.WriteCloser
	var err error
	switch format {
	case "zst":
		enc, err = zstd.NewWriter(w, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
	case "xz":
		enc, err = xz.WriterConfig{}.NewWriter(w)
	default:
		return fmt.Errorf("unknown compression %q (known: zst, xz)", format)
	}
	if err != nil {
		return err
	}
	if _, err := io.Copy(enc, r); err != nil {
		enc.Close()
		return err
	}
	return enc.Close()
}
