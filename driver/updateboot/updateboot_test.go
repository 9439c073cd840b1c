package updateboot

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/qemu"
	"github.com/fsbench/fsbench/qemu/kernel/kerneltest"
	"github.com/fsbench/fsbench/wire/arch"
	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/logwrites/logwritestest"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
	"github.com/fsbench/fsbench/wire/ubootenv"
)

// The medium of the test's update, in sectors: the data partition,
// slot A, slot B, the environment's two copies of 16 KiB.
const (
	secData = 2048
	secSlot = 256
	secEnv  = 64
	imgSecs = 128 // a 64 KiB image
)

// updateLog is an update as the runner records it: the old image into
// slot A and the factory environment (both copies), a flush, the
// filesystem mark; the new image into slot B in two halves, a flush;
// copy 1 switched to slot B (FUA); then copy 0 rewritten by a broken
// updater with slot B alone and no attempts (FUA).
func updateLog(t *testing.T) (log []byte, old, new []byte) {
	b := &logwritestest.Builder{SectorSize: 512}
	old, new = bytes.Repeat([]byte("old image "), imgSecs*512/10+1)[:imgSecs*512], bytes.Repeat([]byte("NEW IMAGE "), imgSecs*512/10+1)[:imgSecs*512]
	env := func(flags byte, set map[string]string) []byte {
		vars := runplan.UpdateFactoryEnv()
		for k, v := range set {
			vars[k] = v
		}
		c, err := ubootenv.Encode(vars, 0x4000, true, flags)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	slotA, slotB, envAt := uint64(secData), uint64(secData+secSlot), uint64(secData+2*secSlot)
	b.Entry(slotA, imgSecs, 0, "", old)                                                // 0
	b.Entry(envAt, secEnv, 0, "", append(env(1, nil), env(0, nil)...))                 // 1
	b.Flush()                                                                          // 2
	b.Mark(logwrites.FSMark)                                                           // 3
	b.Entry(slotB, imgSecs/2, 0, "", new[:imgSecs*256])                                // 4
	b.Entry(slotB+imgSecs/2, imgSecs/2, 0, "", new[imgSecs*256:])                      // 5
	b.Flush()                                                                          // 6
	flip := env(2, map[string]string{"BOOT_ORDER": "B A", "BOOT_B_LEFT": "3"})         //
	b.Entry(envAt+secEnv/2, secEnv/2, logwrites.FlagFUA|logwrites.FlagFlush, "", flip) // 7
	broken := env(3, map[string]string{"BOOT_ORDER": "B", "BOOT_B_LEFT": "0"})         //
	b.Entry(envAt, secEnv/2, logwrites.FlagFUA|logwrites.FlagFlush, "", broken)        // 8
	b.Mark(logwrites.EndMark)                                                          // 9
	return b.Bytes(), old, new
}

// TestBootsLandWhereJudged boots states of a recorded update through
// Debian's U-Boot for QEMU and a Debian kernel: the old slot before the
// switch, the new one after it, the old one again when the switched copy
// is torn, U-Boot's default environment when both copies are torn, no
// boot when the switched-to slot is half written or no slot has
// attempts left, and the old slot once the boots of a switched-to slot
// that is half written have spent its attempts; with a bootloader that
// never spends one, that state is a boot loop. A judgement that says
// otherwise is named.
func TestBootsLandWhereJudged(t *testing.T) {
	testenv.Tools(t, "qemu-system-x86_64", "mkimage", "mkfs.ext4", "sfdisk")
	fw, err := qemu.UBootFirmware(arch.X86_64)
	testenv.Needf(t, err, "U-Boot for QEMU")
	k := kerneltest.Get(t, arch.X86_64)
	dir := t.TempDir()
	logBytes, _, _ := updateLog(t)
	disk, plan := updateDisk(t, dir, logBytes)
	judged := map[string]string{
		"4":                "OldSlot,0,A,3",   // after the filesystem mark: slot A, copy 0
		"5":                "OldSlot,0,A,3",   // slot B half written, not yet switched to
		"8":                "NewSlot,1,B,3",   // copy 1 switched to the whole new image
		"8+9~8:512:32:1":   "NewSlot,1,B,3",   // copy 0's rewrite torn: copy 1 still rules
		"7+8~7:512:32:1":   "OldSlot,0,A,3",   // the switch torn after its first sector: copy 0 rules
		"5+8-5":            "Fallback,1,A,3",  // switched before slot B's second half was durable: B's boots fail
		"1+2~1:512:64:101": "Fallback,-1,A,3", // both copies torn: U-Boot's default environment
		"9":                "Bricked,0,-,0",   // copy 0 leaves no slot with attempts
		"6":                "NewSlot,0,A,3",   // a wrong judgement: slot A holds the old image
		"7":                "OldSlot,0,A,3",   // state 6 and a flush: the same bytes, booted once
	}
	var words []string
	for s, j := range judged {
		words = append(words, s+"="+j)
	}
	digest := logDigest(t, logBytes)
	step := runplan.Step{Recipe: "update", Test: "ab", Case: "c", On: "data", Params: runplan.Params{
		"image_size": int64(imgSecs * 512), "env_offset": int64(0), "env_size": int64(0x4000), "env_redundant": true, "snapshot_size": int64(1 << 20), "max_boots": int64(0),
		"bootloader_decrements": true, "env_file": "",
		"slot_a": "slot_a", "slot_b": "slot_b", "env": "uboot_env", "log": "updlog"}}
	res := resultframe.Result{Recipe: "update", Name: "ab", Case: "c", Attrs: map[string]string{
		runplan.UpdateLogDigest: digest, runplan.UpdateBootStates: strings.Join(words, " ")}}
	log := logrus.New()
	log.Out = testWriter{t}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	o, err := Check(ctx, Case{Disk: disk, Plan: plan, Step: step, Result: res, Kernel: k.Image, Firmware: fw, Work: dir, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d judged, %d boots, %d agree; %v", o.Judged, o.Boots, o.Agree, o.Disagree)
	if o.Judged != len(judged) || o.Agree != len(judged)-1 || len(o.Disagree) != 1 || !strings.HasPrefix(o.Disagree[0], "state 6: judged NewSlot") {
		t.Errorf("%d of %d states landed as judged; disagreements %q, want only state 6's", o.Agree, o.Judged, o.Disagree)
	}
	// States 6 and 7 hold the same slots and environment: one boot.
	if o.Boots != len(judged)-1 {
		t.Errorf("%d boots for %d states of %d distinct inputs", o.Boots, len(judged), len(judged)-1)
	}

	// A bootloader that never spends an attempt boots the half-written
	// slot forever; a whole one as before.
	step.Params["bootloader_decrements"] = false
	res.Attrs[runplan.UpdateBootStates] = "5+8-5=Bricked,1,B,3 8=NewSlot,1,B,3"
	o, err = Check(ctx, Case{Disk: disk, Plan: plan, Step: step, Result: res, Kernel: k.Image, Firmware: fw, Work: dir, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	if o.Agree != 2 {
		t.Errorf("never decrementing: %d of 2 states landed as judged: %q", o.Agree, o.Disagree)
	}
	step.Params["bootloader_decrements"] = true

	// Another campaign's log on the disk is refused, never booted.
	res.Attrs[runplan.UpdateLogDigest] = strings.Repeat("0", len(digest))
	if _, err := Check(ctx, Case{Disk: disk, Plan: plan, Step: step, Result: res, Kernel: k.Image, Firmware: fw, Work: dir, Log: log}); err == nil ||
		!strings.Contains(err.Error(), "not the one the result was judged from") {
		t.Errorf("a log of another digest: %v", err)
	}
}

func logDigest(t *testing.T, raw []byte) string {
	l, err := logwrites.Open(bytes.NewReader(raw), int64(len(raw)), int64(secData+2*secSlot+secEnv)*512)
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// updateDisk is a run's disk: the medium's partitions, then the log
// partition holding the log, and the plan naming them.
func updateDisk(t *testing.T, dir string, logBytes []byte) (string, *runplan.Plan) {
	names := []string{"data", "slot_a", "slot_b", "uboot_env", "updlog"}
	sizes := []int{secData, secSlot, secSlot, secEnv, 2*(len(logBytes)/512) + 4096}
	disk := filepath.Join(dir, "disk.img")
	var script strings.Builder
	script.WriteString("label: gpt\n")
	at, total := 2048, 2048
	plan := &runplan.Plan{}
	for i, n := range names {
		fmt.Fprintf(&script, "start=%d, size=%d, name=%s\n", at, sizes[i], n)
		plan.Partitions = append(plan.Partitions, runplan.Partition{Name: n, Number: i + 1, Size: int64(sizes[i]) * 512})
		at += (sizes[i] + 2047) / 2048 * 2048
		total = at
	}
	if err := os.WriteFile(disk, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(disk, int64(total+2048)*512); err != nil {
		t.Fatal(err)
	}
	testenv.Run(t, script.String(), "sfdisk", "-q", disk)
	f, err := os.OpenFile(disk, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	logAt := int64(at-(sizes[4]+2047)/2048*2048) * 512
	if _, err := f.WriteAt(logBytes, logAt); err != nil {
		t.Fatal(err)
	}
	return disk, plan
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}
