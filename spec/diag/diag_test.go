package diag

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func rng(file string, line, col, byteOff, width int) hcl.Range {
	return hcl.Range{Filename: file,
		Start: hcl.Pos{Line: line, Column: col, Byte: byteOff},
		End:   hcl.Pos{Line: line, Column: col + width, Byte: byteOff + width}}
}

func TestWriteTextShowsLineAndMarker(t *testing.T) {
	src := []byte("image \"d\" {\n  size = \"ten\"\n}\n")
	d := Errorf(rng("a.fsb.hcl", 2, 10, 21, 5), "Invalid image size", "size: \"ten\" is not a size.")
	var b bytes.Buffer
	if err := WriteText(&b, hcl.Diagnostics{d}, Sources{"a.fsb.hcl": src}); err != nil {
		t.Fatal(err)
	}
	want := "a.fsb.hcl:2:10: error: Invalid image size\n" +
		" 2 |   size = \"ten\"\n" +
		"   |          ^^^^^\n" +
		"  size: \"ten\" is not a size.\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestSortAndDedupe(t *testing.T) {
	a := Errorf(rng("b.hcl", 1, 1, 0, 1), "A", "")
	b := Errorf(rng("a.hcl", 9, 1, 90, 1), "B", "")
	c := Errorf(rng("a.hcl", 2, 1, 10, 1), "C", "")
	w := Warnf(rng("a.hcl", 2, 1, 10, 1), "W", "")
	none := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "no position"}
	diags := Dedupe(hcl.Diagnostics{none, a, b, w, c, a})
	Sort(diags)
	var got []string
	for _, d := range diags {
		got = append(got, d.Summary)
	}
	if strings.Join(got, " ") != "C W B A no position" {
		t.Errorf("order = %v", got)
	}
}

func TestMergeVariantsNamesPartialProblems(t *testing.T) {
	everywhere := Errorf(rng("a.hcl", 1, 1, 0, 1), "Everywhere", "x.")
	some := Errorf(rng("a.hcl", 2, 1, 10, 1), "Some", "y.")
	out := MergeVariants([]string{"ext4", "xfs", "f2fs"}, []hcl.Diagnostics{
		{everywhere, some}, {everywhere}, {everywhere, some},
	})
	if len(out) != 2 {
		t.Fatalf("got %d diagnostics", len(out))
	}
	if out[0].Detail != "x." {
		t.Errorf("detail of a problem in every variant = %q", out[0].Detail)
	}
	if out[1].Detail != "y. (in variants ext4, f2fs)" {
		t.Errorf("detail of a partial problem = %q", out[1].Detail)
	}
}

func TestJSONDocument(t *testing.T) {
	var b bytes.Buffer
	diags := hcl.Diagnostics{Errorf(rng("a.hcl", 3, 4, 20, 2), "E", "d"), Warnf(rng("a.hcl", 1, 1, 0, 1), "W", "")}
	if err := WriteJSON(&b, diags); err != nil {
		t.Fatal(err)
	}
	var doc Document
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Format != JSONFormat || doc.Valid || doc.ErrorCount != 1 || doc.WarnCount != 1 {
		t.Errorf("document = %+v", doc)
	}
	if r := doc.Diagnostics[0].Range; r == nil || r.Start.Line != 3 || r.Start.Column != 4 || r.End.Byte != 22 {
		t.Errorf("range = %+v", r)
	}
	b.Reset()
	WriteJSON(&b, nil)
	if !strings.Contains(b.String(), `"diagnostics": []`) || !strings.Contains(b.String(), `"valid": true`) {
		t.Errorf("empty document = %s", b.String())
	}
}

func TestDidYouMean(t *testing.T) {
	if got := DidYouMean("imag", []string{"image", "board"}); got != ` Did you mean "image"?` {
		t.Errorf("got %q", got)
	}
	if got := DidYouMean("zzzz", []string{"image"}); got != "" {
		t.Errorf("got %q", got)
	}
}
