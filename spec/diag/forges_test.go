package diag

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func hostileDiags() hcl.Diagnostics {
	r := hcl.Range{Filename: "dir/board,1:x.fsb.hcl", Start: hcl.Pos{Line: 3, Column: 5, Byte: 20}, End: hcl.Pos{Line: 3, Column: 9, Byte: 24}}
	return hcl.Diagnostics{
		Errorf(r, "Bad value", "line one\n::error::injected\r\n100% sure, a: b"),
		Warnf(r, "Careful, now: here", "detail"),
		{Severity: hcl.DiagError, Summary: "Without a place", Detail: "whole file"},
	}
}

// ghCommand is GitHub's documented workflow command syntax:
// ::name prop=value,prop=value::message, on one line.
var ghCommand = regexp.MustCompile(`^::(error|warning)( file=[^,:\r\n]*,line=[0-9]+,col=[0-9]+,endLine=[0-9]+,endColumn=[0-9]+,title=[^,:\r\n]*| title=[^,:\r\n]*)::[^\r\n]*$`)

func TestGitHubCommands(t *testing.T) {
	var b bytes.Buffer
	if err := WriteGitHub(&b, hostileDiags()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines for 3 diagnostics:\n%s", len(lines), b.String())
	}
	for _, l := range lines {
		if !ghCommand.MatchString(l) {
			t.Errorf("not a workflow command: %q", l)
		}
	}
	if !strings.Contains(lines[0], "file=dir/board%2C1%3Ax.fsb.hcl,line=3,col=5") ||
		!strings.Contains(lines[0], "line one%0A::error::injected%0D%0A100%25 sure") {
		t.Errorf("escaping: %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "::warning ") {
		t.Errorf("warning: %q", lines[1])
	}
}

func TestGitLabCodeQuality(t *testing.T) {
	var b bytes.Buffer
	if err := WriteGitLab(&b, hostileDiags()); err != nil {
		t.Fatal(err)
	}
	// The fields GitLab's code quality report requires, with their types.
	var issues []map[string]any
	if err := json.Unmarshal(b.Bytes(), &issues); err != nil || len(issues) != 3 {
		t.Fatalf("%d issues, %v:\n%s", len(issues), err, b.String())
	}
	fps := map[string]bool{}
	for _, is := range issues {
		for _, k := range []string{"description", "check_name", "fingerprint", "severity"} {
			if s, ok := is[k].(string); !ok || s == "" {
				t.Errorf("issue %v: %s missing", is, k)
			}
		}
		switch is["severity"] {
		case "info", "minor", "major", "critical", "blocker":
		default:
			t.Errorf("severity %v", is["severity"])
		}
		loc, _ := is["location"].(map[string]any)
		lines, _ := loc["lines"].(map[string]any)
		if _, ok := loc["path"].(string); !ok {
			t.Errorf("issue %v: no location.path", is)
		}
		if begin, ok := lines["begin"].(float64); !ok || begin < 1 {
			t.Errorf("issue %v: no location.lines.begin", is)
		}
		fp := is["fingerprint"].(string)
		if fps[fp] {
			t.Errorf("fingerprint %s twice", fp)
		}
		fps[fp] = true
	}
	if issues[0]["severity"] != "major" || issues[1]["severity"] != "minor" {
		t.Errorf("severities %v, %v", issues[0]["severity"], issues[1]["severity"])
	}
	var empty bytes.Buffer
	if WriteGitLab(&empty, nil); strings.TrimSpace(empty.String()) != "[]" {
		t.Errorf("no diagnostics: %q", empty.String())
	}
}
