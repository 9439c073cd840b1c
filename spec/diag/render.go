package diag

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Sources maps a file name to its bytes, so that text output can show the
// offending line. A diagnostic whose file is missing is printed without it.
type Sources map[string][]byte

// WriteText writes diagnostics the way compilers do:
//
//	board.fsb.hcl:12:12: error: Unsupported filesystem type
//	   12 |     type = "ext5"
//	      |            ^^^^^^
//	  "ext5" is not a filesystem fsbench knows. Did you mean "ext4"?
func WriteText(w io.Writer, diags hcl.Diagnostics, src Sources) error {
	var b bytes.Buffer
	for _, d := range diags {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		if d.Subject != nil {
			r := d.Subject
			fmt.Fprintf(&b, "%s:%d:%d: %s: %s\n", r.Filename, r.Start.Line, r.Start.Column, sev, d.Summary)
			writeSnippet(&b, *r, src[r.Filename])
		} else {
			fmt.Fprintf(&b, "%s: %s\n", sev, d.Summary)
		}
		if d.Detail != "" {
			for _, line := range strings.Split(d.Detail, "\n") {
				fmt.Fprintf(&b, "  %s\n", line)
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeSnippet(b *bytes.Buffer, r hcl.Range, src []byte) {
	if src == nil || r.Start.Line < 1 {
		return
	}
	lines := bytes.Split(src, []byte("\n"))
	if r.Start.Line > len(lines) {
		return
	}
	line := strings.TrimRight(string(lines[r.Start.Line-1]), "\r")
	num := fmt.Sprint(r.Start.Line)
	pad := strings.Repeat(" ", len(num))
	fmt.Fprintf(b, " %s | %s\n", num, expandTabs(line))
	// Columns count characters; the marker spans the subject on its first
	// line, or to the end of that line when the subject continues.
	start := r.Start.Column - 1
	width := r.End.Column - r.Start.Column
	if r.End.Line != r.Start.Line {
		width = len([]rune(line)) - start
	}
	if width < 1 {
		width = 1
	}
	prefix := []rune(line)
	if start > len(prefix) {
		start = len(prefix)
	}
	fmt.Fprintf(b, " %s | %s%s\n", pad, blankLike(string(prefix[:start])), strings.Repeat("^", width))
}

// blankLike keeps tabs so that the marker lines up under tab-indented code.
func blankLike(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' {
			return r
		}
		return ' '
	}, expandTabs(s))
}

func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "    ") }

// JSONFormat names the version of the JSON diagnostics document. Tools must
// check it; a change that breaks readers bumps the number.
const JSONFormat = "fsbench-diagnostics/1"

// Document is the JSON form of a validation run.
type Document struct {
	Format      string           `json:"format"`
	Valid       bool             `json:"valid"`
	ErrorCount  int              `json:"error_count"`
	WarnCount   int              `json:"warning_count"`
	Diagnostics []JSONDiagnostic `json:"diagnostics"`
}

// JSONDiagnostic is one diagnostic in a Document.
type JSONDiagnostic struct {
	Severity string     `json:"severity"`
	Summary  string     `json:"summary"`
	Detail   string     `json:"detail,omitempty"`
	Range    *JSONRange `json:"range,omitempty"`
}

// JSONRange locates a diagnostic; lines and columns count from 1, bytes
// from 0.
type JSONRange struct {
	Filename string  `json:"filename"`
	Start    JSONPos `json:"start"`
	End      JSONPos `json:"end"`
}

// JSONPos is one end of a JSONRange.
type JSONPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// NewDocument builds the JSON model of diags.
func NewDocument(diags hcl.Diagnostics) Document {
	doc := Document{Format: JSONFormat, Diagnostics: []JSONDiagnostic{}}
	for _, d := range diags {
		jd := JSONDiagnostic{Severity: "error", Summary: d.Summary, Detail: d.Detail}
		if d.Severity == hcl.DiagWarning {
			jd.Severity = "warning"
			doc.WarnCount++
		} else {
			doc.ErrorCount++
		}
		if r := d.Subject; r != nil {
			jd.Range = &JSONRange{
				Filename: r.Filename,
				Start:    JSONPos{r.Start.Line, r.Start.Column, r.Start.Byte},
				End:      JSONPos{r.End.Line, r.End.Column, r.End.Byte},
			}
		}
		doc.Diagnostics = append(doc.Diagnostics, jd)
	}
	doc.Valid = doc.ErrorCount == 0
	return doc
}

// WriteJSON writes diags as an indented Document.
func WriteJSON(w io.Writer, diags hcl.Diagnostics) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(NewDocument(diags))
}
