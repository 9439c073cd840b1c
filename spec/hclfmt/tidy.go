package hclfmt

import (
	"bytes"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// tidy applies the canonical rules hclwrite.Format does not: it drops
// trailing whitespace and blank lines that carry no information, and ends
// the file with exactly one newline.
//
// It walks hclsyntax tokens rather than lines of text so that heredoc
// bodies, whose every byte is part of a string value, are copied verbatim.
// src must be lexically valid (Format parses before calling tidy).
func tidy(src []byte) []byte {
	toks, _ := hclsyntax.LexConfig(src, "", hcl.InitialPos)
	t := &tidier{src: src, atLineStart: true}
	for i := 0; i < len(toks); i++ {
		i = t.step(toks, i)
	}
	return t.out
}

// tidier holds the state of one tidy pass. Blank lines are not written when
// seen but remembered in blankPending, because whether one survives depends
// on the token that follows it (a closing brace, or the end of the file).
type tidier struct {
	src          []byte
	out          []byte
	end          int                 // byte offset where the previous token ended
	prev         hclsyntax.TokenType // last token written, newlines excluded
	atLineStart  bool
	blankPending bool
}

// step handles toks[i] and returns the index of the last token it consumed.
func (t *tidier) step(toks hclsyntax.Tokens, i int) int {
	tok := toks[i]
	gap := t.src[t.end:tok.Range.Start.Byte]
	switch tok.Type {
	case hclsyntax.TokenNewline:
		t.newline()
	case hclsyntax.TokenEOF:
		t.eof()
	case hclsyntax.TokenOHeredoc:
		// The whole heredoc, markers included, is one opaque unit.
		j := heredocEnd(toks, i)
		t.write(gap, t.src[tok.Range.Start.Byte:toks[j].Range.End.Byte], tok.Type)
		t.end = toks[j].Range.End.Byte
		return j
	case hclsyntax.TokenComment:
		t.write(gap, trimLineEnds(tok.Bytes), tok.Type)
	default:
		t.write(gap, tok.Bytes, tok.Type)
	}
	t.end = tok.Range.End.Byte
	return i
}

// newline ends the current line, dropping the whitespace before it; a
// newline at the start of a line is a blank line and is only remembered.
func (t *tidier) newline() {
	if t.atLineStart {
		t.blankPending = true
		return
	}
	t.out = append(t.out, '\n')
	t.atLineStart = true
}

// eof drops trailing whitespace and blank lines, then makes sure a
// non-empty file ends with exactly one newline.
func (t *tidier) eof() {
	t.blankPending = false
	if len(t.out) > 0 && !t.atLineStart {
		t.out = append(t.out, '\n')
	}
}

// write emits text, a token of type typ, with the whitespace gap that
// preceded it (indentation set by hclwrite.Format), after settling any
// pending blank line.
func (t *tidier) write(gap, text []byte, typ hclsyntax.TokenType) {
	t.flushBlank(typ)
	t.out = append(t.out, gap...)
	t.out = append(t.out, text...)
	t.prev = typ
	t.atLineStart = bytes.HasSuffix(text, []byte("\n"))
}

// flushBlank writes the one blank line a run of blank lines collapses to,
// unless it would sit at the top of the file, right after an opening brace
// or right before a closing one.
func (t *tidier) flushBlank(next hclsyntax.TokenType) {
	keep := t.blankPending && len(t.out) > 0 &&
		t.prev != hclsyntax.TokenOBrace && next != hclsyntax.TokenCBrace
	if keep {
		t.out = append(t.out, '\n')
	}
	t.blankPending = false
}

// heredocEnd returns the index of the TokenCHeredoc closing the heredoc
// opened at toks[i]. Heredocs can nest through interpolations, hence the
// depth count.
func heredocEnd(toks hclsyntax.Tokens, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j].Type {
		case hclsyntax.TokenOHeredoc:
			depth++
		case hclsyntax.TokenCHeredoc:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	// Unreachable for input that parsed; stay in bounds regardless.
	return len(toks) - 1
}

// trimLineEnds removes spaces and tabs before each newline of a comment and
// at its end. Comment text has no meaning, so this is always safe.
func trimLineEnds(text []byte) []byte {
	lines := bytes.SplitAfter(text, []byte("\n"))
	out := make([]byte, 0, len(text))
	for _, line := range lines {
		body, nl := bytes.CutSuffix(line, []byte("\n"))
		out = append(out, bytes.TrimRight(body, " \t")...)
		if nl {
			out = append(out, '\n')
		}
	}
	return out
}
