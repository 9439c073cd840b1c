// Package srcfile reads spec and variable files with the limits every
// reader of them applies: a regular file (a FIFO would block, /dev/zero
// never end) of at most MaxSize bytes, whose brackets nest at most
// MaxNesting deep (the HCL parser recurses per level, and 100,000 levels
// overflow its stack). It returns errors and located diagnostics; it never
// writes.
package srcfile

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"
)

// MaxSize bounds a spec or variable file: specs are a few kilobytes.
const MaxSize = 4 << 20

// MaxNesting bounds how deep brackets, braces and parentheses nest.
const MaxNesting = 128

// ErrTooLarge is a file over MaxSize.
var ErrTooLarge = errors.New("larger than the 4 MiB a spec or variable file may hold")

// Read reads the file at path, refusing anything but a regular file of at
// most MaxSize bytes.
func Read(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s); give a spec or variable file", path, kind(fi.Mode()))
	}
	if fi.Size() > MaxSize {
		return nil, fmt.Errorf("%s is %d bytes, %w", path, fi.Size(), ErrTooLarge)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadFrom(f, path)
}

// ReadFrom reads r (stdin, say) up to MaxSize bytes, and fails beyond.
func ReadFrom(r io.Reader, name string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxSize {
		return nil, fmt.Errorf("%s is %w", name, ErrTooLarge)
	}
	return b, nil
}

func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// CheckNesting returns a diagnostic at the first bracket that nests
// deeper than MaxNesting, or nil. It follows HCL's lexical structure well
// enough to skip comments and quoted text, counting the brackets of
// interpolations within quotes.
func CheckNesting(src []byte, filename string) *hcl.Diagnostic {
	depth := 0
	var quoted []int // depth at which each open string's interpolation began; -1 for text
	line, col := 1, 1
	for i := 0; i < len(src); i++ {
		c := src[i]
		next := byte(0)
		if i+1 < len(src) {
			next = src[i+1]
		}
		inText := len(quoted) > 0 && quoted[len(quoted)-1] < 0
		switch {
		case inText && c == '\\':
			i++
			col++
		case inText && c == '"':
			quoted = quoted[:len(quoted)-1]
		case inText && (c == '$' || c == '%') && next == '{':
			quoted[len(quoted)-1] = depth // an interpolation: code until its brace closes
			depth++
			i++
			col++
		case inText:
		case c == '"':
			quoted = append(quoted, -1)
		case c == '#' || (c == '/' && next == '/'):
			for i < len(src) && src[i] != '\n' {
				i++
			}
			line, col = line+1, 0
		case c == '/' && next == '*':
			for i += 2; i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/'); i++ {
				if src[i] == '\n' {
					line, col = line+1, 0
				}
			}
			i++
		case c == '(' || c == '[' || c == '{':
			depth++
			if depth > MaxNesting {
				pos := hcl.Pos{Line: line, Column: col, Byte: i}
				return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Nesting too deep",
					Detail:  fmt.Sprintf("Brackets, braces and parentheses nest more than %d deep here; a spec never needs that many.", MaxNesting),
					Subject: &hcl.Range{Filename: filename, Start: pos, End: hcl.Pos{Line: line, Column: col + 1, Byte: i + 1}}}
			}
		case c == ')' || c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
			if len(quoted) > 0 && quoted[len(quoted)-1] == depth {
				quoted[len(quoted)-1] = -1 // back in the string's text
			}
		}
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return nil
}
