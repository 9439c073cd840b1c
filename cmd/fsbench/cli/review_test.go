package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
)

// snippetCommands returns the fsbench command lines of the CI snippets in
// docs/review.md (its yaml blocks), with the forges' variables filled in.
func snippetCommands(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile("../../../docs/review.md")
	if err != nil {
		t.Fatal(err)
	}
	vars := strings.NewReplacer(`"$GITHUB_BASE_REF"`, "main", `"origin/$GITHUB_BASE_REF"`, "origin/main",
		`"origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"`, "origin/main")
	cmd := regexp.MustCompile(`\bfsbench ([a-z]+ [^|;>&\n]*)`)
	var out [][]string
	inYAML := false
	for _, line := range strings.Split(string(b), "\n") {
		switch strings.TrimSpace(line) {
		case "```yaml":
			inYAML = true
			continue
		case "```":
			inYAML = false
		}
		if !inYAML || strings.Contains(line, "go install") {
			continue
		}
		if m := cmd.FindStringSubmatch(line); m != nil {
			out = append(out, strings.Fields(vars.Replace(m[1])))
		}
	}
	if len(out) < 6 {
		t.Fatalf("found %d fsbench commands in the snippets: %q", len(out), out)
	}
	return out
}

var workflowCommand = regexp.MustCompile(`^::(error|warning) file=[^,:\r\n]*,line=[0-9]+,col=[0-9]+,endLine=[0-9]+,endColumn=[0-9]+,title=[^,:\r\n]*::[^\r\n]*$`)

// The commands of the CI snippets run, in a repository with a base branch,
// on a good and on a broken spec, and their output is what the forges
// read: GitHub's workflow command syntax and GitLab's code quality report.
func TestCISnippets(t *testing.T) {
	testenv.Tool(t, "git")
	commands := snippetCommands(t)
	repo := t.TempDir()
	t.Chdir(repo)
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", args...)
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	good := "image \"disk\" {\n  size = \"64MiB\"\n  partition \"root\" {\n    size = \"32MiB\"\n    root = true\n    filesystem {\n      type = \"ext4\"\n    }\n  }\n}\n"
	bad := strings.Replace(good, `type = "ext4"`, `type = "ext5"`, 1)
	os.WriteFile("board.fsb.hcl", []byte(good), 0o644)
	git("init", "-q")
	git("add", "board.fsb.hcl")
	git("commit", "-q", "-m", "base")
	git("update-ref", "refs/remotes/origin/main", "HEAD")
	run := func(args []string) (int, string) {
		var stdout, stderr strings.Builder
		code := Main(args, strings.NewReader(""), &stdout, &stderr, nil)
		return code, stdout.String()
	}
	for _, args := range commands {
		code, out := run(args)
		switch {
		case args[0] == "validate" && contains(args, "github"):
			if code != ExitOK || out != "" {
				t.Errorf("%v on a good spec: exit %d, %q", args, code, out)
			}
		case args[0] == "validate" && contains(args, "gitlab"):
			var issues []any
			if code != ExitOK || json.Unmarshal([]byte(out), &issues) != nil || len(issues) != 0 {
				t.Errorf("%v on a good spec: exit %d, %q", args, code, out)
			}
		case code != ExitOK:
			t.Errorf("%v on a good spec: exit %d", args, code)
		}
	}
	os.WriteFile("board.fsb.hcl", []byte(bad), 0o644)
	for _, args := range commands {
		code, out := run(args)
		if args[0] != "validate" {
			continue
		}
		if code != ExitInvalid {
			t.Errorf("%v on a broken spec: exit %d", args, code)
		}
		if contains(args, "github") {
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if !workflowCommand.MatchString(l) || !strings.Contains(l, "file=board.fsb.hcl,line=7,") {
					t.Errorf("not a workflow command on line 7: %q", l)
				}
			}
		}
		if contains(args, "gitlab") {
			var issues []struct {
				Description, CheckName, Fingerprint, Severity string
				Location                                      struct {
					Path  string
					Lines struct{ Begin int }
				}
			}
			if err := json.Unmarshal([]byte(out), &issues); err != nil || len(issues) != 1 || issues[0].Location.Path != "board.fsb.hcl" ||
				issues[0].Location.Lines.Begin != 7 || issues[0].Severity != "major" || issues[0].Fingerprint == "" {
				t.Errorf("code quality report %v: %s", err, out)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
