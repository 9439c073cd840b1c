package imagegen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/wire/arch"
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
	// Sealed, when the plan's inputs are still being digested
	// (plan.Plan.StartSeal), waits for them and reports their failure.
	// The build calls it before it reads the plan's Fingerprint: before
	// the runner's plan is compiled, else once the filesystems are built.
	// nil when the plan is sealed already.
	Sealed func() error

	// alwaysStage stages every contents directory, even one a type could
	// read in place: tests compare the two.
	alwaysStage bool
	// scratchParent is the tmpfs for the images being built (see
	// scratch); "" is defaultScratch. Tests give a directory on disk to
	// build without one.
	scratchParent string
}

func (o Options) scratch() string {
	if o.scratchParent != "" {
		return o.scratchParent
	}
	return defaultScratch
}

func (o Options) sealed() error {
	if o.Sealed == nil {
		return nil
	}
	return o.Sealed()
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
	opts    Options
	log     logrus.FieldLogger
	layers  map[string][]string // PARTUUID -> tarballs staged over the partition's contents
	arch    arch.Arch           // the board's
	scratch *scratch
	cleanup sync.WaitGroup // removals running in the background (later)
}

// later runs a removal in the background; Build waits for it before it
// returns.
func (b *builder) later(remove func()) { b.cleanup.Go(remove) }

// Build makes every image of variant v in OutDir/<variant>/ and returns
// what it wrote. On error or cancellation nothing is left at a final path.
func Build(ctx context.Context, p *plan.Plan, v plan.Variant, opts Options) (*Manifest, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	b := &builder{opts: opts, log: opts.Log.WithField("variant", v.Name), arch: v.Board.Arch}
	dir := filepath.Join(opts.OutDir, v.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// Work files (staged trees, the payload) live beside the outputs, on
	// a disk that has room for them; filesystem images go to the scratch
	// in memory when it has room for them.
	removeStaleOutputs(dir, b.log)
	work, err := os.MkdirTemp(dir, workPrefix+strconv.Itoa(os.Getpid())+"-")
	if err == nil {
		work, err = filepath.Abs(work)
	}
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	b.scratch = newScratch(opts.scratch())
	defer b.scratch.remove()
	defer b.cleanup.Wait() // before the two above

	m := newManifest(p, v, opts.Epoch)
	// While the filesystems are built: the tool versions, and the boot
	// files, which depend on the plan alone. The images, their block maps
	// and compressed copies, the boot files and the manifest are
	// committed together at the end, so that a failed build leaves none
	// of them and a good one waits for the disk once for all of them.
	versions := make(chan map[string]string, 1)
	go func() { versions <- toolVersions(ctx, v, opts.cacheDir()) }()
	type bootResult struct {
		files []*atomicfile.File
		err   error
	}
	boot := make(chan bootResult, 1)
	go func() {
		files, err := bootFiles(dir, v)
		boot <- bootResult{files, err}
	}()
	var pending []*atomicfile.File
	defer func() {
		bf := <-boot
		abortAll(bf.files) // after CommitAll, Abort does nothing
		abortAll(pending)
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := b.addLayers(ctx, p, v, dir, work, m); err != nil {
		return nil, err
	}
	for _, img := range v.Images {
		im, files, err := b.image(ctx, img, dir, work)
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", img.Name, err)
		}
		m.Images = append(m.Images, *im)
		pending = append(pending, files...)
	}
	if err := opts.sealed(); err != nil {
		return nil, err
	}
	m.Fingerprint = p.Fingerprint
	m.Tools = <-versions
	bf := <-boot
	boot <- bf // for the deferred cleanup
	if bf.err != nil {
		return nil, bf.err
	}
	mf, err := manifestFile(filepath.Join(dir, "manifest.json"), m)
	if err != nil {
		return nil, err
	}
	pending = append(append(pending, bf.files...), mf)
	// An interrupt that came while the last tools finished leaves nothing
	// at the output paths either: nothing is committed once it came.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := atomicfile.CommitAll(pending...); err != nil {
		return nil, err
	}
	return m, nil
}

// withDefaults fills in what o leaves unset: a logger that discards, a
// job per CPU, and the spec's directory made absolute, since the tools
// run in a directory of their own (see limits).
func (o Options) withDefaults() (Options, error) {
	if o.Log == nil {
		o.Log = logrus.New()
		o.Log.Out = io.Discard
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.NumCPU()
	}
	specDir, err := filepath.Abs(o.SpecDir)
	if err != nil {
		return o, err
	}
	o.SpecDir = specDir
	return o, nil
}

// addLayers makes the tarballs that fill the variant's partitions: the
// root filesystem's layers and the boot files, recorded in m.
func (b *builder) addLayers(ctx context.Context, p *plan.Plan, v plan.Variant, dir, work string, m *Manifest) error {
	var err error
	if b.layers, err = b.rootLayers(ctx, p, v, dir, work, m); err != nil {
		return err
	}
	bootTar, bm, err := b.bootLayer(ctx, p, v, work)
	if err != nil {
		return fmt.Errorf("boot files: %w", err)
	}
	if bm != nil {
		b.layers[bootPartitionKey(v)] = append(b.layers[bootPartitionKey(v)], bootTar)
		m.Boot = bm
	}
	return nil
}

