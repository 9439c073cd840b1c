package genimage

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsbench/fsbench/importer"
)

// maxIncludeDepth bounds nested include(), as libconfuse does.
const maxIncludeDepth = 10

// reader parses a configuration and the files it includes. Included
// files are read relative to the including file and must lie in root, the
// directory of the file imported.
type reader struct {
	root  string
	depth int
	seen  map[string]bool
}

// parseFile reads the configuration at path.
func parseFile(path string) (*section, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	r := &reader{root: filepath.Dir(abs), seen: map[string]bool{}}
	src, err := os.ReadFile(abs)
	if err != nil {
		return nil, err
	}
	top := &section{at: importer.Pos{File: filepath.Base(path), Line: 1}}
	return top, r.parse(top, string(src), filepath.Base(path), filepath.Dir(abs))
}

type parser struct {
	r      *reader
	l      *lexer
	dir    string
	peeked *token
}

func (p *parser) next() (token, error) {
	if p.peeked != nil {
		t := *p.peeked
		p.peeked = nil
		return t, nil
	}
	return p.l.next()
}

func (p *parser) peek() (token, error) {
	if p.peeked == nil {
		t, err := p.l.next()
		if err != nil {
			return t, err
		}
		p.peeked = &t
	}
	return *p.peeked, nil
}

// parse reads src (named name, in dir) into sec.
func (r *reader) parse(sec *section, src, name, dir string) error {
	p := &parser{r: r, l: &lexer{src: src, file: name, line: 1}, dir: dir}
	return p.body(sec, true)
}

// body reads options and sections up to the closing brace, or the end of
// the file at the top.
func (p *parser) body(sec *section, top bool) error {
	for {
		t, err := p.next()
		if err != nil {
			return err
		}
		switch {
		case t.kind == tEOF && top:
			return nil
		case t.kind == tEOF:
			return importer.Error(sec.at, fmt.Sprintf("section %s is not closed", sec.name))
		case t.kind == tPunct && t.text == "}" && !top:
			return nil
		case t.kind != tString:
			return importer.Error(t.at, fmt.Sprintf("unexpected %q", t.text))
		}
		name, ok := t.val.plain()
		if !ok {
			return importer.Error(t.at, "a name made of an environment variable")
		}
		if err := p.item(sec, name, t.at); err != nil {
			return err
		}
	}
}

// item reads what follows a name: an option, an include, or a section.
func (p *parser) item(sec *section, name string, at importer.Pos) error {
	t, err := p.next()
	if err != nil {
		return err
	}
	switch {
	case t.kind == tPunct && (t.text == "=" || t.text == "+="):
		o := &option{name: name, at: at}
		if err := p.optionValue(o); err != nil {
			return err
		}
		sec.opts = append(sec.opts, o)
		return nil
	case t.kind == tPunct && t.text == "(":
		return p.call(sec, name, at)
	case t.kind == tPunct && t.text == "{":
		s := &section{name: name, at: at}
		sec.secs = append(sec.secs, s)
		return p.body(s, false)
	case t.kind == tString:
		title, _ := t.val.plain()
		if !isPlain(t.val) {
			return importer.Error(t.at, "a section title made of an environment variable")
		}
		if b, err := p.next(); err != nil {
			return err
		} else if b.kind != tPunct || b.text != "{" {
			return importer.Error(b.at, fmt.Sprintf("section %s %s: { expected", name, title))
		}
		s := &section{name: name, title: title, at: at}
		sec.secs = append(sec.secs, s)
		return p.body(s, false)
	}
	return importer.Error(t.at, fmt.Sprintf("%s: = or { expected", name))
}

func isPlain(v value) bool { _, ok := v.plain(); return ok }

// optionValue reads a value or a { list }.
func (p *parser) optionValue(o *option) error {
	t, err := p.next()
	if err != nil {
		return err
	}
	if t.kind == tString {
		o.values = []value{t.val}
		return nil
	}
	if t.kind != tPunct || t.text != "{" {
		return importer.Error(t.at, fmt.Sprintf("%s: a value expected", o.name))
	}
	o.list = true
	for {
		t, err := p.next()
		if err != nil {
			return err
		}
		switch {
		case t.kind == tPunct && t.text == "}":
			return nil
		case t.kind == tPunct && t.text == ",":
		case t.kind == tString:
			o.values = append(o.values, t.val)
		default:
			return importer.Error(t.at, fmt.Sprintf("%s: a list holds strings, not %q", o.name, t.text))
		}
	}
}

// call reads include("file"), the only function genimage defines, and
// parses the file into sec.
func (p *parser) call(sec *section, name string, at importer.Pos) error {
	var args []value
	for {
		t, err := p.next()
		if err != nil {
			return err
		}
		if t.kind == tPunct && t.text == ")" {
			break
		}
		if t.kind == tString {
			args = append(args, t.val)
		} else if t.kind != tPunct || t.text != "," {
			return importer.Error(t.at, fmt.Sprintf("%s(): unexpected %q", name, t.text))
		}
	}
	if name != "include" {
		return importer.Error(at, fmt.Sprintf("%s(): genimage has no such function", name))
	}
	if len(args) != 1 {
		return importer.Error(at, "include() takes one file")
	}
	file, ok := args[0].plain()
	if !ok {
		return importer.Error(at, "include(): a file named by an environment variable; import the file it names")
	}
	return p.include(sec, file, at)
}

// include parses an included file in place, refusing one outside the
// imported file's directory, one included twice in a chain, and nesting
// deeper than libconfuse's.
func (p *parser) include(sec *section, file string, at importer.Pos) error {
	full := file
	if !filepath.IsAbs(full) {
		full = filepath.Join(p.dir, file)
	}
	full = filepath.Clean(full)
	if rel, err := filepath.Rel(p.r.root, full); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return importer.Error(at, fmt.Sprintf("include(%q): the file lies outside %s, the directory of the file imported", file, p.r.root))
	}
	if p.r.depth >= maxIncludeDepth || p.r.seen[full] {
		return importer.Error(at, fmt.Sprintf("include(%q): includes nest too deep or include themselves", file))
	}
	src, err := os.ReadFile(full)
	if err != nil {
		return importer.Error(at, fmt.Sprintf("include(%q): %v", file, err))
	}
	p.r.depth++
	p.r.seen[full] = true
	defer func() { p.r.depth--; delete(p.r.seen, full) }()
	rel, _ := filepath.Rel(p.r.root, full)
	return p.r.parse(sec, string(src), filepath.ToSlash(rel), filepath.Dir(full))
}
