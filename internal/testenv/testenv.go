// Package testenv is how fsbench's tests say what they need of the
// machine: a program on PATH, a Debian package, root, the Debian mirror.
// Every need is said the same way, "needs WHAT (scripts/test.sh sets it
// up)", and a test that lacks one skips.
//
// With FSBENCH_REQUIRE_TOOLS=1 in the environment, as CI runs the suite,
// a missing need fails the test instead: a package left out of the
// install list then shows up as a failure, not as a test that quietly did
// not run. Skips for other reasons (-short, a property of the machine
// that no install changes) are the tests' own and stay skips.
//
// It links only the standard library, so tests on both sides can use it.
package testenv

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// RequireVar is the environment variable that turns a missing need into
// a failure.
const RequireVar = "FSBENCH_REQUIRE_TOOLS"

// Required reports whether missing needs fail tests rather than skip them.
func Required() bool {
	return os.Getenv(RequireVar) == "1"
}

// Need skips t with "needs WHAT (scripts/test.sh sets it up)" unless ok;
// under FSBENCH_REQUIRE_TOOLS=1 it fails t instead. WHAT names what a user
// would install or provide ("Debian's u-boot-qemu", "root").
func Need(t testing.TB, ok bool, what string) {
	t.Helper()
	if ok {
		return
	}
	msg := "needs " + what + " (scripts/test.sh sets it up)"
	if Required() {
		t.Fatalf("%s; %s=1 makes this a failure", msg, RequireVar)
	}
	t.Skip(msg)
}

// Missing is Need of something the caller found missing.
func Missing(t testing.TB, what string) {
	t.Helper()
	Need(t, false, what)
}

// Needf is Need with an explanation of what was found, such as the error
// of a failed download.
func Needf(t testing.TB, err error, what string) {
	t.Helper()
	if err == nil {
		return
	}
	Need(t, false, what+": "+err.Error())
}

// Tool returns the path of the program name, or skips (fails) t as Need
// does when it is not on PATH.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	Need(t, err == nil, name)
	return p
}

// Tools is Tool for several programs.
func Tools(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		Tool(t, n)
	}
}

// Root skips (fails) t unless the test runs as root; why says what needs
// it, e.g. "attaching loop devices".
func Root(t testing.TB, why string) {
	t.Helper()
	Need(t, os.Geteuid() == 0, "root for "+why)
}

// Run runs the program name with args and stdin, fails t when it fails
// (with its standard error), and returns its standard output. A program
// not on PATH is a missing need.
func Run(t testing.TB, stdin string, name string, args ...string) string {
	t.Helper()
	Tool(t, name)
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, errb.String())
	}
	return out.String()
}

// SparseFile returns the path of a new file of size zero bytes in a
// temporary directory of t, with no block written.
func SparseFile(t testing.TB, size int64) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "disk-*.img")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// CopyRange copies n bytes of the file src from off into a new file out,
// such as a partition out of a disk image for its checker, and returns
// out.
func CopyRange(t testing.TB, src string, off, n int64, out string) string {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := io.CopyN(w, io.NewSectionReader(f, off, n), n); err != nil {
		t.Fatalf("copying %d bytes of %s from %d: %v", n, src, off, err)
	}
	return out
}
