package crash

import (
	"slices"
	"strings"
	"testing"
)

// TestBootSlot: RAUC's U-Boot script boots the first slot of BOOT_ORDER
// with attempts left; none left, or words it does not know, boot nothing;
// what is unset has the script's defaults.
func TestBootSlot(t *testing.T) {
	for _, c := range []struct {
		vars map[string]string
		want int
	}{
		{map[string]string{"BOOT_ORDER": "A B", "BOOT_A_LEFT": "3", "BOOT_B_LEFT": "3"}, 0},
		{map[string]string{"BOOT_ORDER": "B A", "BOOT_A_LEFT": "3", "BOOT_B_LEFT": "3"}, 1},
		{map[string]string{"BOOT_ORDER": "B A", "BOOT_A_LEFT": "3", "BOOT_B_LEFT": "0"}, 0},
		{map[string]string{"BOOT_ORDER": "B", "BOOT_A_LEFT": "3", "BOOT_B_LEFT": "0"}, -1},
		{map[string]string{"BOOT_ORDER": "A B", "BOOT_A_LEFT": "x", "BOOT_B_LEFT": "1"}, 1},
		{map[string]string{"BOOT_ORDER": "C", "BOOT_C_LEFT": "3"}, -1},
		{map[string]string{}, 0},
		{map[string]string{"BOOT_ORDER": "B", "BOOT_A_LEFT": "0"}, 1},
		{map[string]string{"BOOT_ORDER": "B A", "BOOT_A_LEFT": "0", "BOOT_B_LEFT": "0"}, -1},
	} {
		if got, _, why := bootSlot(c.vars); got != c.want {
			t.Errorf("%v: slot %d (%s), want %d", c.vars, got, why, c.want)
		}
	}
}

// TestUpdaterStepsFromMarks: the updater's lines become one-word marks
// outside the workload's prefix, and each count of entries knows the
// last line before it.
func TestUpdaterStepsFromMarks(t *testing.T) {
	m := updaterMark("  installing rootfs.img\tto B \x00 " + strings.Repeat("x", 300))
	if strings.ContainsAny(m, " \t\x00") || !strings.HasPrefix(m, UpdaterMark+"installing_rootfs.img_to_B") || len(m) > len(UpdaterMark)+200 || strings.HasPrefix(m, markPrefix) {
		t.Errorf("mark %q", m)
	}
	steps := updaterSteps([]string{"", updaterMark("writing slot"), markPrefix + "s:f:4096", "", updaterMark("done")})
	want := []string{"", "", "writing slot", "writing slot", "writing slot", "done"}
	if !slices.Equal(steps, want) {
		t.Errorf("steps %q, want %q", steps, want)
	}
}
