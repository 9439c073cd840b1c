package resultframe

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestRoundTripMany(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var input strings.Builder
	var want []Result
	var wantText strings.Builder
	multi := 0
	for seq := uint64(1); seq <= 400; seq++ {
		r := sample(rng, seq, seq%10 == 0)
		r.RunID = "run-a" // one run, so the sequence has no gaps
		lines := mustEncode(t, r)
		if len(lines) > 1 {
			multi++
		}
		for _, l := range lines {
			if len(l) > MaxLineLen {
				t.Fatalf("line of %d bytes > %d", len(l), MaxLineLen)
			}
			for i := 0; i < len(l); i++ {
				if l[i] < 0x20 || l[i] > 0x7e {
					t.Fatalf("non-printable byte %q in %q", l[i], l)
				}
			}
			// CR/LF endings and kernel lines between chunks.
			input.WriteString(l + "\r\n")
			k := "[  12.345678] mmcblk1: mmc1:0001 8GTF4R 7.28 GiB\r\n"
			input.WriteString(k)
			wantText.WriteString(k)
		}
		want = append(want, normalize(r))
	}
	if multi < 20 {
		t.Fatalf("only %d multi-chunk frames; the test should exercise chunking", multi)
	}
	got, problems, text := split(decodeAll(NewDecoder(), input.String()))
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	if len(got) != len(want) {
		t.Fatalf("decoded %d results, want %d", len(got), len(want))
	}
	for i := range want {
		if !equal(got[i], want[i]) {
			t.Fatalf("result %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if text != wantText.String() {
		t.Fatalf("pass-through text differs")
	}
}

// Feeding byte by byte must give the same events as feeding all at once:
// the serial reader hands over whatever the UART had.
func TestFeedInAnyPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var input strings.Builder
	for seq := uint64(1); seq <= 5; seq++ {
		input.WriteString("login: " + join(mustEncode(t, sample(rng, seq, seq == 3))))
	}
	input.WriteString("# ") // a prompt without newline, released by Close
	all := decodeAll(NewDecoder(), input.String())
	d := NewDecoder()
	var one []Event
	for i := 0; i < input.Len(); i++ {
		one = append(one, d.Feed([]byte{input.String()[i]})...)
	}
	one = append(one, d.Close()...)
	if len(one) != len(all) {
		t.Fatalf("%d events byte by byte, %d at once", len(one), len(all))
	}
	for i := range all {
		a, b := all[i], one[i]
		if a.Text != b.Text || (a.Result == nil) != (b.Result == nil) || a.Problem != nil || b.Problem != nil ||
			a.Result != nil && !equal(*a.Result, *b.Result) {
			t.Fatalf("event %d differs: %+v vs %+v", i, a, b)
		}
	}
	if last := all[len(all)-1]; last.Text != "# " {
		t.Fatalf("last event %+v, want the prompt", last)
	}
}

func TestNormalizedFields(t *testing.T) {
	r := Result{RunID: "r\xff", Seq: 1, Status: StatusOK, Metrics: []Metric{}, Attrs: map[string]string{}}
	got, problems, _ := split(decodeAll(NewDecoder(), join(mustEncode(t, r))))
	if len(problems) > 0 || len(got) != 1 {
		t.Fatalf("got %v %v", got, problems)
	}
	if got[0].RunID != "r\uFFFD" || got[0].Version != SchemaVersion || got[0].Metrics != nil || got[0].Attrs != nil {
		t.Fatalf("got %+v", got[0])
	}
}

func TestEncodeRejects(t *testing.T) {
	ok := Result{RunID: "r", Seq: 1, Status: StatusOK}
	cases := map[string]func(r *Result){
		"empty run":      func(r *Result) { r.RunID = "" },
		"seq 0":          func(r *Result) { r.Seq = 0 },
		"bad status":     func(r *Result) { r.Status = "fine" },
		"no status":      func(r *Result) { r.Status = "" },
		"newer version":  func(r *Result) { r.Version = SchemaVersion + 1 },
		"NaN":            func(r *Result) { r.Metrics = []Metric{{Name: "x", Value: math.NaN()}} },
		"Inf":            func(r *Result) { r.Metrics = []Metric{{Name: "x", Value: math.Inf(1)}} },
		"unnamed metric": func(r *Result) { r.Metrics = []Metric{{Value: 1}} },
		"dup metric":     func(r *Result) { r.Metrics = []Metric{{Name: "x"}, {Name: "x"}} },
		"negative iter":  func(r *Result) { r.Iteration = -1 },
		"too big":        func(r *Result) { r.Error = strings.Repeat("x", MaxPayload) },
	}
	if _, err := Encode(ok); err != nil {
		t.Fatal(err)
	}
	for name, mut := range cases {
		r := ok
		mut(&r)
		if _, err := Encode(r); err == nil {
			t.Errorf("%s: Encode accepted %+v", name, r)
		}
	}
}
