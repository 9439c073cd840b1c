package diag

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// The forges' own annotation formats, so that a merge request shows each
// problem on its line. Both render the model NewDocument builds.

// WriteGitHub writes diags as GitHub Actions workflow commands, one line
// each: ::error file=F,line=L,col=C,endLine=..,endColumn=..,title=T::MESSAGE.
// Values are escaped as the runner unescapes them (%, CR and LF; in the
// properties also : and ,), so no diagnostic can start another command.
func WriteGitHub(w io.Writer, diags hcl.Diagnostics) error {
	var b strings.Builder
	for _, d := range NewDocument(diags).Diagnostics {
		cmd := "error"
		if d.Severity == "warning" {
			cmd = "warning"
		}
		var props []string
		if r := d.Range; r != nil {
			props = append(props, "file="+ghProperty(r.Filename),
				fmt.Sprintf("line=%d", r.Start.Line), fmt.Sprintf("col=%d", r.Start.Column),
				fmt.Sprintf("endLine=%d", r.End.Line), fmt.Sprintf("endColumn=%d", r.End.Column))
		}
		props = append(props, "title="+ghProperty(d.Summary))
		msg := d.Summary
		if d.Detail != "" {
			msg += ": " + d.Detail
		}
		fmt.Fprintf(&b, "::%s %s::%s\n", cmd, strings.Join(props, ","), ghData(msg))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// CodeQualityIssue is one entry of a GitLab code quality report.
type CodeQualityIssue struct {
	Description string              `json:"description"`
	CheckName   string              `json:"check_name"`
	Fingerprint string              `json:"fingerprint"`
	Severity    string              `json:"severity"` // info, minor, major, critical or blocker
	Location    CodeQualityLocation `json:"location"`
}

// CodeQualityLocation places an issue: a path and its first line.
type CodeQualityLocation struct {
	Path  string           `json:"path"`
	Lines CodeQualityLines `json:"lines"`
}

// CodeQualityLines is the line range of a location.
type CodeQualityLines struct {
	Begin int `json:"begin"`
	End   int `json:"end,omitempty"`
}

// WriteGitLab writes diags as a GitLab code quality report (a JSON array
// for artifacts:reports:codequality): errors are "major", warnings
// "minor", and each has a fingerprint of its place and text, stable
// across runs.
func WriteGitLab(w io.Writer, diags hcl.Diagnostics) error {
	issues := []CodeQualityIssue{}
	for _, d := range NewDocument(diags).Diagnostics {
		is := CodeQualityIssue{Description: d.Summary, CheckName: "fsbench: " + d.Summary, Severity: "major"}
		if d.Detail != "" {
			is.Description += ": " + d.Detail
		}
		if d.Severity == "warning" {
			is.Severity = "minor"
		}
		is.Location.Lines.Begin = 1
		if r := d.Range; r != nil {
			is.Location = CodeQualityLocation{Path: r.Filename, Lines: CodeQualityLines{Begin: max(r.Start.Line, 1), End: r.End.Line}}
		}
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%s", is.Location.Path, is.Location.Lines.Begin, is.Description)))
		is.Fingerprint = hex.EncodeToString(sum[:])
		issues = append(issues, is)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(issues)
}
