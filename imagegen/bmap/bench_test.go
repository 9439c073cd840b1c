package bmap

import (
	"io"
	"testing"
)

// BenchmarkWrite maps a 1 GiB sparse image holding 64 MiB of data in 64
// runs of 1 MiB, 16 MiB apart: the time is hashing the data plus two
// seeks per run, not reading the holes. Bytes/s is over the data only.
func BenchmarkWrite(b *testing.B) {
	const gib = 1 << 30
	img := image{name: "bench", size: gib}
	chunk := pattern(mib, 7)
	for off := int64(0); off < gib; off += 16 * mib {
		img.writes = append(img.writes, write{off, chunk})
	}
	path := create(b, b.TempDir(), img)
	b.SetBytes(64 * mib)
	b.ResetTimer()
	for b.Loop() {
		st, err := Write(io.Discard, path)
		if err != nil {
			b.Fatal(err)
		}
		if st.MappedBlocks != 64*mib/BlockSize {
			b.Fatalf("mapped %d blocks, want %d", st.MappedBlocks, 64*mib/BlockSize)
		}
	}
}
