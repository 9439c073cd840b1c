package fio

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"
)

// ioBuffers are the I/O buffers of one job clone: one block per I/O that can
// be in flight. They are mapped memory, outside the Go heap: page-aligned
// as O_DIRECT needs, never moved or scanned by the garbage collector, and
// safe to hand to the kernel for asynchronous I/O.
type ioBuffers struct {
	mem []byte
	bs  int
}

func newIOBuffers(count int, bs int64) (*ioBuffers, error) {
	size := int64(count) * bs
	if bs <= 0 || size/bs != int64(count) || size != int64(int(size)) {
		return nil, fmt.Errorf("%d buffers of %d bytes do not fit in memory", count, bs)
	}
	mem, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("allocating %d buffers of %d bytes: %w", count, bs, err)
	}
	return &ioBuffers{mem: mem, bs: int(bs)}, nil
}

func (b *ioBuffers) block(i int) []byte { return b.mem[i*b.bs : (i+1)*b.bs : (i+1)*b.bs] }

func (b *ioBuffers) free() {
	if b != nil && b.mem != nil {
		unix.Munmap(b.mem)
		b.mem = nil
	}
}

// fillRandom fills buf with xorshift64 output from state and returns the
// new state. fio writes random data (its default buffer contents), which
// storage that compresses or deduplicates cannot shrink.
func fillRandom(buf []byte, state uint64) uint64 {
	s := state | 1
	for i := 0; i+8 <= len(buf); i += 8 {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		binary.LittleEndian.PutUint64(buf[i:], s)
	}
	return s
}

// scramble stamps every 512-byte sector of a write buffer with its offset
// and the time, as fio's default scramble_buffers does, so that no two
// writes carry the same data; it costs the same few stores per sector.
func scramble(buf []byte, offset int64, now int64) {
	line := int((uint64(now)^uint64(offset))&7) << 6
	for s := 0; s+512 <= len(buf); s += 512 {
		binary.LittleEndian.PutUint64(buf[s+line:], uint64(offset)+uint64(s))
		binary.LittleEndian.PutUint64(buf[s+48:], uint64(now/1e9))
		binary.LittleEndian.PutUint64(buf[s+56:], uint64(now%1e9))
	}
}
