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

	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/diag"
	"github.com/fsbench/fsbench/spec"
)

// collectInputs digests every file the spec reads, so that the
// fingerprint changes when any of them does. A directory is digested as a
// tree: each entry's relative path, type, mode, owner and content (or
// link target), in sorted order.
func collectInputs(s *spec.Spec) ([]Input, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	seen := map[string]bool{}
	var inputs []Input
	add := func(role, p string, at hcl.Range, digest func(string) (string, error)) {
		key := role + "\x00" + p
		if seen[key] || p == "" {
			return
		}
		seen[key] = true
		full := p
		if !filepath.IsAbs(p) {
			full = filepath.Join(s.Dir, p)
		}
		sum, err := digest(full)
		if err != nil {
			diags = append(diags, diag.Errorf(at, "Cannot read input", err.Error()))
			return
		}
		inputs = append(inputs, Input{Role: role, Path: p, SHA256: sum})
	}
	for i, name := range append([]string{s.Filename}, s.VarFiles...) {
		role := "var-file"
		if i == 0 {
			role = "spec"
		}
		sum := sha256.Sum256(s.Sources[name])
		inputs = append(inputs, Input{Role: role, Path: filepath.Base(name), SHA256: hex.EncodeToString(sum[:])})
	}
	for _, v := range s.Variants {
		for _, img := range v.Images {
			for _, r := range img.Raw {
				add("raw", r.File, r.Of("file"), fileDigest)
			}
			for _, p := range img.Partitions {
				add("partition-image", p.ImageFile, p.Of("image"), fileDigest)
				if ct := p.Contents; ct != nil {
					add("contents-dir", ct.Dir, ct.Of("dir"), treeDigest)
					add("contents-tar", ct.Tar, ct.Of("tar"), fileDigest)
					for _, f := range ct.Files {
						add("file", f.Source, f.Of("source"), fileDigest)
					}
				}
			}
		}
	}
	return inputs, diags
}

func fileDigest(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func treeDigest(root string) (string, error) {
	// The spec may name the tree through a symlink; walk what it points to.
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	h := sha256.New()
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
		fmt.Fprintf(h, "%s\x00%o\x00%d:%d\x00", filepath.ToSlash(rel), info.Mode(), uid, gid)
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s\x00", target)
		case info.Mode().IsRegular():
			sum, err := fileDigest(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s\x00", sum)
		}
		return nil
	})
	if err != nil {
		return "", err
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
