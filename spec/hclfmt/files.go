package hclfmt

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Files expands the paths given to `fsbench fmt` into the files to format.
//
// A path naming a file is taken as is, whatever its extension: the user
// asked for it. A directory contributes the *.hcl files directly inside it
// (which covers *.fsb.hcl), or, when recursive is true, those in its whole
// tree, skipping directories whose names start with "." (VCS and editor
// state). Directories such as testdata are not special.
//
// Each directory's files come sorted; the arguments keep their order, and a
// file reached twice is listed once, so the CLI never formats a file twice.
// Symbolic links to directories are not followed inside a tree.
func Files(paths []string, recursive bool) ([]string, error) {
	var out []string
	seen := make(map[string]bool)
	for _, p := range paths {
		found, err := expand(p, recursive)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			// Compare cleaned paths so "./a.hcl" and "a.hcl" count once.
			if key := filepath.Clean(f); !seen[key] {
				seen[key] = true
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// expand resolves one argument.
func expand(path string, recursive bool) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	if recursive {
		return walkTree(path)
	}
	return listDir(path)
}

// listDir returns the HCL files directly inside dir, sorted.
func listDir(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && isHCL(e.Name()) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// walkTree returns the HCL files under root in WalkDir's order: sorted
// component by component, so a directory's files stay together (as with
// gofmt -l) and the order never depends on the file system.
func walkTree(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// Never skip root itself: "." or an explicitly named hidden
			// directory is what the user asked for.
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if isHCL(d.Name()) {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walking %s: %w", root, err)
	}
	return out, nil
}

// isHCL reports whether name is a file fmt should visit; *.fsb.hcl files
// are a subset of *.hcl.
func isHCL(name string) bool {
	return strings.HasSuffix(name, ".hcl")
}
