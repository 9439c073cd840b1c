package readback

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
)

// ErrNeedsGuest is returned, wrapped in a *NeedsGuestError, for a
// filesystem that nothing on the host can read: no offline tool exists and
// the host kernel has no driver (f2fs, nilfs2).
var ErrNeedsGuest = errors.New("needs a VM")

// NeedsGuestError names the filesystem that needs a VM to be read.
type NeedsGuestError struct{ FS string }

func (e *NeedsGuestError) Error() string {
	return "reading " + e.FS + " needs a VM: no offline reader exists and the host kernel has no " + e.FS + " driver"
}

// Is makes errors.Is(err, ErrNeedsGuest) true.
func (e *NeedsGuestError) Is(target error) bool { return target == ErrNeedsGuest }

// ErrNeedsRoot is returned, wrapped in a *NeedsRootError, when reading a
// filesystem needs root: mounting it, or extracting it with its owners
// and device nodes.
var ErrNeedsRoot = errors.New("needs root")

// NeedsRootError names the filesystem and why it needs root.
type NeedsRootError struct{ FS, Why string }

func (e *NeedsRootError) Error() string { return "reading " + e.FS + " needs root: " + e.Why }

// Is makes errors.Is(err, ErrNeedsRoot) true.
func (e *NeedsRootError) Is(target error) bool { return target == ErrNeedsRoot }

// MissingToolError is a host tool that reading needs and that is not
// installed.
type MissingToolError struct{ FS, Tool string }

func (e *MissingToolError) Error() string {
	return "reading " + e.FS + " needs " + e.Tool + ", which is not installed"
}

// method is how a filesystem type is read.
type method struct {
	tools []string
	// root: what needs root, "" if nothing does.
	root  string
	mount bool
	guest bool
	read  func(ctx context.Context, fsType, image string) (Listing, error)
}

var mountTools = []string{"mount", "umount"}

// methodFor is how fsType is read, from its catalogue entry.
func methodFor(fsType string) (method, bool) {
	t, ok := filesystems.Lookup(fsType)
	if !ok {
		return method{}, false
	}
	switch rb := t.ReadBack; rb.Method {
	case filesystems.ReadDebugfs:
		return method{tools: []string{"debugfs"}, read: readExt}, true
	case filesystems.ReadUnsquashfs:
		return method{tools: []string{"unsquashfs"}, root: "unsquashfs keeps owners and device nodes only as root", read: readSquashfs}, true
	case filesystems.ReadMtools:
		return method{tools: []string{"mcopy"}, read: readVFAT}, true
	case filesystems.ReadMount:
		return method{tools: mountTools, root: "it is mounted", mount: true, read: mountReader(fsType, rb.MountOptions)}, true
	case filesystems.ReadInGuest:
		return method{guest: true}, true
	}
	return method{}, false
}

// Tools are the host tools that List needs for fsType.
func Tools(fsType string) []string {
	m, _ := methodFor(fsType)
	return append([]string(nil), m.tools...)
}

// Mounts reports whether List mounts fsType, which needs root.
func Mounts(fsType string) bool {
	m, _ := methodFor(fsType)
	return m.mount
}

// NeedsGuest reports whether only a VM can read fsType (List returns
// ErrNeedsGuest).
func NeedsGuest(fsType string) bool {
	m, _ := methodFor(fsType)
	return m.guest
}

// NeedsRoot reports whether List needs root for fsType: to mount it, or to
// extract it with its owners.
func NeedsRoot(fsType string) bool {
	m, _ := methodFor(fsType)
	return m.root != ""
}

// List reads the filesystem image at path image, of type fsType (the
// catalogue's names: ext2, ext3, ext4, vfat, btrfs, xfs, squashfs, erofs,
// f2fs, nilfs2), and returns its listing. It never writes to the image.
// Errors: *NeedsGuestError (ErrNeedsGuest) for f2fs and nilfs2,
// *NeedsRootError (ErrNeedsRoot) when not root where root is needed,
// *MissingToolError when a tool is not installed.
func List(ctx context.Context, fsType, image string) (Listing, error) {
	m, ok := methodFor(fsType)
	if !ok {
		return nil, fmt.Errorf("readback: unknown filesystem type %q", fsType)
	}
	if m.guest {
		return nil, &NeedsGuestError{FS: fsType}
	}
	for _, tool := range m.tools {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, &MissingToolError{FS: fsType, Tool: tool}
		}
	}
	if m.root != "" && os.Geteuid() != 0 {
		return nil, &NeedsRootError{FS: fsType, Why: m.root}
	}
	fi, err := os.Stat(image)
	if err != nil {
		return nil, fmt.Errorf("readback: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("readback: %s is not a regular file", image)
	}
	l, err := m.read(ctx, fsType, image)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("readback: reading %s image %s: %w", fsType, image, err)
	}
	return l, nil
}

// toolError is a tool that failed, with what it printed.
func toolError(argv []string, err error, out []byte) error {
	text := strings.TrimSpace(string(out))
	if len(text) > 2000 {
		text = "..." + text[len(text)-2000:]
	}
	return fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, text)
}

// runTool runs argv with extra environment and returns its standard
// output; a failure carries both outputs.
func runTool(ctx context.Context, env []string, stdin []byte, argv ...string) (stdout, stderr []byte, err error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		return o.Bytes(), e.Bytes(), toolError(argv, err, append(e.Bytes(), o.Bytes()...))
	}
	return o.Bytes(), e.Bytes(), nil
}
