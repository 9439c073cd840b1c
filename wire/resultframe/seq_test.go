package resultframe

import (
	"strings"
	"testing"
)

func codes(ps []*Problem) string {
	var s []string
	for _, p := range ps {
		s = append(s, string(p.Code))
	}
	return strings.Join(s, ",")
}

func TestSequence(t *testing.T) {
	res := func(seq uint64, st Status) string {
		return join(mustEncode(t, Result{RunID: "run", Seq: seq, Status: st}))
	}
	d := NewDecoder()
	d.Seen("run", 1)
	in := res(1, StatusOK) + // already in the store: duplicate
		res(2, StatusOK) +
		res(2, StatusOK) + // re-sent after a reboot: duplicate
		res(2, StatusFailed) + // same seq, other content: conflict
		res(5, StatusOK) // 3 and 4 lost: gap, but 5 is kept
	got, problems, _ := split(decodeAll(d, in))
	if len(got) != 2 || got[0].Seq != 2 || got[1].Seq != 5 {
		t.Fatalf("results %v", got)
	}
	if c := codes(problems); c != "duplicate,duplicate,conflict,gap" {
		t.Fatalf("problems %s: %v", c, problems)
	}
	if !strings.Contains(problems[3].Message, "seq 3..4 missing") {
		t.Fatalf("gap message %q", problems[3].Message)
	}
}

func TestNewerVersionsRejectedClearly(t *testing.T) {
	payload := []byte(`{"v":1,"run":"r","seq":1,"status":"ok"}`)
	lines, err := frameLines(payload, FrameVersion+1)
	if err != nil {
		t.Fatal(err)
	}
	_, problems, _ := split(decodeAll(NewDecoder(), join(lines)))
	if len(problems) != 1 || problems[0].Code != CodeVersion || !strings.Contains(problems[0].Message, "upgrade fsbench") {
		t.Fatalf("frame version: %v", problems)
	}
	lines, _ = frameLines([]byte(`{"v":2,"run":"r","seq":1,"status":"ok","new_field":3}`), FrameVersion)
	_, problems, _ = split(decodeAll(NewDecoder(), join(lines)))
	if len(problems) != 1 || problems[0].Code != CodeVersion || !strings.Contains(problems[0].Message, "upgrade fsbench") {
		t.Fatalf("schema version: %v", problems)
	}
}

// Intact frames whose payload is not a valid result are refused.
func TestInvalidPayloads(t *testing.T) {
	for _, p := range []string{
		`{"v":1,"run":"r","seq":1,"status":"ok","extra":1}`,
		`{"v":1,"run":"r","seq":0,"status":"ok"}`,
		`{"run":"r","seq":1,"status":"ok"}`,
		`{"v":1,"run":"r","seq":1,"status":"great"}`,
		`{"v":1,"run":"r","seq":1,"status":"ok"} {}`,
		`{"v":1,"run":"r","seq":1,"status":"ok","metrics":[{"name":"a","value":1e999}]}`,
		`not json`,
	} {
		lines, _ := frameLines([]byte(p), FrameVersion)
		got, problems, _ := split(decodeAll(NewDecoder(), join(lines)))
		if len(got) != 0 || len(problems) != 1 || problems[0].Code != CodeInvalid {
			t.Errorf("%s: results %v problems %v", p, got, problems)
		}
	}
}
