//go:build linux

package capture

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// bootScript is a U-Boot + kernel + busybox console at 115200 baud, with the
// bursts and pauses of a real boot and the awkward bytes a console carries.
func bootScript() *script {
	s := &script{}
	s.pause(20 * time.Millisecond)
	s.uart("\r\nU-Boot 2024.01 (Jan 01 2024 - 00:00:00 +0000)\r\n\r\nDRAM:  512 MiB\r\n")
	s.pause(80 * time.Millisecond)
	s.uart("Hit any key to stop autoboot:  1 \b\b\b 0 \r\n")
	s.pause(120 * time.Millisecond)
	// The reset pattern sits in the middle of this line.
	s.uart("## Transferring control to Linux (at address 80008000) Starting kernel ...\r\n\r\n")
	s.pause(150 * time.Millisecond)
	s.uart("[    0.000000] Booting Linux on physical CPU 0x0\n" +
		"[    0.000000] Linux version 6.6.0 (builder@host) (gcc 13.2.0) #1 SMP PREEMPT\n" +
		"[    0.000000] Machine model: fsbench virt board\n" +
		"[    0.000000] Kernel command line: console=ttyAMA0,115200 root=/dev/vda rw\n")
	s.pause(40 * time.Millisecond)
	s.uart("[    0.412345] EXT4-fs (vda): mounted filesystem with ordered data mode.\r\n" +
		"[    0.413000] VFS: Mounted root (ext4 filesystem) on device 254:0.\r\n")
	s.pause(30 * time.Millisecond)
	s.uart("[    0.420000] Freeing unused kernel image (initmem) memory: 1024K\r\n" +
		"[    0.430000] Run /sbin/init as init process\r\n")
	s.pause(60 * time.Millisecond)
	// CR progress redraws, a NUL, colour escapes.
	s.uart("fsck: 10%\rfsck: 55%\rfsck: 100%\r\n\x00Starting syslogd: \x1b[1;32mOK\x1b[0m\r\n")
	// UTF-8 split inside a rune, with a pause shorter than the idle delay.
	s.raw("Welcome to caf\xc3")
	s.pause(30 * time.Millisecond)
	s.raw("\xa9 Buildroot \xe2\x9c")
	s.pause(10 * time.Millisecond)
	s.raw("\x93\r\n")
	// A line cut by a pause longer than the idle delay: emitted partial,
	// then completed, split inside a rune again.
	s.uart("Loading modules caf\xc3")
	s.pause(350 * time.Millisecond)
	s.raw("\xa9 done\r\n")
	s.pause(100 * time.Millisecond)
	// Busybox prompt: title OSC, colours, and no newline.
	s.uart("\x1b]0;root@fsbench\x07\x1b[1;34m~\x1b[0m # ")
	return s
}

// Timestamp error is the stamp minus the time the piece holding the line's
// first byte was handed to write(). It cannot be negative. What remains is
// the pty's delivery (the kernel pushes master writes to the slave through
// a kworker) plus the wake-up of the thread blocked in read(): typically
// 0.1 ms, a few ms under -race on a busy 2-core machine. The bounds, median
// 5 ms and max 50 ms, still fail a capture that stamps a line at its end
// (the partial line spans 350 ms) or polls with a tick of ~10 ms or more.
//
// Other jobs sharing the machine can stall the kworker or the reader for
// tens of ms (seen at load average 7 on 2 cores), so the timing bounds get
// three attempts; every other assertion must hold on each attempt.
const (
	maxMedianErr = 5 * time.Millisecond
	maxErr       = 50 * time.Millisecond
	attempts     = 3
)

func TestCaptureBootTimestamps(t *testing.T) {
	for i := 1; ; i++ {
		med, mx := bootOnce(t)
		if t.Failed() || med <= maxMedianErr && mx <= maxErr {
			return
		}
		if i == attempts {
			t.Fatalf("timestamp error median %v (bound %v), max %v (bound %v) on %d attempts", med, maxMedianErr, mx, maxErr, attempts)
		}
		t.Logf("attempt %d: timestamp error median %v max %v over the bounds; retrying (loaded machine?)", i, med, mx)
	}
}

