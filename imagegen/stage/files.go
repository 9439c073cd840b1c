package stage

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
)

// addFiles writes the spec's single files, after the tarball or directory
// is in place. Their names were checked by Input.check. A file whose
// source is a directory places that directory's tree at its path.
func addFiles(ctx context.Context, w *writer, files []File) error {
	for _, f := range files {
		if f.Source != "" {
			if fi, err := os.Stat(f.Source); err == nil && fi.IsDir() {
				if err := addTree(ctx, w, f); err != nil {
					return fmt.Errorf("stage: file %q: %w", f.Path, err)
				}
				continue
			}
		}
		if err := addFile(w, f); err != nil {
			return fmt.Errorf("stage: file %q: %w", f.Path, err)
		}
	}
	return nil
}

// addTree places the directory f.Source at f.Path, as copyDir copies
// a contents dir: modes as on disk, owners 0:0. A file already at the
// path is refused; a directory there is merged into.
func addTree(ctx context.Context, w *writer, f File) error {
	name, err := cleanName(f.Path)
	if err != nil {
		return err
	}
	if k := w.m.paths[name].kind; k != kindNone && k != kindDir {
		return fmt.Errorf("the tree has a file at /%s, where the directory %s would go", name, f.Source)
	}
	return copyDirAt(ctx, w, f.Source, name)
}

func addFile(w *writer, f File) error {
	name, err := cleanName(f.Path)
	if err != nil {
		return err
	}
	if w.m.paths[name].kind == kindDir {
		return fmt.Errorf("the tree has a directory at /%s", name)
	}
	// A symlink or file already at name is replaced: tar unlinks it and
	// creates a new inode, so neither a symlink's target nor the other
	// names of a hard link change.
	h := &tar.Header{
		Typeflag: tar.TypeReg, Name: name, Mode: int64(f.Mode),
		Uid: f.UID, Gid: f.GID, ModTime: w.m.epoch,
	}
	var body io.Reader
	if f.Content != nil {
		h.Size, body = int64(len(*f.Content)), strings.NewReader(*f.Content)
	} else {
		src, err := os.Open(f.Source)
		if err != nil {
			return err
		}
		defer src.Close()
		fi, err := src.Stat()
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("source %s is not a regular file", f.Source)
		}
		h.Size, body = fi.Size(), src
	}
	return w.add(h, body)
}
