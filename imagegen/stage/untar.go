package stage

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// tarExtract are GNU tar's options for writing the tree in the session.
// tar believes it is root there, which already implies --same-owner and
// --same-permissions; they are spelt out so that nothing depends on it.
// --numeric-owner: the archive's user names mean nothing on the build host.
// No --xattrs: the archives carry none (see setXattrs).
var tarExtract = []string{
	"--extract", "--file=-", "--numeric-owner", "--same-owner", "--same-permissions",
}

// untar streams the archive that produce writes into GNU tar running in
// the session, which creates the entries under t.Root.
func (t *Tree) untar(ctx context.Context, produce func(*writer) error, m *manifest) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := t.Command(ctx, append([]string{"tar", "--directory=" + t.Root}, tarExtract...), nil)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// StdinPipe rather than an io.Pipe: when tar dies, writes fail with
	// EPIPE instead of blocking.
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return fmt.Errorf("stage: tar: %w", err)
	}
	tw := tar.NewWriter(stdin)
	perr := produce(&writer{tw: tw, m: m})
	if perr == nil {
		perr = tw.Close()
	}
	broken := errors.Is(perr, syscall.EPIPE)
	if perr != nil && !broken {
		// Our refusal: tar must not finish half an archive.
		cancel()
	}
	stdin.Close()
	werr := cmd.Wait()
	switch {
	case perr != nil && !broken:
		return perr
	case werr != nil && ctx.Err() != nil:
		return ctx.Err()
	case werr != nil:
		return fmt.Errorf("stage: tar --extract: %v\n%s", werr, strings.TrimSpace(out.String()))
	}
	return perr
}
