package debian

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

func TestShowMany(t *testing.T) {
	if _, err := exec.LookPath("apt-cache"); err != nil {
		t.Skip("needs apt-cache (Debian)")
	}
	out, err := exec.Command("dpkg", "--print-architecture").Output()
	if err != nil {
		t.Skipf("needs dpkg (Debian): %v", err)
	}
	da := strings.TrimSpace(string(out))
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
