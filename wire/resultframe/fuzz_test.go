package resultframe

import (
	"math/rand/v2"
	"testing"
)

// FuzzDecode: arbitrary console bytes never panic the decoder, and every
// result it accepts re-encodes to frames that decode to the same result.
func FuzzDecode(f *testing.F) {
	rng := rand.New(rand.NewPCG(8, 9))
	for seq := uint64(1); seq <= 4; seq++ {
		f.Add([]byte("boot\r\n" + join(mustEncode(f, sample(rng, seq, seq == 4))) + "# "))
	}
	f.Add([]byte("@@FSB1 00000000 1/1 1 A 00000000@@\n"))
	f.Add([]byte("x 0123abcd@@ @@FSB2@@\r\n@@FSB"))
	f.Fuzz(func(t *testing.T, in []byte) {
		d := NewDecoder()
		evs := append(d.Feed(in), d.Close()...)
		for _, e := range evs {
			if e.Result == nil {
				continue
			}
			lines, err := Encode(*e.Result)
			if err != nil {
				t.Fatalf("decoded result does not re-encode: %v\n%+v", err, *e.Result)
			}
			got, problems, _ := split(decodeAll(NewDecoder(), join(lines)))
			if len(got) != 1 || len(problems) != 0 || !equal(got[0], *e.Result) {
				t.Fatalf("re-encoded result decodes to %v %v, want %+v", got, problems, *e.Result)
			}
		}
	})
}

// FuzzMutateFrame applies a list of byte edits to valid frames (one with a
// single chunk, one with several) and asserts that the decoder either
// rejects the result or returns exactly the original. Each edit is four
// bytes: operation (flip, replace, delete, insert), position (two bytes)
// and value.
func FuzzMutateFrame(f *testing.F) {
	rng := rand.New(rand.NewPCG(10, 11))
	small := Result{RunID: "run", Seq: 7, Status: StatusOK, Metrics: []Metric{{Name: "bw", Value: 12.5, Unit: "MiB/s"}}, Attrs: map[string]string{"engine": "builtin"}}
	big := sample(rng, 8, true)
	frames := []struct {
		want  Result
		input string
	}{
		{normalize(small), join(mustEncode(f, small))},
		{normalize(big), join(mustEncode(f, big))},
	}
	f.Add(uint8(0), []byte{0, 0, 10, 1})
	f.Add(uint8(1), []byte{2, 1, 0, 0, 3, 0, 40, '\n'})
	f.Add(uint8(1), []byte{1, 0, 200, 'A', 3, 2, 5, '@'})
	f.Fuzz(func(t *testing.T, which uint8, edits []byte) {
		fr := frames[int(which)%len(frames)]
		b := []byte(fr.input)
		for len(edits) >= 4 && len(b) > 0 {
			op, pos, v := edits[0]%4, (int(edits[1])<<8|int(edits[2]))%len(b), edits[3]
			edits = edits[4:]
			switch op {
			case 0:
				b[pos] ^= v | 1 // always a change
			case 1:
				b[pos] = v
			case 2:
				b = append(b[:pos], b[pos+1:]...)
			case 3:
				b = append(b[:pos], append([]byte{v}, b[pos:]...)...)
			}
		}
		got, _, _ := split(decodeAll(NewDecoder(), string(b)))
		for _, r := range got {
			if !equal(r, fr.want) {
				t.Fatalf("accepted a wrong result from %q:\n got %+v\nwant %+v", b, r, fr.want)
			}
		}
		if len(got) > 1 {
			t.Fatalf("one frame accepted %d times", len(got))
		}
	})
}
