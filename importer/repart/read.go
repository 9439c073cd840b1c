package repart

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/importer"
)

// definition is one *.conf file: its assignments in the order they
// stand, and the line of its [Partition] header.
type definition struct {
	file    string // the file's name, as repart sorts and reports it
	header  importer.Pos
	entries []entry // the file's, then its drop-ins'
	dropIns []string
}

// entry is one KEY=VALUE line of the [Partition] section.
type entry struct {
	at         importer.Pos
	key, value string
}

// readDir reads the *.conf files of a repart.d directory in the order
// systemd-repart takes them: conf_files_list_strv sorts them by file
// name, and CONF_FILES_FILTER_MASKED leaves out a file that is empty or
// a symlink to /dev/null (repart.c, context_read_definitions). Masked
// files come back as notes.
func readDir(dir string) (defs []*definition, masked []string, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".conf") && !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		if t, _ := filepath.EvalSymlinks(path); t == "/dev/null" || len(strings.TrimSpace(string(src))) == 0 {
			masked = append(masked, name)
			continue
		}
		d, err := parse(name, string(src))
		if err != nil {
			return nil, nil, err
		}
		if err := readDropIns(dir, d); err != nil {
			return nil, nil, err
		}
		defs = append(defs, d)
	}
	return defs, masked, nil
}

// parse reads one file as systemd's config_parse does: # and ; start
// comments, a line ending in a backslash goes on on the next, [Section]
// opens a section, KEY=VALUE has its white space trimmed. Lines of other
// sections are kept with an empty key so that they can be reported.
func parse(name, src string) (*definition, error) {
	d := &definition{file: name, header: importer.Pos{File: name, Line: 1}}
	section, cont := "", ""
	contLine := 0
	for i, line := range strings.Split(src, "\n") {
		at := importer.Pos{File: name, Line: i + 1}
		if cont != "" {
			line, at.Line = cont+line, contLine
		}
		if t := strings.TrimRight(line, " \t\r"); strings.HasSuffix(t, "\\") {
			if cont == "" {
				contLine = i + 1
			}
			cont = strings.TrimSuffix(t, "\\") + " "
			continue
		}
		cont = ""
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			if !strings.HasSuffix(line, "]") {
				return nil, importer.Error(at, fmt.Sprintf("%q: a section header ends with ]", line))
			}
			section = line[1 : len(line)-1]
			if section == "Partition" {
				d.header = at
			}
		default:
			key, value, ok := strings.Cut(line, "=")
			if !ok {
				return nil, importer.Error(at, fmt.Sprintf("%q is no KEY=VALUE assignment; systemd-repart refuses the file too", line))
			}
			key, value = strings.TrimSpace(key), strings.TrimSpace(value)
			if section != "Partition" {
				key = "[" + section + "] " + key
			}
			d.entries = append(d.entries, entry{at: at, key: key, value: value})
		}
	}
	return d, nil
}

// readDropIns adds the assignments of NAME.conf.d/*.conf after the
// file's, in the order of the drop-ins' names, as config_parse_many
// reads them (partition_read_definition): a later assignment overrides
// an earlier one.
func readDropIns(dir string, d *definition) error {
	files, err := filepath.Glob(filepath.Join(dir, d.file+".d", "*.conf"))
	if err != nil || len(files) == 0 {
		return err
	}
	slices.Sort(files)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		name := d.file + ".d/" + filepath.Base(f)
		in, err := parse(name, string(src))
		if err != nil {
			return err
		}
		d.entries = append(d.entries, in.entries...)
		d.dropIns = append(d.dropIns, name)
	}
	return nil
}
