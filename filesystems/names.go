package filesystems

import (
	"fmt"
	"slices"
	"strings"
)

// NameRules are the file names a type's populate step cannot keep as
// they are: it refuses them, leaves the entry out or stores another name.
// The zero value keeps every name Linux allows.
type NameRules struct {
	// Forbidden are characters no name may hold.
	Forbidden string
	// NoControl forbids the characters below U+0020 as well.
	NoControl bool
	// NonBMP: names are stored as UCS-2 (FAT long names), so characters
	// past U+FFFF cannot be kept.
	NonBMP bool
	// NoLeading and NoTrailing are characters a name may not start or
	// end with.
	NoLeading, NoTrailing string
	// Reserved are names the tool refuses or reads as something else,
	// compared without case when FoldCase.
	Reserved []string
	// FoldCase: names that differ only in case are one name, so a
	// directory cannot hold both.
	FoldCase bool
	// Why explains the rules in an error message.
	Why string
}

// NameProblem says why t cannot keep a file or directory called name
// ("holds \"?\""), or "" when it can.
func (t *Type) NameProblem(name string) string {
	n := t.Names
	for _, r := range name {
		switch {
		case strings.ContainsRune(n.Forbidden, r):
			return fmt.Sprintf("holds %q", string(r))
		case n.NoControl && r < 0x20:
			return fmt.Sprintf("holds the control character %U", r)
		case n.NonBMP && r > 0xffff:
			return fmt.Sprintf("holds %q, past U+FFFF", string(r))
		}
	}
	switch {
	case name == "":
	case strings.ContainsAny(name[:1], n.NoLeading):
		return fmt.Sprintf("starts with %q", name[:1])
	case strings.ContainsAny(name[len(name)-1:], n.NoTrailing):
		return fmt.Sprintf("ends with %q", name[len(name)-1:])
	case slices.ContainsFunc(n.Reserved, func(r string) bool { return t.SameName(r, name) }):
		return "is a reserved name"
	}
	return ""
}

// NameKey is the form in which t compares name with the others of its
// directory: two names with one key are one entry.
func (t *Type) NameKey(name string) string {
	if t.Names.FoldCase {
		return strings.ToUpper(strings.ToLower(name))
	}
	return name
}

// SameName tells whether t stores a and b as one name.
func (t *Type) SameName(a, b string) bool { return t.NameKey(a) == t.NameKey(b) }

// checkNames reports the spec's own file paths (contents file blocks)
// the type cannot keep: a name it refuses, or, where case does not count,
// a file whose path names another entry differently. Two directories
// that differ only in case are one directory, which holds both's files.
func (b *build) checkNames() {
	type entry struct {
		path string
		dir  bool
	}
	seen := map[string]entry{} // an entry's NameKey -> as first written
	for i, p := range b.s.Files {
		parts := strings.Split(strings.Trim(p, "/"), "/")
		isDir := strings.HasSuffix(p, "/")
		p = strings.TrimSuffix(p, "/")
		for j, name := range parts {
			if why := b.t.NameProblem(name); why != "" {
				b.problem("files", i, b.t.Name+" cannot keep the file name",
					"%s: the name %q %s, and %s. Rename it", p, name, why, b.t.Names.Why)
				break
			}
			e := entry{"/" + strings.Join(parts[:j+1], "/"), j < len(parts)-1 || isDir}
			key := b.t.NameKey(e.path)
			first, ok := seen[key]
			if !ok {
				seen[key] = e
				continue
			}
			if first.path != e.path && !(first.dir && e.dir) {
				b.problem("files", i, b.t.Name+" names differ only in case",
					"%s and %s name one entry: %s compares names without case. Rename one of them", e.path, first.path, b.t.Name)
				break
			}
		}
	}
}