// image builds the filesystems of img in parallel, placing each in the
// image file as soon as it is done, so that copying one and writing it
// back to disk overlap with building the others; then it completes the
// image (assemble) and returns the files to commit, or none.
func (b *builder) image(ctx context.Context, img plan.Image, dir, work string) (_ *ImageManifest, _ []*atomicfile.File, err error) {
	out, err := newImageFile(filepath.Join(dir, img.File), img.Size, img.Fill)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			out.Abort()
		}
	}()
	defer out.wait() // before the file is closed
	errs := make([]error, len(img.Partitions))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	queue := make(chan int, len(img.Partitions))
	for _, i := range b.buildOrder(img.Partitions) {
		queue <- i
	}
	close(queue)
	var wg sync.WaitGroup
	for range min(b.opts.Jobs, len(img.Partitions)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range queue {
				p := img.Partitions[i]
				if errs[i] = b.partition(ctx, img, p, out, work); errs[i] != nil {
					errs[i] = fmt.Errorf("partition %s: %w", p.Name, errs[i])
					cancel() // one failure stops the others
				}
			}
		}()
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, nil, err
	}
	b.log.Infof("assembling %s", img.File)
	return b.assemble(ctx, img, out)
}

// partition builds p's filesystem, if it has one, and places it, or the
// image the spec gives, in out.
func (b *builder) partition(ctx context.Context, img plan.Image, p plan.Partition, out *imageFile, work string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.Filesystem == nil {
		if p.Image == "" {
			return nil // a partition left empty on purpose
		}
		return out.place(p.Offset, b.input(p.Image), p.Size)
	}
	b.log.Infof("building %s filesystem of %s (%s)", p.Filesystem.Type, p.Name, img.Name)
	dir := filepath.Join(work, img.Name, p.Name)
	place := func(path string) error { return out.place(p.Offset, path, p.Size) }
	mem, release := b.scratchFor(p)
	if mem != "" {
		mem = filepath.Join(mem, img.Name, p.Name)
	}
	// The files the filesystem was built from are removed while the
	// image is completed: freeing an image in memory takes milliseconds
	// the build need not wait for. The room in memory is given back once
	// they are gone.
	defer b.later(func() {
		os.RemoveAll(dir)
		if mem != "" {
			os.RemoveAll(mem)
		}
		release()
	})
	if mem == "" {
		return b.buildFilesystem(ctx, p, b.layersOf(p), dir, dir, place)
	}
	b.log.Debugf("%s: building the filesystem in %s", p.Name, mem)
	err := b.buildFilesystem(ctx, p, b.layersOf(p), dir, mem, place)
	if err != nil && ctx.Err() == nil && b.scratch.short(p.Size) {
		b.log.Warnf("%s: %s filled up meanwhile; building the filesystem again on disk", p.Name, filepath.Dir(b.scratch.dir))
		os.RemoveAll(mem)
		os.RemoveAll(dir)
		err = b.buildFilesystem(ctx, p, b.layersOf(p), dir, dir, place)
	}
	return err
}

// scratchFor returns the directory in memory for p's image, or "" when
// the image is made on disk: the scratch has no room, or the tool sizes
// the image itself (squashfs, erofs), which p.Size then does not bound.
func (b *builder) scratchFor(p plan.Partition) (string, func()) {
	if typ, ok := filesystems.Lookup(p.Filesystem.Type); !ok || typ.ReadOnly {
		return "", func() {}
	}
	return b.scratch.reserve(p.Size)
}

// buildOrder starts the partitions with contents first: they take
// longest, and the empty ones fill the other jobs meanwhile.
func (b *builder) buildOrder(parts []plan.Partition) []int {
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	filled := func(p plan.Partition) bool {
		return p.Filesystem != nil && (p.Filesystem.Contents != nil || len(b.layersOf(p)) > 0)
	}
	sort.SliceStable(order, func(a, b int) bool { return filled(parts[order[a]]) && !filled(parts[order[b]]) })
	return order
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

// workPrefix starts the name of a build's work directory, followed by the
// builder's process id.
const workPrefix = ".work-"

// removeStaleOutputs removes from a variant's output directory the work
// directories and unfinished files that builds of this user left when
// they were killed: those whose process is gone. A build running beside
// this one keeps its own.
func removeStaleOutputs(dir string, log logrus.FieldLogger) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := atomicfile.PartialOwner(e.Name())
		if rest, work := strings.CutPrefix(e.Name(), workPrefix); work && e.IsDir() {
			n, _, _ := strings.Cut(rest, "-")
			pid, err = strconv.Atoi(n)
			ok = err == nil && pid > 0
		}
		if !ok || !ownedByMe(e) || processAlive(pid) {
			continue
		}
		log.Infof("removing %s, left by an interrupted build", e.Name())
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// layersOf returns the tarballs staged over a partition's contents: the
// payload and userland, which go to the root partition, and the boot
// files. They are kept by PARTUUID, which no two partitions of a
// variant share (another image may have a partition of the same name).
func (b *builder) layersOf(p plan.Partition) []string {
	return b.layers[p.UUID]
}

// bootPartitionKey is the key of the boot files' partition in
// builder.layers.
func bootPartitionKey(v plan.Variant) string {
	img := v.Images[v.BootImage()]
	for _, p := range img.Partitions {
		if p.Name == v.Board.Boot.Partition {
			return p.UUID
		}
	}
	return ""
}
