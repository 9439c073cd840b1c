package linux

import "testing"

func TestParseKmsgLevelAndSeq(t *testing.T) {
	r, ok := ParseKmsg([]byte("11,842,5123456,-;EXT4-fs (vdb3): error loading journal\n"))
	if !ok || r.Level != 3 || r.Seq != 842 || r.Usec != 5123456 || r.Msg != "EXT4-fs (vdb3): error loading journal" {
		t.Fatalf("parsed %+v, %v", r, ok)
	}
}
