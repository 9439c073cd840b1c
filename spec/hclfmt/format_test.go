package hclfmt

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestFormatGolden formats every testdata/NAME.in.hcl and compares the
// result with testdata/NAME.golden.hcl. Run with -update after a deliberate
// change of style, then review the golden diffs like code.
func TestFormatGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.in.hcl"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no fixtures found (err=%v)", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".in.hcl")
		t.Run(name, func(t *testing.T) {
			got := mustFormat(t, in)
			golden := filepath.Join("testdata", name+".golden.hcl")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want := readFile(t, golden)
			if !bytes.Equal(got, want) {
				t.Errorf("Format(%s) differs from %s:\n%s", in, golden, Diff(name, want, got))
			}
		})
	}
}

// TestFormatIdempotent proves Format(Format(x)) == Format(x) over every
// file in testdata, golden files included (those must be fixed points
// outright). Files named *.bad.hcl must be rejected instead, so a fixture
// broken by accident cannot silently drop out of the check.
func TestFormatIdempotent(t *testing.T) {
	files, err := Files([]string{"testdata"}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			once, diags := Format(readFile(t, path), path)
			if strings.Contains(path, ".bad.") {
				if !diags.HasErrors() || once != nil {
					t.Fatalf("want rejection with nil output, got diags=%v out=%q", diags, once)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatalf("unexpected diagnostics: %v", diags)
			}
			twice, diags := Format(once, path)
			if diags.HasErrors() {
				t.Fatalf("formatted output does not parse: %v", diags)
			}
			if !bytes.Equal(once, twice) {
				t.Errorf("second Format changed the output:\n%s", Diff(path, once, twice))
			}
			if strings.HasSuffix(path, ".golden.hcl") && !bytes.Equal(once, readFile(t, path)) {
				t.Errorf("golden file is not canonical")
			}
		})
	}
}

// TestFormatSyntaxError checks that broken input is refused and that the
// diagnostic points at the right place, since the CLI prints it as
// file:line:col for the user to jump to.
func TestFormatSyntaxError(t *testing.T) {
	path := filepath.Join("testdata", "syntax_error.bad.hcl")
	out, diags := Format(readFile(t, path), path)
	if out != nil {
		t.Errorf("got output %q for invalid input, want nil", out)
	}
	if !diags.HasErrors() {
		t.Fatal("want an error diagnostic")
	}
	subj := diags[0].Subject
	if subj == nil {
		t.Fatalf("diagnostic %v has no source range", diags[0])
	}
	// `size = ` on line 3 has no value; the parser reports the newline that
	// ends the line, at column 10 (after "  size = ").
	if subj.Filename != path || subj.Start.Line != 3 || subj.Start.Column != 10 {
		t.Errorf("diagnostic at %s:%d:%d, want %s:3:10 (%v)",
			subj.Filename, subj.Start.Line, subj.Start.Column, path, diags[0])
	}
}

// TestFormatCRLF guards the CRLF fixture itself (a checkout with
// autocrlf could normalise it and make the golden test vacuous) and checks
// that no CR survives.
func TestFormatCRLF(t *testing.T) {
	path := filepath.Join("testdata", "crlf.in.hcl")
	if !bytes.Contains(readFile(t, path), []byte("\r\n")) {
		t.Fatalf("%s has lost its CRLF line endings; see testdata/.gitattributes", path)
	}
	if out := mustFormat(t, path); bytes.ContainsRune(out, '\r') {
		t.Errorf("output still contains CR:\n%q", out)
	}
}

// TestFormatKeepsHeredocs checks explicitly, beyond the golden file, that
// the whitespace rules never reach inside a heredoc: trailing spaces, runs
// of blank lines and blank lines next to braces are all string content.
func TestFormatKeepsHeredocs(t *testing.T) {
	out := mustFormat(t, filepath.Join("testdata", "heredoc.in.hcl"))
	for _, body := range []string{
		"#!/bin/sh   \n   set -e\n\n\n\nfio --name=seq   --rw=read ${var.size}   \n  {\n\n  }\nEOT\n",
		"      indented heredoc keeps its text   \n\n\n      }\n    NOTES\n",
	} {
		if !strings.Contains(string(out), body) {
			t.Errorf("heredoc body changed; want it to contain\n%q\ngot\n%s", body, out)
		}
	}
}

// TestFormatEmpty: an empty file stays empty rather than gaining a newline.
func TestFormatEmpty(t *testing.T) {
	for _, src := range []string{"", "\n", "\n\n  \n"} {
		out, diags := Format([]byte(src), "empty.hcl")
		if diags.HasErrors() || len(out) != 0 {
			t.Errorf("Format(%q) = %q, %v; want empty", src, out, diags)
		}
	}
}

// TestSameTokens checks the safety net Format relies on: whitespace-only
// changes pass, anything touching a value or a heredoc body does not.
func TestSameTokens(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"a=1\n\n\nb = 2", "a = 1\n\nb = 2\n", true},
		{"x {\n\n  a = 1 # c  \n\n}\n", "x {\n  a = 1 # c\n}\n", true},
		{"a = 1\n", "a = 2\n", false},
		{"a = 1\nb = 2\n", "a = 1 b = 2\n", false},
		{"a = \"x \"\n", "a = \"x\"\n", false},
		{"a = <<EOT\nx  \nEOT\n", "a = <<EOT\nx\nEOT\n", false},
	}
	for _, tt := range tests {
		err := sameTokens([]byte(tt.a), []byte(tt.b))
		if (err == nil) != tt.same {
			t.Errorf("sameTokens(%q, %q) = %v, want same=%v", tt.a, tt.b, err, tt.same)
		}
	}
}

func mustFormat(t *testing.T, path string) []byte {
	t.Helper()
	out, diags := Format(readFile(t, path), path)
	if diags.HasErrors() {
		t.Fatalf("Format(%s): %v", path, diags)
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
