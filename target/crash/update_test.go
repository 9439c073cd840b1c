package crash

import "testing"

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
