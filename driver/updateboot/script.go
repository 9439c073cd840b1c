package updateboot

import (
	"fmt"
	"strings"
)

// Where the boot script keeps things in the guest's memory (1 GiB): the
// environment's copies as read, each rearranged as `env import -c`
// reads a copy (its CRC, then its data, the flags byte left out), and
// the slot with one image to compare it with. The kernel loads at
// U-Boot's kernel_addr_r (16 MiB).
const (
	memCopy   = 0x8000000 // + k*memStride: copy k as read, from its first block
	memImport = 0x8400000 // + k*memStride: copy k for `env import -c`
	memStride = 0x200000
	memSlot   = 0x10000000
	memImage  = 0x18000000
)

// envScript reads the environment's copies (raw, or the files of the
// boot disk's partition 4), picks the current one by U-Boot's rule and
// imports RAUC's variables from it (or from the default environment).
func envScript(w func(string, ...any), lay *layout, starts []int64) {
	w("setenv fsb_copy -1")
	copies := 1
	if lay.redundant {
		copies = 2
	}
	envAt := starts[3] + lay.envOff
	var srcs [2]uint64 // where each copy lies as read
	for k := range copies {
		read := uint64(memCopy + k*memStride)
		w("setenv fsb_ok%d 0", k)
		in := ""
		if len(lay.envFiles) > 0 {
			// U-Boot's env_fat_load: the file from the environment's
			// filesystem (partition 4), its first env_size bytes.
			srcs[k] = read
			w("if load virtio 0:4 %x %s; then", read, lay.envFiles[k])
			in = "  "
		} else {
			off := envAt + int64(k)*lay.envLen
			skew := off % 512
			w("virtio read %x %x %x", read, off/512, (skew+lay.envLen+511)/512)
			srcs[k] = read + uint64(skew)
		}
		src, imp := srcs[k], uint64(memImport+k*memStride)
		if lay.redundant {
			// CRC, flags, data: the CRC and the data side by side.
			w(in+"cp.b %x %x 4", src, imp)
			w(in+"cp.b %x %x %x", src+5, imp+4, lay.envLen-5)
			w(in+"if env import -c %x %x fsb_none; then setenv fsb_ok%d 1; fi", imp, lay.envLen-1, k)
		} else {
			w(in+"if env import -c %x %x fsb_none; then setenv fsb_ok%d 1; fi", src, lay.envLen, k)
		}
		if in != "" {
			w("fi")
		}
	}
	vars := "BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT"
	if lay.redundant {
		f0, f1 := srcs[0]+4, srcs[1]+4
		w("if test ${fsb_ok0} = 1 && test ${fsb_ok1} = 1; then")
		w("  if itest.b *%x == ff && itest.b *%x == 0; then setenv fsb_copy 1", f0, f1)
		w("  elif itest.b *%x == ff && itest.b *%x == 0; then setenv fsb_copy 0", f1, f0)
		w("  elif itest.b *%x > *%x; then setenv fsb_copy 1", f1, f0)
		w("  else setenv fsb_copy 0; fi")
		w("elif test ${fsb_ok0} = 1; then setenv fsb_copy 0")
		w("elif test ${fsb_ok1} = 1; then setenv fsb_copy 1; fi")
		w("if test ${fsb_copy} = 0; then env import -c %x %x %s", memImport, lay.envLen-1, vars)
		w("elif test ${fsb_copy} = 1; then env import -c %x %x %s", memImport+memStride, lay.envLen-1, vars)
	} else {
		w("if test ${fsb_ok0} = 1; then setenv fsb_copy 0; env import -c %x %x %s", srcs[0], lay.envLen, vars)
	}
	w("else load virtio 0:1 %x /default.env; env import -c %x %x %s; fi", memImport, memImport, lay.envLen, vars)
}

