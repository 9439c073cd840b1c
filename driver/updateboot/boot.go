package updateboot

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fsbench/fsbench/internal/command"
	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/runplan"
	"github.com/fsbench/fsbench/wire/ubootenv"
)

// bootTimeout bounds one boot, from QEMU's start to the kernel's command
// line (about 6 s under TCG).
const bootTimeout = 2 * time.Minute

// landing is where a boot landed.
type landing struct {
	class, slot string
	copy, left  int
	why         string
	failed      []string // U-Boot's words on each slot whose boots failed
}

// failedWhy says which slots failed their boots on the way.
func (g *landing) failedWhy() string {
	if len(g.failed) == 0 {
		return ""
	}
	return " after U-Boot's " + strings.Join(g.failed, "; ")
}

// booter boots states on one boot disk, whose slots and environment it
// rewrites for each.
type booter struct {
	c        Case
	lay      *layout
	old, new []byte // the images: slot A before the update, slot B after it
	disk     string
	at       [4]int64 // where slot A, slot B and the environment's partition start on the boot disk (by region)
	landed   map[[32]byte]landing
}

// images reads the old image (slot A once the runner seeded it) and the
// new one (slot B at the log's end) from a replay of their own.
func (b *booter) images(l *logwrites.Log) error {
	f, err := os.CreateTemp(b.c.Work, "images-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := f.Truncate(b.lay.mediumSize()); err != nil {
		return err
	}
	fsAt := l.FindMark(logwrites.FSMark)
	if fsAt < 0 {
		return fmt.Errorf("the write log has no %q mark", logwrites.FSMark)
	}
	rp := logwrites.NewReplayer(l, f)
	read := func(reg int) ([]byte, error) {
		buf := make([]byte, b.lay.imgSize)
		_, err := f.ReadAt(buf, b.lay.mediumOff(reg))
		return buf, err
	}
	if err = rp.To(fsAt + 1); err == nil {
		b.old, err = read(regA)
	}
	if err == nil {
		if err = rp.To(len(l.Entries)); err == nil {
			b.new, err = read(regB)
		}
	}
	return err
}

// envSpan is the part of the environment's partition U-Boot reads: its
// copies from env_offset, or the whole filesystem that holds them as
// files.
func (l *layout) envSpan() int64 {
	if len(l.envFiles) > 0 {
		return l.regions[regEnv].size
	}
	n := int64(1)
	if l.redundant {
		n = 2
	}
	return l.envOff + n*l.envLen
}

// boot rebuilds st on top of base (which holds its prefix) and boots it,
// once per distinct environment and slots.
func (b *booter) boot(ctx context.Context, rp *logwrites.Replayer, base *os.File, st logwrites.State) (landing, error) {
	lay := b.lay
	bufs := [4][]byte{regA: make([]byte, lay.imgSize), regB: make([]byte, lay.imgSize), regEnv: make([]byte, lay.envSpan())}
	for _, reg := range []int{regA, regB, regEnv} {
		if _, err := base.ReadAt(bufs[reg], lay.mediumOff(reg)); err != nil {
			return landing{}, err
		}
	}
	if st.Beyond != nil {
		if err := rp.Beyond(st, &regionWriter{lay: lay, bufs: bufs}); err != nil {
			return landing{}, err
		}
	}
	key := hashInputs(bufs[regEnv], bufs[regA], bufs[regB])
	if got, ok := b.landed[key]; ok {
		return got, nil
	}
	f, err := os.OpenFile(b.disk, os.O_WRONLY, 0)
	if err != nil {
		return landing{}, err
	}
	for _, reg := range []int{regA, regB, regEnv} {
		if _, err := f.WriteAt(bufs[reg], b.at[reg]); err != nil {
			f.Close()
			return landing{}, err
		}
	}
	if err := f.Close(); err != nil {
		return landing{}, err
	}
	got, err := b.run(ctx)
	// U-Boot for QEMU's x86 machine now and then resets before it runs
	// the boot script (under TCG on a busy host): that boot decided
	// nothing, and the same disk boots again.
	for try := 1; errors.Is(err, errNoScript) && try < 3; try++ {
		b.c.Log.Warnf("state %s: %v; booting it again", st.Code(), err)
		got, err = b.run(ctx)
	}
	if err != nil {
		return got, err
	}
	b.c.Log.Infof("state %s booted through U-Boot: %s", st.Code(), got.why)
	b.landed[key] = got
	return got, nil
}

