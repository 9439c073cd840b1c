package main

import (
	"testing"
	"time"
)

// Lines go out back to back at the byte rate in FIFO-sized writes; a line
// whose kernel time lies ahead waits for it and starts a new write.
func TestSchedule(t *testing.T) {
	l := testLog(t, "[    0.000000] 0123456789abcdefghij\n[    0.000000] x\n[    1.000000] late\n")
	baud := 115200
	chunks := schedule(l, baud, 16, 1)
	perByte := time.Duration(10 * float64(time.Second) / float64(baud))
	if chunks[1].at != 16*perByte || chunks[1].off != 16 {
		t.Errorf("second write %+v, want 16 bytes in at %v", chunks[1], 16*perByte)
	}
	idx := lineChunks(l, chunks)
	late := chunks[idx[2]]
	if late.at != time.Second || late.off != l.lines[2].off {
		t.Errorf("late line written %+v, want at 1s from its first byte", late)
	}
	if back := schedule(l, 115200, 16, 0); back[len(back)-1].at >= time.Second {
		t.Errorf("scale 0 still pauses: last write at %v", back[len(back)-1].at)
	}
}
