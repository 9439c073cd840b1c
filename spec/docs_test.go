package spec

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/fsbench/fsbench/spec/hclfmt"
)

// Every HCL snippet of the documentation parses, and is written the way
// `fsbench fmt` writes it: a reader copies them.
func TestDocSnippetsParse(t *testing.T) {
	docs, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, "../README.md", "../buildroot-pkg/README.md", "../meta-fsbench/README.md")
	n := 0
	for _, path := range docs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range hclSnippets(b) {
			n++
			_, diags := hclsyntax.ParseConfig(s.src, path, hcl.Pos{Line: s.line, Column: 1})
			if diags.HasErrors() {
				t.Errorf("%s:%d: the HCL snippet does not parse: %v", path, s.line, diags)
				continue
			}
			if f, _ := hclfmt.Format(s.src, path); !bytes.Equal(f, s.src) {
				t.Errorf("%s:%d: the HCL snippet is not formatted as fsbench fmt writes it:\n%s", path, s.line, hclfmt.Diff(path, s.src, f))
			}
		}
	}
	if n < 10 {
		t.Errorf("found %d HCL snippets in the documentation; the fences are ```hcl", n)
	}
}

type snippet struct {
	src    []byte
	line   int    // of the snippet's first line
	indent string // of the fence, taken off every line (a snippet in a list item)
}

// hclSnippets returns the ```hcl fenced blocks of a Markdown file.
func hclSnippets(md []byte) []snippet {
	var out []snippet
	var cur *snippet
	for i, line := range strings.SplitAfter(string(md), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && trimmed == "```hcl":
			cur = &snippet{line: i + 2, indent: line[:strings.Index(line, "`")]}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.src = append(cur.src, strings.TrimPrefix(line, cur.indent)...)
		}
	}
	return out
}