// regionWriter writes at the medium's offsets into the buffers of the
// regions a boot reads; the data partition's writes are not needed.
type regionWriter struct {
	lay  *layout
	bufs [4][]byte
}

func (w *regionWriter) WriteAt(p []byte, off int64) (int, error) {
	for reg, buf := range w.bufs {
		start := w.lay.mediumOff(reg)
		lo, hi := max(off, start), min(off+int64(len(p)), start+int64(len(buf)))
		if lo < hi {
			copy(buf[lo-start:hi-start], p[lo-off:hi-off])
		}
	}
	return len(p), nil
}

// run boots the boot disk and reads where the boot landed from the
// console: U-Boot's own words when it stops, the kernel's command line
// when it starts one.
func (b *booter) run(ctx context.Context) (landing, error) {
	ctx, cancel := context.WithTimeout(ctx, bootTimeout)
	defer cancel()
	// QEMU's i440FX machine, for which Debian's U-Boot is built: no
	// AHCI controller to time out on before the virtio disk.
	cmd := exec.CommandContext(ctx, "qemu-system-x86_64", "-M", "pc", "-m", "1024", "-bios", b.c.Firmware,
		"-display", "none", "-serial", "stdio", "-monitor", "none", "-no-reboot",
		"-drive", "file="+strings.ReplaceAll(b.disk, ",", ",,")+",if=virtio,format=raw")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return landing{}, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return landing{}, fmt.Errorf("qemu-system-x86_64: %w", err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	got := landing{copy: -2}
	var tail []string
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		tail = append(tail[max(0, len(tail)-30):], line)
		if done := got.read(line); done {
			return got, nil
		}
	}
	end := strings.Join(tail, "\n")
	switch {
	case got.copy == -2 && !strings.Contains(end, "fsbench-boot"):
		return got, fmt.Errorf("%w (%s); the console's end:\n%s", errNoScript, cmp.Or(ctx.Err(), errors.New("QEMU ended")), end)
	case ctx.Err() != nil:
		return got, fmt.Errorf("no boot decision within %s; the console's end:\n%s", bootTimeout, end)
	}
	return got, fmt.Errorf("QEMU ended before a boot decision; the console's end:\n%s", end)
}

// errNoScript: U-Boot never ran the boot script.
var errNoScript = errors.New("U-Boot did not run the boot script")

// read takes one console line; it says when the boot has landed.
func (g *landing) read(line string) bool {
	const tag = "fsbench-boot: "
	if i := strings.Index(line, tag); i >= 0 && !strings.Contains(line, "echo ") {
		msg := line[i+len(tag):]
		switch {
		case strings.HasPrefix(msg, "environment copy "):
			g.copy, _ = strconv.Atoi(strings.TrimPrefix(msg, "environment copy "))
		case strings.HasPrefix(msg, "no slot has attempts left"):
			g.class, g.why, g.slot, g.left = "Bricked", "U-Boot: "+msg+g.failedWhy(), "", 0
			return true
		case strings.HasPrefix(msg, "slot "):
			// "slot B (3 attempts left) holds neither image": its boots
			// fail; the script picks again, or says it never stops.
			f := strings.Fields(msg)
			if len(f) >= 3 {
				g.slot = f[1]
				g.left, _ = strconv.Atoi(strings.TrimPrefix(f[2], "("))
				g.failed = append(g.failed, msg)
			}
		case strings.HasPrefix(msg, "boot loop"):
			g.class, g.why = "Bricked", "U-Boot: "+msg+g.failedWhy()
			return true
		}
		return false
	}
	// The kernel's own line, with its timestamp: the kernel started.
	if !strings.Contains(line, "] Kernel command line:") {
		return false
	}
	args := map[string]string{}
	for _, w := range strings.Fields(line[strings.Index(line, "line:")+5:]) {
		if k, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(k, "fsbench.") {
			args[strings.TrimPrefix(k, "fsbench.")] = v
		}
	}
	g.copy, _ = strconv.Atoi(args["copy"])
	g.slot = args["slot"]
	g.left, _ = strconv.Atoi(args["left"])
	switch {
	case g.copy < 0 || args["failed"] != "":
		g.class = "Fallback"
	case args["image"] == "old":
		g.class = "OldSlot"
	case args["image"] == "new":
		g.class = "NewSlot"
	default:
		g.class = "Bricked"
	}
	g.why = fmt.Sprintf("the kernel started from slot %s (image %s, environment copy %d, %d attempts left)%s", g.slot, args["image"], g.copy, g.left, g.failedWhy())
	return true
}

