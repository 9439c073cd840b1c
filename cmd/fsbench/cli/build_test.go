package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
)

// The build digests the inputs while it builds the filesystems; the
// manifest must still carry the fingerprint `fsbench plan` gives, and it
// must change with an input's content.
func TestBuildManifestHasThePlansFingerprint(t *testing.T) {
	testenv.Tool(t, "mke2fs")
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.fsb.hcl")
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("spec.fsb.hcl", `image "sd" {
  table = "gpt"
  size  = "64MiB"
  partition "root" {
    size = "32MiB"
    root = true
    filesystem {
      type = "ext4"
    }
    contents {
      dir = "tree"
      file "/etc/motd" {
        source = "motd.txt"
      }
    }
  }
}
`)
	if err := os.MkdirAll(filepath.Join(dir, "tree", "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("tree/etc/hostname", "board\n")
	fromPlan := func() string {
		t.Helper()
		var stdout, stderr strings.Builder
		if code := Main([]string{"plan", spec}, strings.NewReader(""), &stdout, &stderr, nil); code != ExitOK {
			t.Fatalf("plan: exit %d\n%s", code, stderr.String())
		}
		m := regexp.MustCompile(`(?m)^fingerprint: sha256:([0-9a-f]{64})$`).FindStringSubmatch(stdout.String())
		if m == nil {
			t.Fatalf("no fingerprint in:\n%s", stdout.String())
		}
		return m[1]
	}
	fromBuild := func() string {
		t.Helper()
		out := filepath.Join(dir, "out")
		var stdout, stderr strings.Builder
		if code := Main([]string{"build", "-o", out, spec}, strings.NewReader(""), &stdout, &stderr, nil); code != ExitOK {
			t.Fatalf("build: exit %d\n%s", code, stderr.String())
		}
		b, err := os.ReadFile(filepath.Join(out, "default", "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m struct{ Fingerprint string }
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m.Fingerprint
	}
	var seen []string
	for _, motd := range []string{"hello\n", "hello, again\n"} {
		write("motd.txt", motd)
		p, b := fromPlan(), fromBuild()
		if p != b {
			t.Errorf("the manifest's fingerprint is %q, the plan's %q", b, p)
		}
		seen = append(seen, b)
	}
	if seen[0] == seen[1] {
		t.Errorf("a changed input kept the fingerprint %s", seen[0])
	}
}
