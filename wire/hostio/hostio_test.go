package hostio

import (
	"errors"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	c := Counters{Drive: "disk0", WriteBytes: 1 << 40, WriteOps: 7, FlushOps: 3, UnmapBytes: 4096, UnmapOps: 1}
	line := Reply(42, c)
	if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
		t.Fatalf("reply %q is not one line", line)
	}
	seq, got, err := ParseReply(strings.TrimSuffix(line, "\n"))
	if err != nil || seq != 42 || got != c {
		t.Fatalf("ParseReply(%q) = %d %+v %v", line, seq, got, err)
	}
	if seq, err := ParseRequest(strings.TrimSpace(Request(9))); err != nil || seq != 9 {
		t.Fatalf("ParseRequest: %d %v", seq, err)
	}
}

func TestErrorReplyIsOneLine(t *testing.T) {
	line := ErrorReply(5, errors.New("qmp: gone\nsecond line"))
	if strings.Count(line, "\n") != 1 {
		t.Fatalf("%q", line)
	}
	seq, _, err := ParseReply(strings.TrimSuffix(line, "\n"))
	if seq != 5 || err == nil || !strings.Contains(err.Error(), "second line") {
		t.Fatalf("%d %v", seq, err)
	}
}

func TestBadRepliesAreRefused(t *testing.T) {
	for _, line := range []string{
		"",
		"counters",
		"counters x drive=a",
		"counters 1 drive=disk0 wr_bytes=1 wr_ops=1 flush_ops=1 unmap_bytes=1",              // a field missing
		"counters 1 drive=disk0 wr_bytes=-1 wr_ops=1 flush_ops=1 unmap_bytes=1 unmap_ops=1", // negative
		"counters 1 drive=disk0 wr_bytes=1 wr_bytes=2 wr_ops=1 flush_ops=1 unmap_bytes=1 unmap_ops=1",
		"counters 1 drive=disk0 wr_bytes=1 wr_ops=1 flush_ops=1 unmap_bytes=1 unmap_ops=1 extra=1",
		"hello 1",
	} {
		if _, _, err := ParseReply(line); err == nil {
			t.Errorf("ParseReply(%q) accepted it", line)
		}
	}
}
