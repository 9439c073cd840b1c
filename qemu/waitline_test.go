package qemu

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func consoleVM(t *testing.T, text string) *VM {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.WriteString(text)
		w.Close()
	}()
	t.Cleanup(func() { r.Close() })
	return &VM{console: r}
}

func TestWaitLine(t *testing.T) {
	vm := consoleVM(t, "booting\r\n[ 1.0] fsbench-init: x\r\n[ 2.0] fsbench-populate: ok 12 entries 34 bytes\r\nlater\n")
	got, err := vm.WaitLine("fsbench-populate: ok", "fsbench-populate: failed")
	if err != nil || got != "fsbench-populate: ok 12 entries 34 bytes" {
		t.Errorf("WaitLine = %q, %v", got, err)
	}
	// A console that ends before any marker says so, with its last lines.
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	b.WriteString("Kernel panic - not syncing")
	_, err = consoleVM(t, b.String()).WaitLine("fsbench-populate: ok")
	if err == nil || !strings.Contains(err.Error(), "the console ended") ||
		!strings.Contains(err.Error(), "Kernel panic") || strings.Contains(err.Error(), "line 14\n") || !strings.Contains(err.Error(), "line 16\n") {
		t.Errorf("WaitLine on an ended console: %v", err)
	}
}
