package imagegen

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fsbench/fsbench/imagegen/payload"
	"github.com/fsbench/fsbench/imagegen/userland"
	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/plan"
)

// PayloadManifest records what the build added to the root filesystem.
type PayloadManifest struct {
	Runner       string `json:"runner"` // the binary's file name
	RunnerSHA256 string `json:"runner_sha256"`
	Steps        int    `json:"steps"`
	Overlay      string `json:"overlay"` // directory beside the image
	Tarball      string `json:"tarball"`
}

// UserlandManifest records the userland the build assembled.
type UserlandManifest struct {
	Kind    string `json:"kind"`    // "busybox"
	Package string `json:"package"` // Debian package it came from, name:arch=version
	// ToolPackages are the Debian packages (name:arch=version) of the
	// programs the tests run on the target and of their libraries;
	// Programs says where each program is.
	ToolPackages []string          `json:"tool_packages,omitempty"`
	Programs     map[string]string `json:"programs,omitempty"`
}

// rootLayers prepares the tarballs staged into the root partition: the
// userland its contents ask for (with the programs the tests run on the
// target), then the runner payload when the variant has tests. It writes
// the payload's overlay directory and tarball beside the images, for
// build systems that assemble their own root filesystem.
func (b *builder) rootLayers(ctx context.Context, p *plan.Plan, v plan.Variant, dir, work string, m *Manifest) (map[string][]string, error) {
	layers := map[string][]string{}
	root := rootPartition(v)
	userlandTar := ""
	if root != nil && root.Filesystem != nil && root.Filesystem.Contents != nil && root.Filesystem.Contents.Userland != "" {
		bb, err := userland.FetchBusybox(ctx, b.log, b.opts.cacheDir(), v.Board.Arch)
		if err != nil {
			return nil, err
		}
		tarPath := filepath.Join(work, "userland.tar")
		err = atomicfile.WriteFunc(tarPath, 0o644, func(w io.Writer) error {
			return bb.WriteTar(w, userland.Options{Console: v.Board.Console, Hostname: "fsbench",
				RootFlags: root.Filesystem.VFSFlags, Epoch: b.opts.Epoch})
		})
		if err != nil {
			return nil, fmt.Errorf("busybox userland: %w", err)
		}
		layers[root.UUID] = append(layers[root.UUID], tarPath)
		userlandTar = tarPath
		m.Userland = &UserlandManifest{Kind: "busybox", Package: bb.Package.String()}
		if len(v.Tests) > 0 {
			// Busybox has no checkers and no mkfs tools: the tests get
			// Debian's, staged over it.
			tools, err := b.toolsLayer(ctx, p, v, work, m.Userland)
			if err != nil {
				return nil, err
			}
			if tools != "" {
				layers[root.UUID] = append(layers[root.UUID], tools)
			}
		}
	}
	if len(v.Tests) == 0 || b.opts.NoPayload {
		return layers, nil
	}
	if root == nil || root.Filesystem == nil {
		return nil, fmt.Errorf("the tests need the runner in the root filesystem, but %s; build with -no-payload to leave the runner and the tests out",
			describeRoot(root))
	}
	// The runner's plan carries the fingerprint.
	if err := b.opts.sealed(); err != nil {
		return nil, err
	}
	rp, err := payload.Compile(p, &v)
	if err != nil {
		return nil, err
	}
	bin, err := payload.FindRunner(b.opts.Runner, v.Board.Arch)
	if err != nil {
		return nil, err
	}
	pl, err := payload.New(rp, bin)
	if err != nil {
		return nil, err
	}
	tarPath := filepath.Join(dir, "payload.tar")
	if err := pl.WriteTarFile(tarPath, b.opts.Epoch); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	overlay := filepath.Join(work, "payload")
	if err := pl.WriteDir(overlay, b.opts.Epoch); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	final := filepath.Join(dir, "payload")
	if err := os.RemoveAll(final); err != nil {
		return nil, err
	}
	if err := os.Rename(overlay, final); err != nil {
		return nil, err
	}
	sum, err := pathSHA256(bin)
	if err != nil {
		return nil, err
	}
	m.Payload = &PayloadManifest{Runner: filepath.Base(bin), RunnerSHA256: sum, Steps: len(rp.Steps),
		Overlay: "payload", Tarball: "payload.tar"}
	layers[root.UUID] = append(layers[root.UUID], tarPath)
	upd, err := b.updateLayer(ctx, v, rp, work, userlandTar)
	if err != nil {
		return nil, err
	}
	if upd != "" {
		layers[root.UUID] = append(layers[root.UUID], upd)
	}
	return layers, nil
}

func rootPartition(v plan.Variant) *plan.Partition {
	for _, img := range v.Images {
		for i := range img.Partitions {
			if img.Partitions[i].Root {
				return &img.Partitions[i]
			}
		}
	}
	return nil
}

func describeRoot(root *plan.Partition) string {
	if root == nil {
		return "no partition is marked root = true"
	}
	return fmt.Sprintf("the root partition %s is a prebuilt image", root.Name)
}

func pathSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return fileSHA256(f)
}
