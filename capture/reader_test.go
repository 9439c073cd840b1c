//go:build linux

package capture

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/testenv"
	"golang.org/x/sys/unix"
)

// chunked hands out data in reads of varying sizes and counts the bytes
// handed out so far.
type chunked struct {
	data  []byte
	sizes []int
	i     int
	given atomic.Int64
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), c.sizes[c.i%len(c.sizes)])
	c.i++
	copy(p, c.data[:n])
	c.data = c.data[n:]
	c.given.Add(int64(n))
	return n, nil
}

// stream is lines of many lengths, one of them longer than an arena, and
// a last line without newline.
func stream() (data []byte, lines []string) {
	for i := range 600 {
		n := (i * 37) % 1500
		if i == 300 {
			n = 3 * arenaSize / 2
		}
		l := fmt.Sprintf("%d:%s\r\n", i, strings.Repeat(string(rune('a'+i%26)), n))
		lines = append(lines, l)
		data = append(data, l...)
	}
	lines = append(lines, "~ # ")
	return append(data, "~ # "...), lines
}

// TestReaderArenas feeds several arenas' worth of lines in reads that cut
// lines anywhere: every line must come out whole, in order, the raw copy
// must be the stream, and a line handed out must stay intact while the
// reader goes on filling its arena.
func TestReaderArenas(t *testing.T) {
	data, want := stream()
	src := &chunked{data: bytes.Clone(data), sizes: []int{1, 7, 16, 500, 4095, 3, 9000, 64}}
	var raw bytes.Buffer
	rd := NewReader(src, -1)
	rd.Raw = &raw
	defer rd.Close()
	var got []Line
	for {
		l, err := rd.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		// Appending to a line must not write into the next one.
		_ = append(l.Bytes, "XXXX"...)
		got = append(got, l)
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i, l := range got {
		last := i == len(got)-1
		if string(l.Bytes) != want[i] || l.Shown != 0 || l.Partial != last {
			t.Fatalf("line %d: %d bytes %.40q partial=%v shown=%d, want %.40q partial=%v", i, len(l.Bytes), l.Bytes, l.Partial, l.Shown, want[i], last)
		}
		if l.End.Before(l.Start) {
			t.Errorf("line %d ends before it starts", i)
		}
	}
	if !bytes.Equal(raw.Bytes(), data) {
		t.Errorf("raw copy differs from the stream (%d bytes, want %d)", raw.Len(), len(data))
	}
}

// TestReaderBacklog checks that a consumer that does not keep up makes the
// reader wait instead of piling up the whole input, and that nothing is
// lost when it catches up.
func TestReaderBacklog(t *testing.T) {
	const backlog, chunk = 4096, 512
	data, want := stream()
	src := &chunked{data: bytes.Clone(data), sizes: []int{chunk}}
	var raw bytes.Buffer
	rd := newReader(src, -1, PriorityNormal, backlog)
	rd.Raw = &raw
	defer rd.Close()
	time.Sleep(100 * time.Millisecond) // a consumer busy elsewhere
	if n := src.given.Load(); n > backlog+chunk {
		t.Fatalf("the reader took %d bytes before the consumer took any; the backlog is %d", n, backlog)
	}
	n := 0
	for {
		l, err := rd.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if string(l.Bytes) != want[n] {
			t.Fatalf("line %d is %.40q, want %.40q", n, l.Bytes, want[n])
		}
		n++
	}
	if n != len(want) || !bytes.Equal(raw.Bytes(), data) {
		t.Fatalf("%d lines of %d, raw %d bytes of %d", n, len(want), raw.Len(), len(data))
	}
}

// TestPartialWaitsForSilence trickles a line without newline, one byte at
// a time at intervals shorter than the idle delay: the partial emission
// must come only once the line has been silent for the whole delay, not an
// idle delay after the line began.
func TestPartialWaitsForSilence(t *testing.T) {
	const idle = 150 * time.Millisecond
	master, slave := openPTY(t, Config{})
	rd := NewReader(slave, idle)
	defer rd.Close()
	go func() {
		for range 10 {
			if _, err := master.Write([]byte("x")); err != nil {
				return
			}
			time.Sleep(30 * time.Millisecond)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var shown int
	for shown < 10 {
		l, err := rd.Next(ctx)
		if err != nil {
			t.Fatalf("after %d bytes: %v", shown, err)
		}
		if quiet := time.Since(l.End); !l.Partial || l.Shown != shown || quiet < idle {
			t.Fatalf("emission %+v after %v of silence, want a partial line after %d bytes and at least %v", l, quiet, shown, idle)
		}
		shown = len(l.Bytes)
	}
	if _, err := master.Write([]byte("\r\n")); err != nil {
		t.Fatal(err)
	}
	l, err := rd.Next(ctx)
	if err != nil || l.Partial || string(l.Bytes) != "xxxxxxxxxx\r\n" || l.Shown != 10 {
		t.Fatalf("completion %+v, %v", l, err)
	}
}

// threadSched is the scheduling of one thread of this process, from
// /proc/self/task/TID/stat.
type threadSched struct {
	tid, nice, policy int
}

func threads(t *testing.T) []threadSched {
	t.Helper()
	paths, err := filepath.Glob("/proc/self/task/*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var out []threadSched
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the thread ended
		}
		// Fields after the command name, which may hold spaces: state
		// is field 3, nice 19, policy 41.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
		num := func(field int) int { n, _ := strconv.Atoi(f[field-3]); return n }
		tid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		out = append(out, threadSched{tid: tid, nice: num(19), policy: num(41)})
	}
	return out
}

// raised lists the threads that carry what Sched reported.
func raised(t *testing.T, sched string) []threadSched {
	var out []threadSched
	for _, th := range threads(t) {
		if sched == "nice -10" && th.policy == 0 && th.nice == -10 {
			out = append(out, th)
		}
	}
	return out
}

// TestPriorityHighEndsWithTheReader checks that PriorityHigh raises the
// threads that run the reading goroutine, and that none keeps the
// priority once the reader has ended.
func TestPriorityHighEndsWithTheReader(t *testing.T) {
	if got := raised(t, "nice -10"); len(got) != 0 {
		t.Fatalf("raised threads before the test: %+v", got)
	}
	master, slave := openPTY(t, Config{})
	rd := NewReaderPriority(slave, -1, PriorityHigh)
	defer rd.Close()
	sched := rd.Sched()
	if sched == "" {
		testenv.Missing(t, "root (or CAP_SYS_NICE, RLIMIT_RTPRIO, RLIMIT_NICE) to raise a thread's priority")
	}
	if got := raised(t, sched); len(got) != 1 {
		t.Fatalf("Sched %q, but %d threads carry it before the first read: %+v", sched, len(got), got)
	}
	for i := range 50 {
		// Pauses, so that the runtime may run the reader on another thread.
		time.Sleep(time.Millisecond)
		if _, err := fmt.Fprintf(master, "line %d\n", i); err != nil {
			t.Fatal(err)
		}
		if l, err := rd.Next(context.Background()); err != nil || string(l.Bytes) != fmt.Sprintf("line %d\n", i) {
			t.Fatalf("line %q, %v", l.Bytes, err)
		}
	}
	if len(raised(t, sched)) == 0 {
		t.Fatalf("no thread carries %q while reading", sched)
	}
	master.Close() // hang up: the reading goroutine returns
	if _, err := rd.Next(context.Background()); err != io.EOF {
		t.Fatalf("after the hangup: %v, want EOF", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(raised(t, sched)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("a thread still carries %q after the reader ended: %+v", sched, raised(t, sched))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPriorityNormalLeavesThreadsAlone: the default raises nothing.
func TestPriorityNormalLeavesThreadsAlone(t *testing.T) {
	_, slave := openPTY(t, Config{})
	rd := NewReader(slave, -1)
	defer rd.Close()
	if rd.Sched() != "" {
		t.Fatalf("Sched %q with PriorityNormal", rd.Sched())
	}
	for _, th := range threads(t) {
		if th.policy != 0 {
			t.Errorf("thread %d has policy %d", th.tid, th.policy)
		}
	}
}

// TestCarriersRaiseEachThreadOnce checks the priority's bookkeeping on
// three threads: the one that starts reading and one that carries the
// reader later are raised, a third one is not touched, and release puts
// both back as they were.
func TestCarriersRaiseEachThreadOnce(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	end := func() { once.Do(func() { close(release) }) }
	defer end()
	// on runs f on a thread of its own, locked until the test ends (the
	// runtime then ends the thread, and whatever priority is left on it),
	// and returns that thread's ID.
	on := func(f func()) int {
		tid := make(chan int)
		go func() {
			runtime.LockOSThread()
			f()
			tid <- unix.Gettid()
			<-release
		}()
		return <-tid
	}
	var c *carriers
	first := on(func() { c = newCarriers(PriorityHigh) })
	if c.sched == "" {
		testenv.Missing(t, "root (or CAP_SYS_NICE, RLIMIT_RTPRIO, RLIMIT_NICE) to raise a thread's priority")
	}
	second := on(func() { c.carry(); c.carry() })
	third := on(func() {})
	got := map[int]bool{}
	for _, th := range raised(t, c.sched) {
		got[th.tid] = true
	}
	if len(got) != 2 || !got[first] || !got[second] || got[third] {
		t.Errorf("threads %d and %d carried the reader, %d did not; %q is on %v", first, second, third, c.sched, got)
	}
	c.release()
	if got := raised(t, c.sched); len(got) != 0 {
		t.Errorf("after release, %q is still on %+v", c.sched, got)
	}
}

// waitsInRead lists the threads of this process asleep in a tty's or a
// socket's read(2).
func waitsInRead(t *testing.T) []string {
	t.Helper()
	paths, _ := filepath.Glob("/proc/self/task/*/wchan")
	var out []string
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && (string(b) == "wait_woken" || string(b) == "n_tty_read") {
			out = append(out, filepath.Base(filepath.Dir(p)))
		}
	}
	return out
}

// TestPolledReadHoldsNoThread: a Reader of a port from OpenSerial waits
// for bytes in the runtime's poller, with no thread asleep in read(2);
// with the descriptor switched to blocking mode it falls back to read(2),
// and both read the same lines. Closing a polled port ends the reader at
// once.
func TestPolledReadHoldsNoThread(t *testing.T) {
	for _, blocking := range []bool{false, true} {
		master, slave := openPTY(t, Config{})
		if blocking {
			rc, err := slave.SyscallConn()
			if err != nil {
				t.Fatal(err)
			}
			rc.Control(func(fd uintptr) { err = unix.SetNonblock(int(fd), false) })
			if err != nil {
				t.Fatal(err)
			}
		}
		if _, polled := sourceOf(slave).(*pollSource); polled == blocking {
			t.Fatalf("blocking %v: polled %v", blocking, polled)
		}
		rd := NewReader(slave, -1)
		if _, err := master.Write([]byte("one\r\n")); err != nil {
			t.Fatal(err)
		}
		if l, err := rd.Next(context.Background()); err != nil || string(l.Bytes) != "one\r\n" {
			t.Fatalf("blocking %v: line %q, %v", blocking, l.Bytes, err)
		}
		// The reading goroutine is waiting for the next byte now.
		var waiting []string
		for range 100 {
			if waiting = waitsInRead(t); len(waiting) > 0 == blocking {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if len(waiting) > 0 != blocking {
			t.Errorf("blocking %v: threads asleep in read(2): %v", blocking, waiting)
		}
		if !blocking {
			slave.Close()
			if _, err := rd.Next(context.Background()); err != io.EOF {
				t.Errorf("after closing the port: %v, want EOF", err)
			}
		}
		rd.Close()
	}
	if _, polled := sourceOf(strings.NewReader("x")).(*pollSource); polled {
		t.Error("a strings.Reader taken for a polled file")
	}
}
