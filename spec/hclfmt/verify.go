package hclfmt

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// sameTokens reports an error unless a and b differ only in ways Format is
// allowed to change: whitespace between tokens, the number of consecutive
// newlines (never down to zero between two tokens), and trailing whitespace
// inside comments.
func sameTokens(a, b []byte) error {
	sa, sb := signature(a), signature(b)
	for i := range min(len(sa), len(sb)) {
		if sa[i] != sb[i] {
			return fmt.Errorf("token %d: %q became %q", i, sa[i], sb[i])
		}
	}
	if len(sa) != len(sb) {
		return fmt.Errorf("token count: %d became %d", len(sa), len(sb))
	}
	return nil
}

// signature lists the meaningful tokens of src as strings. A run of line
// breaks counts once, leading and trailing line breaks not at all, and a
// heredoc counts as one token holding its exact source bytes.
func signature(src []byte) []string {
	toks, _ := hclsyntax.LexConfig(src, "", hcl.InitialPos)
	var sig []string
	lineEnded := true // at the start of the file, like after a newline
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		text := string(tok.Bytes)
		switch tok.Type {
		case hclsyntax.TokenNewline:
			if lineEnded {
				continue
			}
			text = "\n"
		case hclsyntax.TokenEOF:
			continue
		case hclsyntax.TokenComment:
			text = string(trimLineEnds(tok.Bytes))
		case hclsyntax.TokenOHeredoc:
			j := heredocEnd(toks, i)
			text = string(src[tok.Range.Start.Byte:toks[j].Range.End.Byte])
			i = j
		}
		sig = append(sig, tok.Type.String()+" "+text)
		lineEnded = text != "" && text[len(text)-1] == '\n'
	}
	return trimTrailingNewlines(sig)
}

// trimTrailingNewlines drops the line breaks at the end of a signature, so
// a missing final newline does not count as a difference.
func trimTrailingNewlines(sig []string) []string {
	nl := hclsyntax.TokenNewline.String() + " \n"
	for len(sig) > 0 && sig[len(sig)-1] == nl {
		sig = sig[:len(sig)-1]
	}
	return sig
}
