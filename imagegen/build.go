package imagegen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/plan"
)

// Options are the inputs of a build besides the plan.
type Options struct {
	// OutDir receives one directory per variant.
	OutDir string
	// SpecDir is the directory the plan's relative paths count from.
	SpecDir string
	// Epoch is SOURCE_DATE_EPOCH: every timestamp in the images.
	Epoch int64
	// Jobs bounds how many filesystems are built at once; 0 = one per CPU.
	Jobs int
	// Log receives progress and diagnostics; nil discards them.
	Log *logrus.Logger
	// Compress lists formats ("zst", "xz") to write beside each image.
	Compress []string
	// FullSHA256 also hashes each whole image, holes included: seconds per
	// GiB that the block map's digest does not need.
	FullSHA256 bool
	// Runner is the fsbench-runner binary for the board's architecture;
	// "" looks for one (payload.FindRunner).
	Runner string
	// HelperRunner is the runner for the build host's architecture, the
	// /init of helper boots (nilfs2 contents); "" takes Runner when the
	// board has the host's architecture, else looks for one.
	HelperRunner string
	// NoPayload builds without the runner even when the spec has tests.
	NoPayload bool
	// CacheDir keeps downloaded Debian packages (the busybox userland);
	// "" is DefaultCacheDir().
	CacheDir string
}

func (o Options) cacheDir() string {
	if o.CacheDir != "" {
		return o.CacheDir
	}
	return DefaultCacheDir()
}

// DefaultCacheDir is $FSBENCH_CACHE, else fsbench/ in the user's cache
// directory ($XDG_CACHE_HOME or ~/.cache).
func DefaultCacheDir() string {
	if d := os.Getenv("FSBENCH_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "fsbench")
	}
	return filepath.Join(os.TempDir(), "fsbench-cache")
}

// builder holds one variant's build.
type builder struct {
	opts   Options
	log    logrus.FieldLogger
	layers map[string][]string // partition name -> tarballs staged over its contents
	arch   string              // the board's
}

// Build makes every image of variant v in OutDir/<variant>/ and returns
// what it wrote. On error or cancellation nothing is left at a final path.
func Build(ctx context.Context, p *plan.Plan, v plan.Variant, opts Options) (*Manifest, error) {
	if opts.Log == nil {
		opts.Log = logrus.New()
		opts.Log.Out = io.Discard
	}
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.NumCPU()
	}
	b := &builder{opts: opts, log: opts.Log.WithField("variant", v.Name), arch: v.Board.Arch}
	dir := filepath.Join(opts.OutDir, v.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// Work files live beside the outputs so that the final renames stay
	// on one filesystem.
	work, err := os.MkdirTemp(dir, ".work-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)

	m := newManifest(p, v, opts.Epoch)
	versions := make(chan map[string]string, 1)
	go func() { versions <- toolVersions(ctx, v) }() // while the builds run
	if b.layers, err = b.rootLayers(ctx, p, v, dir, work, m); err != nil {
		return nil, err
	}
	for _, img := range v.Images {
		im, err := b.image(ctx, img, dir, work)
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", img.Name, err)
		}
		m.Images = append(m.Images, *im)
	}
	m.Tools = <-versions
	if err := writeBootFiles(dir, v); err != nil {
		return nil, err
	}
	if err := writeJSONAtomic(filepath.Join(dir, "manifest.json"), m); err != nil {
		return nil, err
	}
	return m, nil
}

// image builds the filesystems of img in parallel, then assembles them.
func (b *builder) image(ctx context.Context, img plan.Image, dir, work string) (*ImageManifest, error) {
	built := make([]*builtFS, len(img.Partitions))
	errs := make([]error, len(img.Partitions))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, b.opts.Jobs)
	var wg sync.WaitGroup
	for i, p := range img.Partitions {
		if p.Filesystem == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			b.log.Infof("building %s filesystem of %s (%s)", p.Filesystem.Type, p.Name, img.Name)
			built[i], errs[i] = b.buildFilesystem(ctx, p, filepath.Join(work, img.Name, p.Name))
			if errs[i] != nil {
				errs[i] = fmt.Errorf("partition %s: %w", p.Name, errs[i])
				cancel() // one failure stops the others
			}
		}()
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, err
	}
	b.log.Infof("assembling %s", img.File)
	return b.assemble(ctx, img, built, dir)
}

// firstError prefers a real failure over the cancellations it caused.
func firstError(errs []error) error {
	var canceled error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled):
			canceled = err
		default:
			return err
		}
	}
	return canceled
}
