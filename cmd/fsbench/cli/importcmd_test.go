package cli

import (
	"strings"
	"testing"
)

// fsbench import tells the format from the path: a directory is
// systemd-repart's, a .wks or .wks.in file wic's, anything else
// genimage's; -format overrides it. The exit code says whether an option
// was left out (1) or the spec is the whole layout (0).
func TestImportFormatFromPath(t *testing.T) {
	for _, c := range []struct {
		args   []string
		code   int
		stdout string // the spec's first line
		stderr string
	}{
		{[]string{"import", "../../../importer/repart/testdata/fsbench-esp-root"}, ExitOK,
			"# Imported from fsbench-esp-root (repart)", "10-root.conf:2: note: Type="},
		{[]string{"import", "../../../importer/repart/testdata/systemd-sector"}, ExitInvalid,
			"# Imported from systemd-sector (repart)", "b.conf:3: error: Weight="},
		{[]string{"import", "../../../importer/wks/testdata/sdimage-bootpart.wks"}, ExitOK,
			"# Imported from sdimage-bootpart.wks (wks)", ""},
		{[]string{"import", "-format", "genimage", "../../../importer/repart/testdata/fsbench-esp-root"}, ExitIO,
			"", "fsbench import: read"},
		{[]string{"import", "-format", "kiwi", "x"}, ExitUsage, "", `-format "kiwi": one of genimage, repart, wks`},
	} {
		var stdout, stderr strings.Builder
		code := Main(c.args, strings.NewReader(""), &stdout, &stderr, nil)
		if code != c.code || !strings.HasPrefix(stdout.String(), c.stdout) || !strings.Contains(stderr.String(), c.stderr) {
			t.Errorf("fsbench %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(c.args, " "), code, c.code, stdout.String(), stderr.String())
		}
	}
}
