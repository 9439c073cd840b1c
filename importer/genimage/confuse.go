package genimage

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/importer"
)

// genimage reads its configuration with libconfuse: sections
// `name [title] { ... }`, options `name = value` or `name = { v, ... }`,
// strings unquoted, "double-quoted" (escapes, ${ENV} expanded) or
// 'single-quoted', comments #, // and /* */, and include("file").
// This file is a reader of that syntax, which keeps every value's line.

// section is a block: the file itself, image, hdimage, partition, ...
type section struct {
	name, title string
	at          importer.Pos
	opts        []*option
	secs        []*section
}

// option is one `name = value` or `name = { values }`.
type option struct {
	name   string
	at     importer.Pos
	values []value
	list   bool
}

// value is a string as written, cut into literal text and environment
// references (${NAME}, ${NAME:-default}), which genimage expands when it
// reads the file.
type value struct {
	at   importer.Pos
	segs []seg
}

// seg is literal text, or an environment variable with its default.
type seg struct {
	lit        string
	env, deflt string
	hasDefault bool
}

// plain is the value without environment references, and whether it has
// none.
func (v value) plain() (string, bool) {
	var b strings.Builder
	for _, s := range v.segs {
		if s.env != "" {
			return "", false
		}
		b.WriteString(s.lit)
	}
	return b.String(), true
}

func (v value) String() string {
	var b strings.Builder
	for _, s := range v.segs {
		if s.env != "" {
			b.WriteString("${" + s.env + "}")
			continue
		}
		b.WriteString(s.lit)
	}
	return b.String()
}

// token kinds of the lexer.
const (
	tEOF = iota
	tString
	tPunct // one of { } ( ) = + ,
)

type token struct {
	kind int
	text string // punctuation
	val  value  // strings
	at   importer.Pos
}

type lexer struct {
	src  string
	pos  int
	file string
	line int
}

func (l *lexer) here() importer.Pos { return importer.Pos{File: l.file, Line: l.line} }

func (l *lexer) errorf(format string, args ...any) error {
	return importer.Error(l.here(), fmt.Sprintf(format, args...))
}

// next returns the next token, skipping white space and comments.
func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '\n':
			l.line++
			l.pos++
		case c == ' ' || c == '\t' || c == '\r':
			l.pos++
		case c == '#' || strings.HasPrefix(l.src[l.pos:], "//"):
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		case strings.HasPrefix(l.src[l.pos:], "/*"):
			end := strings.Index(l.src[l.pos+2:], "*/")
			if end < 0 {
				return token{}, l.errorf("a /* comment is not closed")
			}
			l.line += strings.Count(l.src[l.pos:l.pos+2+end], "\n")
			l.pos += end + 4
		case strings.HasPrefix(l.src[l.pos:], "+="):
			l.pos += 2
			return token{kind: tPunct, text: "+=", at: l.here()}, nil
		case strings.ContainsRune("{}()=,", rune(c)):
			l.pos++
			return token{kind: tPunct, text: string(c), at: l.here()}, nil
		case c == '"':
			return l.doubleQuoted()
		case c == '\'':
			return l.singleQuoted()
		case strings.HasPrefix(l.src[l.pos:], "${"):
			at := l.here()
			s, err := l.envRef()
			return token{kind: tString, val: value{at: at, segs: []seg{s}}, at: at}, err
		default:
			return l.unquoted()
		}
	}
	return token{kind: tEOF, at: l.here()}, nil
}

// unquoted reads a bare word: anything up to white space or one of
// #"'={}()+, and * or // (comments).
func (l *lexer) unquoted() (token, error) {
	at, start := l.here(), l.pos
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if strings.ContainsRune(" \t\r\n#\"'={}()+,*", rune(c)) || strings.HasPrefix(l.src[l.pos:], "//") {
			break
		}
		l.pos++
	}
	if l.pos == start {
		return token{}, l.errorf("unexpected character %q", l.src[l.pos])
	}
	return token{kind: tString, val: value{at: at, segs: []seg{{lit: l.src[start:l.pos]}}}, at: at}, nil
}

