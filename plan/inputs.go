package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/internal/digest"
	"github.com/fsbench/fsbench/spec"
	"github.com/fsbench/fsbench/spec/diag"
)

// collectInputs digests every file the spec reads, so that the
// fingerprint changes when any of them does. A directory is digested as a
// tree: each entry's relative path, type, mode, owner and content (or
// link target), in sorted order. Files that cache knows to be unchanged
// are not read again; cache may be nil.
func collectInputs(s *spec.Spec, cache *digest.Cache) ([]Input, hcl.Diagnostics) {
	var inputs []Input
	for i, name := range append([]string{s.Filename}, s.VarFiles...) {
		role := "var-file"
		if i == 0 {
			role = "spec"
		}
		sum := sha256.Sum256(s.Sources[name])
		inputs = append(inputs, Input{Role: role, Path: filepath.Base(name), SHA256: hex.EncodeToString(sum[:])})
	}
	for _, name := range s.Included {
		// As written from the spec's directory, which the plan does not
		// name: the fingerprint must not depend on where fsbench runs.
		rel, err := filepath.Rel(s.Dir, name)
		if err != nil {
			rel = filepath.Base(name)
		}
		sum := sha256.Sum256(s.Sources[name])
		inputs = append(inputs, Input{Role: "include", Path: filepath.ToSlash(rel), SHA256: hex.EncodeToString(sum[:])})
	}
	type job struct {
		in     Input
		at     hcl.Range
		digest func(string) (string, error)
		err    error
	}
	var jobs []*job
	seen := map[string]bool{}
	pending := map[string]bool{}
	for _, pd := range s.Pending {
		pending[pd.Path] = true
	}
	tree := func(root string) (string, error) { return treeDigest(root, cache) }
	add := func(role, p string, at hcl.Range, sum func(string) (string, error)) {
		key := role + "\x00" + p
		if seen[key] || p == "" {
			return
		}
		seen[key] = true
		if pending[p] {
			inputs = append(inputs, Input{Role: role, Path: p, Pending: true})
			return
		}
		jobs = append(jobs, &job{in: Input{Role: role, Path: p}, at: at, digest: sum})
	}
	for _, in := range s.Inputs() {
		sum := cache.File
		if in.Dir {
			sum = tree
		}
		add(in.Role, in.Path, in.At, sum)
	}
	// A kernel, a tarball and a tree are read at once: digesting is most
	// of what a build waits for before it starts.
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			full := j.in.Path
			if !filepath.IsAbs(full) {
				full = filepath.Join(s.Dir, full)
			}
			j.in.SHA256, j.err = j.digest(full)
		}()
	}
	wg.Wait()
	var diags hcl.Diagnostics
	for _, j := range jobs {
		if j.err != nil {
			diags = append(diags, diag.Errorf(j.at, "Cannot read input", j.err.Error()))
			continue
		}
		inputs = append(inputs, j.in)
	}
	return inputs, diags
}

func treeDigest(root string, cache *digest.Cache) (string, error) {
	// The spec may name the tree through a symlink; walk what it points to.
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	// The walk writes each entry's header and leaves a slot for a
	// regular file's digest, which a pool of workers fills.
	type entry struct {
		head string
		file string // host path of a regular file, "" otherwise
		sum  string
	}
	var entries []*entry
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		uid, gid := owner(info)
		e := &entry{head: fmt.Sprintf("%s\x00%o\x00%d:%d\x00", filepath.ToSlash(rel), info.Mode(), uid, gid)}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			e.sum = target
		case info.Mode().IsRegular():
			e.file = p
		}
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		return "", err
	}
	files := make(chan *entry)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e := range files {
				sum, err := cache.File(e.file)
				if err != nil {
					select {
					case errs <- err:
					default:
					}
					continue
				}
				e.sum = sum
			}
		}()
	}
	for _, e := range entries {
		if e.file != "" {
			files <- e
		}
	}
	close(files)
	wg.Wait()
	select {
	case err := <-errs:
		return "", err
	default:
	}
	h := sha256.New()
	for _, e := range entries {
		io.WriteString(h, e.head)
		if e.file != "" || e.sum != "" {
			fmt.Fprintf(h, "%s\x00", e.sum)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// fingerprint is the SHA-256 of the plan's JSON without its own
// fingerprint. encoding/json writes struct fields in declaration order and
// map keys sorted, so the same plan always gives the same bytes.
func fingerprint(p *Plan) (string, error) {
	c := *p
	c.Fingerprint = ""
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
