package resultframe

import (
	"strings"
	"testing"
)

// A kernel message printed while the runner's frame line is still going
// out lands inside the line (seen on QEMU's serial console: a btrfs mount
// message cut a chunk in two). The decoder joins the two parts again and
// passes the message through as text.
func TestKernelMessageInsideAFrameLine(t *testing.T) {
	want, lines := bigFrame(t, 3)
	const msg = "[   55.722679] BTRFS: device label bench devid 1 transid 19 /dev/vda2 scanned by fsbench-runner (230)\r\n"
	for i := range lines {
		for _, cut := range []int{len(startMarker) + 1, len(lines[i]) / 2, len(lines[i]) - 11} {
			m := append([]string(nil), lines...)
			m[i] = lines[i][:cut] + msg + lines[i][cut:]
			got, problems, text := split(decodeAll(NewDecoder(), join(m)))
			if len(got) != 1 || !equal(got[0], want) || len(problems) != 0 {
				t.Fatalf("chunk %d cut at %d: results %d, problems %v", i+1, cut, len(got), problems)
			}
			if !strings.Contains(text, strings.TrimSuffix(msg, "\r\n")) {
				t.Fatalf("chunk %d cut at %d: the kernel message is lost from the text %q", i+1, cut, text)
			}
		}
	}
}

// The rejoined line must still pass its checksum: a byte lost around the
// message is caught, never accepted.
func TestKernelMessageSpliceIsChecked(t *testing.T) {
	_, lines := bigFrame(t, 3)
	const msg = "[   55.722679] EXT4-fs (vda2): mounted filesystem\n"
	cut := len(lines[1]) / 2
	m := append([]string(nil), lines...)
	m[1] = lines[1][:cut] + msg + lines[1][cut+1:] // one byte gone
	got, problems, _ := split(decodeAll(NewDecoder(), join(m)))
	if len(got) != 0 || len(problems) == 0 {
		t.Fatalf("damaged splice: %d results, problems %v", len(got), problems)
	}
	// A cut line whose rest never comes is reported at the end.
	m = append([]string(nil), lines[:2]...)
	m[1] = lines[1][:cut] + msg
	got, problems, _ = split(decodeAll(NewDecoder(), join(m)))
	if len(got) != 0 || len(problems) == 0 {
		t.Fatalf("cut line without its rest: %d results, problems %v", len(got), problems)
	}
}
