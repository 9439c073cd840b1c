package srcfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadRefusesWhatIsNoSpec(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.fsb.hcl")
	if err := os.WriteFile(big, make([]byte, MaxSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo: "a FIFO", dir: "a directory", "/dev/zero": "a device", big: "larger than the 4 MiB",
		filepath.Join(dir, "missing"): "no such file",
	} {
		done := make(chan error, 1)
		go func() { _, err := Read(path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Read(%s) = %v, want %q", path, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Read(%s) blocked", path)
		}
	}
	ok := filepath.Join(dir, "ok.fsb.hcl")
	os.WriteFile(ok, []byte("x = 1\n"), 0o644)
	if b, err := Read(ok); err != nil || string(b) != "x = 1\n" {
		t.Errorf("Read of a spec: %q, %v", b, err)
	}
	if _, err := ReadFrom(strings.NewReader(strings.Repeat("a", MaxSize+1)), "stdin"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFrom past the limit: %v", err)
	}
}

func TestCheckNesting(t *testing.T) {
	deep := "x = " + strings.Repeat("(", MaxNesting+1) + "1" + strings.Repeat(")", MaxNesting+1) + "\n"
	d := CheckNesting([]byte(deep), "f")
	if d == nil || d.Subject.Start.Line != 1 || d.Subject.Start.Column != 5+MaxNesting {
		t.Errorf("deep parentheses: %v", d)
	}
	lists := "a = 1\n# (((((\nx = " + strings.Repeat("[", MaxNesting+1)
	if d := CheckNesting([]byte(lists), "f"); d == nil || d.Subject.Start.Line != 3 {
		t.Errorf("deep lists: %v", d)
	}
	// Brackets in text, comments and balanced code do not count.
	fine := `x = "` + strings.Repeat("(", 1000) + `"` + "\n/* " + strings.Repeat("[", 1000) + " */\n" +
		strings.Repeat("y = [[[1]]]\n", 1000) + `z = "${(((1)))} \"(((( "` + "\n"
	if d := CheckNesting([]byte(fine), "f"); d != nil {
		t.Errorf("a spec within the limits: %v", d)
	}
	// Interpolations nest like code.
	interp := `x = "${` + strings.Repeat("(", MaxNesting+1) + "1" + strings.Repeat(")", MaxNesting+1) + `}"`
	if d := CheckNesting([]byte(interp), "f"); d == nil {
		t.Error("deep parentheses inside an interpolation were not seen")
	}
}