// bootCmd is the boot script, all numbers hexadecimal as U-Boot reads
// them. Debian's U-Boot for QEMU keeps no environment of its own
// ("Loading Environment from nowhere") and has no setexpr, so the script
// reads the board's copies from the environment's partition, lets U-Boot
// check each CRC (`env import -c`), takes the current copy by U-Boot's
// rule for redundant copies (env_import_redund: the valid one; of two,
// the higher flags, 0 after 255), imports RAUC's variables from it (or
// from the default environment when no copy is valid), runs RAUC's boot
// logic from its documentation, and compares the slot it picked with
// both images before it starts the kernel with what it decided on the
// command line. The attempts are the slot's before the boot spends one.
// A slot holding neither image fails its boots: with a bootloader that
// decrements, its attempts are spent (in memory: this U-Boot has no
// environment to save to) and the logic picks again, as the board would
// after as many resets; with one that never does, the board boots it
// forever, and the script says so.
func bootCmd(lay *layout, starts []int64) (string, error) {
	if lay.envLen > memStride-512 || lay.imgSize > memImage-memSlot {
		return "", fmt.Errorf("an environment of %d bytes and images of %d do not fit the boot script's memory", lay.envLen, lay.imgSize)
	}
	var s strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&s, format+"\n", a...) }
	w("# fsbench: boots one crash state of an A/B update")
	envScript(w, lay, starts)
	w("echo fsbench-boot: environment copy ${fsb_copy}")
	// RAUC's U-Boot boot logic.
	w(`test -n "${BOOT_ORDER}" || setenv BOOT_ORDER "A B"`)
	w(`test -n "${BOOT_A_LEFT}" || setenv BOOT_A_LEFT 3`)
	w(`test -n "${BOOT_B_LEFT}" || setenv BOOT_B_LEFT 3`)
	// Up to three picks: a slot holding neither image fails its boots
	// and, with a bootloader that spends an attempt at each boot, has
	// none left when the board comes back, so the logic picks again.
	n := (lay.imgSize + 511) / 512
	w("setenv fsb_failed")
	w("setenv fsb_image none")
	w("for fsb_try in 1 2 3; do")
	w("  if test ${fsb_image} != old && test ${fsb_image} != new; then")
	w("    setenv fsb_slot")
	w(`    for BOOT_SLOT in "${BOOT_ORDER}"; do`)
	w(`      if test "x${fsb_slot}" != "x"; then setenv fsb_skip ${BOOT_SLOT}`)
	w(`      elif test "x${BOOT_SLOT}" = "xA"; then`)
	w(`        if test ${BOOT_A_LEFT} -gt 0; then setenv fsb_slot A; setenv fsb_left ${BOOT_A_LEFT}; fi`)
	w(`      elif test "x${BOOT_SLOT}" = "xB"; then`)
	w(`        if test ${BOOT_B_LEFT} -gt 0; then setenv fsb_slot B; setenv fsb_left ${BOOT_B_LEFT}; fi`)
	w("      fi")
	w("    done")
	w(`    if test "x${fsb_slot}" = "x"; then echo fsbench-boot: no slot has attempts left; reset; fi`)
	w("    if test ${fsb_slot} = A; then virtio read %x %x %x; else virtio read %x %x %x; fi", memSlot, starts[1]/512, n, memSlot, starts[2]/512, n)
	w("    setenv fsb_image neither")
	w("    load virtio 0:1 %x /old.img", memImage)
	w("    if cmp.b %x %x %x; then setenv fsb_image old; else", memSlot, memImage, lay.imgSize)
	w("      load virtio 0:1 %x /new.img", memImage)
	w("      if cmp.b %x %x %x; then setenv fsb_image new; fi", memSlot, memImage, lay.imgSize)
	w("    fi")
	w("    if test ${fsb_image} = neither; then")
	w("      echo fsbench-boot: slot ${fsb_slot} (${fsb_left} attempts left) holds neither image")
	if lay.decrements {
		w("      setenv fsb_failed ${fsb_failed}${fsb_slot}")
		w("      if test ${fsb_slot} = A; then setenv BOOT_A_LEFT 0; else setenv BOOT_B_LEFT 0; fi")
	} else {
		w("      echo fsbench-boot: boot loop: the bootloader never spends an attempt")
		w("      reset")
	}
	w("    fi")
	w("  fi")
	w("done")
	w("load virtio 0:1 ${kernel_addr_r} /bzImage")
	w(`setenv bootargs "console=ttyS0 panic=-1 fsbench.copy=${fsb_copy} fsbench.slot=${fsb_slot} fsbench.image=${fsb_image} fsbench.left=${fsb_left} fsbench.failed=${fsb_failed}"`)
	w("zboot ${kernel_addr_r}")
	w("echo fsbench-boot: zboot returned")
	w("reset")
	return s.String(), nil
}
