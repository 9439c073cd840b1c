package imagegen

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/fsbench/fsbench/internal/atomicfile"
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
	out, err := atomicfile.Create(image+"."+format, 0o644)
	if err != nil {
		return err
	}
	defer out.Abort()
	buf := bufio.NewWriterSize(out, 1<<20)
	if err := encode(buf, src, format); err != nil {
		return fmt.Errorf("%s: %w", out.Name(), err)
	}
	if err := buf.Flush(); err != nil {
		return err
	}
	return out.Commit()
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
