package debpkg

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
)

// hostArch is the host's Debian architecture; the test is skipped on a
// host without apt-cache and dpkg.
func hostArch(t *testing.T) string {
	t.Helper()
	testenv.Tool(t, "apt-cache")
	out, err := exec.Command("dpkg", "--print-architecture").Output()
	if err != nil {
		testenv.Missing(t, "dpkg (Debian): "+err.Error())
	}
	return strings.TrimSpace(string(out))
}

func TestShowMany(t *testing.T) {
	da := hostArch(t)
	got, err := ShowMany(context.Background(), "", []string{"libc6:" + da, "fsbench-no-such-package:" + da, "zlib1g:" + da})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["libc6"]["Version"] == "" || got["zlib1g"]["Architecture"] != da {
		t.Errorf("ShowMany = %v", got)
	}
	if got, err := ShowMany(context.Background(), "", []string{"fsbench-no-such-package:" + da}); err != nil || len(got) != 0 {
		t.Errorf("an unknown package alone: %v, %v", got, err)
	}
}
