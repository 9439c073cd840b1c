package wks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsbench/fsbench/importer"
)

// command is one line of a kickstart file: its words as shlex.split
// cuts them, and where it stands.
type command struct {
	at    importer.Pos
	words []string
}

// readFile reads a kickstart file and the files it includes (relative to
// it, inside its directory), as wic's ksparser does: one command a line,
// # comments.
func readFile(path string) ([]command, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return readLines(abs, filepath.Base(path), filepath.Dir(abs), 0)
}

func readLines(abs, name, root string, depth int) ([]command, error) {
	src, err := os.ReadFile(abs)
	if err != nil {
		return nil, err
	}
	var out []command
	for i, line := range strings.Split(string(src), "\n") {
		at := importer.Pos{File: name, Line: i + 1}
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		words, err := split(line)
		if err != nil {
			return nil, importer.Error(at, err.Error())
		}
		if words[0] != "include" {
			out = append(out, command{at: at, words: words})
			continue
		}
		if len(words) != 2 || depth >= 10 {
			return nil, importer.Error(at, "include takes one file, 10 levels deep at most")
		}
		inc := filepath.Clean(filepath.Join(filepath.Dir(abs), words[1]))
		if rel, err := filepath.Rel(root, inc); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, importer.Error(at, fmt.Sprintf("include %s: the file lies outside %s, the directory of the file imported (wic looks it up in its canned-wks paths: copy it beside)", words[1], root))
		}
		rel, _ := filepath.Rel(root, inc)
		more, err := readLines(inc, filepath.ToSlash(rel), root, depth+1)
		if err != nil {
			return nil, importer.Error(at, fmt.Sprintf("include %s: %v", words[1], err))
		}
		out = append(out, more...)
	}
	return out, nil
}

// split cuts a line into words as Python's shlex.split does in POSIX
// mode: white space separates, quotes group, a backslash escapes outside
// single quotes.
func split(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("a quote is not closed")
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.ContainsRune("\\\"$`", rune(line[i+1])) {
					i++
				}
				cur.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, fmt.Errorf("a quote is not closed")
			}
			inWord = true
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// options reads --name=value, --name value and flags into a map, the
// positional words apart. flags are the options that take no value.
func options(c command, flags map[string]bool) (map[string]string, []string, error) {
	opts := map[string]string{}
	var pos []string
	for i := 1; i < len(c.words); i++ {
		w := c.words[i]
		if !strings.HasPrefix(w, "--") {
			pos = append(pos, w)
			continue
		}
		name, val, hasVal := strings.Cut(w[2:], "=")
		if flags[name] {
			opts[name] = "true"
			continue
		}
		if !hasVal && (name == "exclude-path" || name == "include-path") {
			// nargs='+': the words up to the next option
			for i+1 < len(c.words) && !strings.HasPrefix(c.words[i+1], "--") {
				i++
				val = strings.TrimSpace(val + " " + c.words[i])
			}
			opts[name] = val
			continue
		}
		if !hasVal {
			if i+1 >= len(c.words) {
				return nil, nil, importer.Error(c.at, "--"+name+" needs a value")
			}
			i++
			val = c.words[i]
		}
		opts[name] = val
	}
	return opts, pos, nil
}