func bootOnce(t *testing.T) (med, mx time.Duration) {
	master, slave := openPTY(t, Config{Baud: 115200})
	s := bootScript()
	var raw, out bytes.Buffer
	sentc := s.play(master)
	res, err := Capture(context.Background(), slave, Options{KeepLines: true,
		Raw:     &raw,
		Out:     &out,
		Reset:   regexp.MustCompile(`Starting kernel`),
		Quit:    regexp.MustCompile(`# $`),
		Timeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	ss := <-sentc
	if ss == nil {
		t.Fatal("writing the script failed")
	}
	if res.Stop != StopQuit {
		t.Fatalf("stop = %v, want quit", res.Stop)
	}
	// The prompt is the last byte written, so the raw log must be all of it.
	if want := s.bytes(); !bytes.Equal(raw.Bytes(), want) {
		t.Fatalf("raw log differs:\n got %q\nwant %q", raw.Bytes(), want)
	}
	t.Logf("output:\n%s", out.String())

	// Lines must tile the stream exactly, in order.
	var joined []byte
	for _, l := range res.Lines {
		joined = append(joined, l.Bytes...)
	}
	if !bytes.Equal(joined, s.bytes()) {
		t.Fatalf("lines do not rebuild the stream:\n got %q", joined)
	}
	wantTexts := []string{"", "U-Boot 2024.01 (Jan 01 2024 - 00:00:00 +0000)", "", "DRAM:  512 MiB"}
	for i, w := range wantTexts {
		if got := res.Lines[i].Text(); got != w {
			t.Errorf("line %d text = %q, want %q", i, got, w)
		}
	}

	var errs []time.Duration
	off := 0
	for _, l := range res.Lines {
		e := l.Start.Sub(sendTime(ss, off))
		if e < 0 {
			t.Errorf("line at %d (%q) stamped %v before it was sent", off, l.Text(), -e)
		}
		errs = append(errs, e)
		if e > maxMedianErr {
			t.Logf("line at %d stamped %v after send, %q (end %v after send)", off, e, l.Text(), l.End.Sub(sendTime(ss, off)))
		}
		off += len(l.Bytes)
	}
	slices.Sort(errs)
	med, mx = errs[len(errs)/2], errs[len(errs)-1]
	t.Logf("timestamp error over %d lines: min %v median %v p90 %v max %v", len(errs), errs[0], med, errs[len(errs)*9/10], mx)

	// Output lines: one timestamp per line, even for the line sent in two
	// pieces 350 ms apart, whose bytes are complete and valid UTF-8.
	outLines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(outLines) != len(res.Lines) {
		t.Errorf("%d output lines for %d lines", len(outLines), len(res.Lines))
	}
	stamp := regexp.MustCompile(`^\[ *(-?\d+\.\d{6}) +(\d+\.\d{6})\] `)
	for _, ol := range outLines {
		if !stamp.MatchString(ol) {
			t.Errorf("output line without stamp: %q", ol)
		}
		if strings.Count(ol, "] ") > 1 && !strings.Contains(ol, "[    0.") {
			t.Errorf("output line stamped twice: %q", ol)
		}
	}
	if !strings.Contains(out.String(), "] Loading modules café done\n") {
		t.Errorf("completed partial line missing from output")
	}
	if !strings.Contains(out.String(), "] Welcome to café Buildroot ✓\n") || !utf8.Valid(out.Bytes()[:bytes.LastIndex(out.Bytes(), []byte("Welcome"))+40]) {
		t.Errorf("split UTF-8 line mangled")
	}
	if !strings.Contains(out.String(), "] fsck: 10%\rfsck: 55%\rfsck: 100%\n") {
		t.Errorf("CR redraw line mangled")
	}

	// Reset pattern in mid-line: that line is at 0, later lines after it.
	reset := slices.IndexFunc(res.Lines, func(l Stamped) bool { return strings.Contains(l.Text(), "Starting kernel") })
	if reset < 0 || res.Lines[reset].Abs != 0 || !res.Base.Equal(res.Lines[reset].Start) || !res.Base.After(res.First) {
		t.Fatalf("time base not reset by line %d", reset)
	}
	// Before the reset the base is the first byte; delta is always from
	// the previous line's start.
	base := res.First
	for i, l := range res.Lines {
		if i == reset {
			base = l.Start
		}
		if l.Abs != l.Start.Sub(base) {
			t.Errorf("line %d abs %v, want %v", i, l.Abs, l.Start.Sub(base))
		}
		if i > 0 && l.Delta != l.Start.Sub(res.Lines[i-1].Start) {
			t.Errorf("line %d delta %v", i, l.Delta)
		}
	}

	// Milestones: each once, at the start of its line; the prompt from a
	// partial line behind escapes.
	for _, name := range []string{RootMount, InitStart, Prompt} {
		h, ok := res.Milestone(name)
		if !ok {
			t.Fatalf("milestone %s not seen", name)
		}
		t.Logf("milestone %-10s abs %v line %q", name, h.Abs, h.Line)
	}
	if h, _ := res.Milestone(InitStart); !strings.Contains(h.Line, "Freeing unused kernel") {
		t.Errorf("init start recorded at %q, want the first match", h.Line)
	}
	last := res.Lines[len(res.Lines)-1]
	if p, _ := res.Milestone(Prompt); !last.Partial || !p.Time.Equal(last.Start) || p.Line != "~ # " {
		t.Errorf("prompt hit %+v, last line %q partial=%v", p, last.Bytes, last.Partial)
	}
	// Interval: between the starts of the two lines, which the per-line
	// errors above tie to the writer's clock.
	iv, err := res.Interval(RootMount, Prompt)
	if err != nil {
		t.Fatal(err)
	}
	var rmLine Stamped
	off = 0
	for _, l := range res.Lines {
		if strings.Contains(l.Text(), "VFS: Mounted root") {
			rmLine = l
			break
		}
		off += len(l.Bytes)
	}
	if want := last.Start.Sub(rmLine.Start); iv != want {
		t.Errorf("root-mount→prompt = %v, want %v", iv, want)
	}
	t.Logf("root-mount→prompt %v (sender %v)", iv, sendTime(ss, len(joined)-len(last.Bytes)).Sub(sendTime(ss, off)))
	return med, mx
}

func TestPartialLineCompleted(t *testing.T) {
	master, slave := openPTY(t, Config{})
	rd := NewReader(slave, 100*time.Millisecond)
	defer rd.Close()
	t0 := time.Now()
	if _, err := master.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	l, err := rd.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Partial || string(l.Bytes) != "abc" || l.Shown != 0 {
		t.Fatalf("first emission %+v, want partial abc", l)
	}
	if el := time.Since(t0); el < 100*time.Millisecond {
		t.Fatalf("partial emitted after %v, before the idle delay", el)
	}
	if _, err := master.Write([]byte("def\r\nxy")); err != nil {
		t.Fatal(err)
	}
	l2, err := rd.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l2.Partial || string(l2.Bytes) != "abcdef\r\n" || l2.Shown != 3 || string(l2.New()) != "def\r\n" || !l2.Start.Equal(l.Start) || l2.Text() != "abcdef" {
		t.Fatalf("completion %+v", l2)
	}
	if !l2.End.After(l2.Start) {
		t.Errorf("end %v not after start %v", l2.End, l2.Start)
	}
	master.Close() // hang up: the pending "xy" comes out as a final partial
	l3, err := rd.Next(ctx)
	if err != nil || !l3.Partial || string(l3.Bytes) != "xy" {
		t.Fatalf("final partial %+v, %v", l3, err)
	}
	if _, err := rd.Next(ctx); err == nil {
		t.Fatal("no error after hangup")
	}
}

func TestQuitPattern(t *testing.T) {
	master, slave := openPTY(t, Config{})
	s := &script{}
	s.uart("one\r\n")
	s.pause(20 * time.Millisecond)
	s.uart("two QUIT here\r\n") // matches mid-line
	s.pause(300 * time.Millisecond)
	s.uart("three\r\n")
	done := s.play(master)
	var raw bytes.Buffer
	res, err := Capture(context.Background(), slave, Options{KeepLines: true, Raw: &raw, Quit: regexp.MustCompile(`QUIT`)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopQuit || len(res.Lines) != 2 || res.Lines[1].Text() != "two QUIT here" {
		t.Fatalf("stop %v lines %d", res.Stop, len(res.Lines))
	}
	if raw.String() != "one\r\ntwo QUIT here\r\n" {
		t.Errorf("raw %q", raw.String())
	}
	<-done
}

func TestTimeout(t *testing.T) {
	master, slave := openPTY(t, Config{})
	if _, err := master.Write([]byte("only line\n")); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	res, err := Capture(context.Background(), slave, Options{KeepLines: true, Timeout: 300 * time.Millisecond})
	el := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopTimeout || len(res.Lines) != 1 {
		t.Fatalf("stop %v lines %d", res.Stop, len(res.Lines))
	}
	if el < 300*time.Millisecond || el > 2*time.Second {
		t.Errorf("timeout after %v, want ~300ms", el)
	}
	// A caller's own cancellation is an error, not a timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := Capture(ctx, slave, Options{}); err == nil {
		t.Error("cancelled capture returned no error")
	}
}

func TestEOFAndNoMilestones(t *testing.T) {
	master, slave := openPTY(t, Config{})
	if _, err := master.Write([]byte("a\nb")); err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(50 * time.Millisecond); master.Close() }()
	var out bytes.Buffer
	res, err := Capture(context.Background(), slave, Options{KeepLines: true, Out: &out, Idle: -1})
	if err != nil || res.Stop != StopEOF || len(res.Lines) != 2 || !res.Lines[1].Partial {
		t.Fatalf("res %+v err %v", res, err)
	}
	if !strings.HasSuffix(out.String(), "] b\n") {
		t.Errorf("output %q", out.String())
	}
	if _, err := res.Interval(RootMount, Prompt); err == nil {
		t.Error("interval between unseen milestones")
	}
}