// prepare makes the boot disk: a boot partition with the script, the
// kernel, both images and U-Boot's default environment, then slot A,
// slot B and the environment's partition at their sizes on the run's
// disk.
func (b *booter) prepare(ctx context.Context) error {
	lay := b.lay
	dir := b.c.workFile("bootfs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	def, err := ubootenv.Encode(runplan.UpdateFactoryEnv(), int(lay.envLen), false, 0)
	if err != nil {
		return err
	}
	kernel, err := os.ReadFile(b.c.Kernel)
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{"bzImage": kernel, "old.img": b.old, "new.img": b.new, "default.env": def} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	// The partitions, each 1 MiB aligned: boot, slot A, slot B, env.
	const mib = 1 << 20
	bootSize := (int64(len(kernel))+2*lay.imgSize+lay.envLen)*5/4 + 8*mib
	sizes := []int64{bootSize, lay.regions[regA].size, lay.regions[regB].size, lay.regions[regEnv].size}
	var script strings.Builder
	script.WriteString("label: gpt\n")
	starts := make([]int64, len(sizes))
	at := int64(mib)
	for i, s := range sizes {
		starts[i] = at
		fmt.Fprintf(&script, "start=%d, size=%d\n", at/512, (s+511)/512)
		at += (s + mib - 1) / mib * mib
	}
	b.at[regA], b.at[regB], b.at[regEnv] = starts[1], starts[2], starts[3]
	cmd, err := bootCmd(lay, starts)
	if err != nil {
		return err
	}
	if err := os.WriteFile(b.c.workFile("boot.cmd"), []byte(cmd), 0o644); err != nil {
		return err
	}
	if err := tool(ctx, nil, "mkimage", "-A", "x86", "-O", "linux", "-T", "script", "-C", "none", "-n", "fsbench update boot",
		"-d", b.c.workFile("boot.cmd"), filepath.Join(dir, "boot.scr")); err != nil {
		return err
	}
	b.disk = b.c.workFile("boot-disk.img")
	os.Remove(b.disk)
	fsImg := b.c.workFile("boot.ext4")
	os.Remove(fsImg)
	if err := tool(ctx, nil, "mkfs.ext4", "-q", "-F", "-d", dir, fsImg, strconv.FormatInt(bootSize/1024, 10)+"k"); err != nil {
		return err
	}
	if err := os.WriteFile(b.disk, nil, 0o644); err != nil {
		return err
	}
	if err := os.Truncate(b.disk, at+mib); err != nil {
		return err
	}
	if err := tool(ctx, strings.NewReader(script.String()), "sfdisk", "-q", b.disk); err != nil {
		return err
	}
	return copyInto(fsImg, b.disk, starts[0])
}

// copyInto writes the file src into dst at off.
func copyInto(src, dst string, off int64) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(data, off); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// tool runs a host program with its arguments, no shell between.
func tool(ctx context.Context, stdin io.Reader, name string, args ...string) error {
	if _, err := exec.LookPath(name); err != nil {
		return fmt.Errorf("%s is not installed (real boots of update states need u-boot-tools, e2fsprogs, fdisk and qemu-system-x86)", name)
	}
	_, err := command.Output(ctx, "", stdin, name, args...)
	return err
}
