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

// compressImage compresses the image at src into final.zst or final.xz,
// returned under a temporary name for atomicfile.CommitAll. The encoders
// run single-threaded: a multi-threaded encoder may split its input
// differently from run to run, and the compressed file must be as
// reproducible as the image.
func compressImage(src, final, format string) (*atomicfile.File, error) {
	in, err := os.Open(src)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	out, err := atomicfile.Create(final+"."+format, 0o644)
	if err != nil {
		return nil, err
	}
	buf := bufio.NewWriterSize(out, 1<<20)
	err = encode(buf, in, format)
	if err != nil {
		err = fmt.Errorf("%s: %w", out.Name(), err)
	} else {
		err = buf.Flush()
	}
	if err != nil {
		out.Abort()
		return nil, err
	}
	return out, nil
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
