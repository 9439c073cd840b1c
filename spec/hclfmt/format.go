package hclfmt

import (
	"bytes"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/fsbench/fsbench/internal/srcfile"
)

// Format returns src in canonical layout: hclwrite.Format's indentation and
// alignment, LF line endings, no trailing whitespace, no runs of blank
// lines, no blank lines just inside braces, and exactly one final newline.
//
// filename only labels diagnostics. A file that does not parse is not
// formatted: the result is nil and the diagnostics point into src as given.
// Format is idempotent: Format(Format(x)) == Format(x).
func Format(src []byte, filename string) ([]byte, hcl.Diagnostics) {
	// Parse before touching anything: hclwrite.Format happily reshuffles
	// broken input, and we must never "fix" a file we do not understand.
	// Nesting the parser cannot recurse through is refused first.
	if d := srcfile.CheckNesting(src, filename); d != nil {
		return nil, hcl.Diagnostics{d}
	}
	_, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}

	in := toLF(src)
	out := tidy(hclwrite.Format(in))

	// Belt and braces for the package's first rule: if a bug anywhere in the
	// pipeline altered a token, hand back an error instead of the damage.
	if err := sameTokens(in, out); err != nil {
		return nil, append(diags, internalError(filename, err))
	}
	return out, diags
}

// toLF converts CRLF line endings to LF. It runs on raw bytes, heredoc
// bodies included, because a file with mixed endings would be worse than
// either; lone CRs are left alone since they are not line endings in HCL.
func toLF(src []byte) []byte {
	return bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
}

// internalError reports a formatter bug against the whole file, so the CLI
// prints it like any other diagnostic and leaves the file untouched.
func internalError(filename string, err error) *hcl.Diagnostic {
	start := hcl.InitialPos
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Formatter bug: refusing to change the file",
		Detail:   "Formatting would have changed more than whitespace (" + err.Error() + "). Please report this with the file attached.",
		Subject:  &hcl.Range{Filename: filename, Start: start, End: start},
	}
}
