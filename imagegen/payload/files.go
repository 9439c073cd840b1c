package payload

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/wire/runplan"
)

// File is one entry of the payload, at an absolute path in the root
// filesystem. Exactly one of Source, Data and Link is used; a directory
// has none.
type File struct {
	Path   string
	Mode   os.FileMode // permission bits; os.ModeDir or os.ModeSymlink for those
	Source string      // a host file to copy (the runner binary)
	Data   []byte
	Link   string
}

// Payload is the set of files for one variant.
type Payload struct {
	Plan  *runplan.Plan
	Files []File
}

// Hook names, by init system.
const (
	SysVHook    = runplan.SysVHook
	SystemdUnit = runplan.SystemdUnit
)

// New assembles the payload of a compiled plan with the runner binary at
// runner (built for the board's architecture), laid out as
// runplan.PayloadLayout says.
func New(rp *runplan.Plan, runner string) (*Payload, error) {
	var planJSON bytes.Buffer
	if err := rp.Encode(&planJSON); err != nil {
		return nil, err
	}
	dirs, paths := runplan.PayloadLayout(rp.Board.Init)
	var files []File
	for _, p := range paths {
		switch {
		case p == runplan.RunnerPath:
			files = append(files, File{Path: p, Mode: 0o755, Source: runner})
		case p == runplan.PlanPath:
			files = append(files, File{Path: p, Mode: 0o644, Data: planJSON.Bytes()})
		case p == SysVHook:
			files = append(files, File{Path: p, Mode: 0o755, Data: []byte(sysvHook)})
		case p == SystemdUnit:
			files = append(files, File{Path: p, Mode: 0o644, Data: []byte(systemdUnit)})
		case strings.HasPrefix(p, "/etc/rc"):
			files = append(files, File{Path: p, Mode: os.ModeSymlink, Link: "../init.d/S99fsbench"})
		case strings.HasSuffix(p, ".wants/fsbench.service"):
			files = append(files, File{Path: p, Mode: os.ModeSymlink, Link: "../fsbench.service"})
		default:
			return nil, fmt.Errorf("payload: no content for %s", p)
		}
	}
	for _, d := range dirs {
		files = append(files, File{Path: d, Mode: os.ModeDir | 0o755})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return &Payload{Plan: rp, Files: files}, nil
}

// The hook is the last start script: it marks the end of the boot in the
// kernel log (boot_time's end on the target's clock; the login prompt
// follows at once) and starts the runner in the background.
const sysvHook = `#!/bin/sh
# Started by fsbench: runs the image's test plan (/etc/fsbench/plan.json)
# once per boot, resuming where the previous boot stopped.
case "$1" in
start)
	echo "<5>fsbench-runner: userspace ready" >/dev/kmsg
	/usr/bin/fsbench-runner run </dev/null >/dev/console 2>&1 &
	;;
stop|restart|reload)
	;;
esac
exit 0
`

const systemdUnit = `[Unit]
Description=fsbench test plan (/etc/fsbench/plan.json)
After=local-fs.target getty.target

[Service]
Type=simple
ExecStartPre=/bin/sh -c 'echo "<5>fsbench-runner: userspace ready" >/dev/kmsg'
ExecStart=/usr/bin/fsbench-runner run
StandardOutput=tty
StandardError=tty
TTYPath=/dev/console

[Install]
WantedBy=multi-user.target
`

// WriteTar writes the payload as a tar archive with owners 0:0 and every
// mtime at epoch, so the same inputs give the same bytes.
func (p *Payload) WriteTar(w io.Writer, epoch int64) error {
	tw := tar.NewWriter(w)
	mtime := time.Unix(epoch, 0)
	for _, f := range p.Files {
		h := &tar.Header{
			Name: strings.TrimPrefix(f.Path, "/"), Mode: int64(f.Mode.Perm()), ModTime: mtime,
			Uname: "root", Gname: "root", Format: tar.FormatPAX,
		}
		var body io.Reader
		switch {
		case f.Mode&os.ModeDir != 0:
			h.Typeflag, h.Name = tar.TypeDir, h.Name+"/"
		case f.Mode&os.ModeSymlink != 0:
			h.Typeflag, h.Linkname, h.Mode = tar.TypeSymlink, f.Link, 0o777
		case f.Source != "":
			src, err := os.Open(f.Source)
			if err != nil {
				return err
			}
			defer src.Close()
			fi, err := src.Stat()
			if err != nil {
				return err
			}
			h.Typeflag, h.Size, body = tar.TypeReg, fi.Size(), src
		default:
			h.Typeflag, h.Size, body = tar.TypeReg, int64(len(f.Data)), bytes.NewReader(f.Data)
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if body != nil {
			if n, err := io.Copy(tw, body); err != nil {
				return err
			} else if n != h.Size {
				return fmt.Errorf("%s changed while it was read", f.Source)
			}
		}
	}
	return tw.Close()
}

// WriteTarFile writes the tarball atomically at path.
func (p *Payload) WriteTarFile(path string, epoch int64) error {
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := p.WriteTar(f, epoch); err != nil {
		return err
	}
	return f.Commit()
}

// WriteDir writes the payload as an overlay directory at dir (replacing
// it), for a build system to copy into its root filesystem.
func (p *Payload) WriteDir(dir string, epoch int64) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	mtime := time.Unix(epoch, 0)
	var dirs []string
	for _, f := range p.Files {
		dst := filepath.Join(dir, filepath.FromSlash(path.Clean(f.Path)))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		switch {
		case f.Mode&os.ModeDir != 0:
			if err := os.MkdirAll(dst, f.Mode.Perm()); err != nil {
				return err
			}
			dirs = append(dirs, dst)
			continue
		case f.Mode&os.ModeSymlink != 0:
			if err := os.Symlink(f.Link, dst); err != nil {
				return err
			}
			continue
		case f.Source != "":
			b, err := os.ReadFile(f.Source)
			if err != nil {
				return err
			}
			if err := os.WriteFile(dst, b, f.Mode.Perm()); err != nil {
				return err
			}
		default:
			if err := os.WriteFile(dst, f.Data, f.Mode.Perm()); err != nil {
				return err
			}
		}
		if err := os.Chmod(dst, f.Mode.Perm()); err != nil {
			return err
		}
		if err := os.Chtimes(dst, mtime, mtime); err != nil {
			return err
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Chtimes(dirs[i], mtime, mtime)
	}
	return nil
}