// envRef reads ${NAME} or ${NAME:-default} at the lexer's position.
func (l *lexer) envRef() (seg, error) {
	end := strings.IndexByte(l.src[l.pos:], '}')
	if end < 0 {
		return seg{}, l.errorf("${ without its }")
	}
	body := l.src[l.pos+2 : l.pos+end]
	l.pos += end + 1
	if strings.Contains(body, "\n") {
		return seg{}, l.errorf("an environment reference spans lines")
	}
	name, def, hasDef := strings.Cut(body, ":-")
	return seg{env: name, deflt: def, hasDefault: hasDef}, nil
}

// doubleQuoted reads "..." with libconfuse's escapes and ${ENV}
// references.
func (l *lexer) doubleQuoted() (token, error) {
	at := l.here()
	l.pos++ // the opening quote
	var segs []seg
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			segs = append(segs, seg{lit: lit.String()})
			lit.Reset()
		}
	}
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '"':
			l.pos++
			flush()
			if segs == nil {
				segs = []seg{{}}
			}
			return token{kind: tString, val: value{at: at, segs: segs}, at: at}, nil
		case strings.HasPrefix(l.src[l.pos:], "${"):
			flush()
			s, err := l.envRef()
			if err != nil {
				return token{}, err
			}
			segs = append(segs, s)
		case c == '\\':
			if err := l.escape(&lit); err != nil {
				return token{}, err
			}
		default:
			if c == '\n' {
				l.line++
			}
			lit.WriteByte(c)
			l.pos++
		}
	}
	return token{}, importer.Error(at, "a string is not closed")
}

// escape reads one backslash escape of a double-quoted string.
func (l *lexer) escape(b *strings.Builder) error {
	if l.pos+1 >= len(l.src) {
		return l.errorf("a backslash ends the file")
	}
	c := l.src[l.pos+1]
	l.pos += 2
	simple := map[byte]byte{'n': '\n', 'r': '\r', 'b': '\b', 'f': '\f', 'a': 7, 'e': 0x1b, 't': '\t', 'v': '\v'}
	switch {
	case c == '\n':
		l.line++ // a continued line
	case c >= '0' && c <= '7':
		n := 1
		for n < 3 && l.pos < len(l.src) && l.src[l.pos] >= '0' && l.src[l.pos] <= '7' {
			l.pos++
			n++
		}
		v, _ := strconv.ParseUint(l.src[l.pos-n:l.pos], 8, 16)
		if v > 0xff {
			return l.errorf("invalid octal escape \\%s", l.src[l.pos-n:l.pos])
		}
		b.WriteByte(byte(v))
	case c == 'x' && l.pos < len(l.src) && isHex(l.src[l.pos]):
		n := 1
		if l.pos+1 < len(l.src) && isHex(l.src[l.pos+1]) {
			n = 2
		}
		v, _ := strconv.ParseUint(l.src[l.pos:l.pos+n], 16, 8)
		l.pos += n
		b.WriteByte(byte(v))
	case simple[c] != 0:
		b.WriteByte(simple[c])
	default:
		b.WriteByte(c)
	}
	return nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// singleQuoted reads '...': no expansion, \\ and \' only.
func (l *lexer) singleQuoted() (token, error) {
	at := l.here()
	l.pos++
	var b strings.Builder
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '\'':
			l.pos++
			return token{kind: tString, val: value{at: at, segs: []seg{{lit: b.String()}}}, at: at}, nil
		case c == '\\' && l.pos+1 < len(l.src) && (l.src[l.pos+1] == '\\' || l.src[l.pos+1] == '\''):
			b.WriteByte(l.src[l.pos+1])
			l.pos += 2
		case c == '\\' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '\n':
			l.line++
			l.pos += 2
		default:
			if c == '\n' {
				l.line++
			}
			b.WriteByte(c)
			l.pos++
		}
	}
	return token{}, importer.Error(at, "a string is not closed")
}
