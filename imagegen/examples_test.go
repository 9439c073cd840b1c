package imagegen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/imagegen/readback"
	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// TestExamplesAreReproducible builds every variant of every example twice
// with the same SOURCE_DATE_EPOCH and compares the two builds of each
// image:
//
//   - partitions whose plan says the filesystem is deterministic (and
//     partitions without a filesystem): the SHA-256 of the partition's
//     bytes;
//   - btrfs and xfs partitions, which mkfs.btrfs 6.2 and mkfs.xfs 6.1
//     cannot make bit-identical: their contents, read back (package
//     readback; mounting needs root);
//   - nilfs2 partitions: nothing. mkfs.nilfs2 2.2.9 is not deterministic
//     and nothing on the host can read nilfs2 (readback.ErrNeedsGuest);
//     the QEMU target will read them;
//   - everything outside the partitions (the partition tables, EBRs, the
//     GPT backup, the gaps): the SHA-256 of those bytes, with their
//     offsets.
//
// As a negative control, the first ext4 partition is built a third time
// with another epoch, and its hash must change.
//
// The examples build with their defaults: all 15 variants take about 50s
// on a 2-core machine, holes being hashed without being read.
func TestExamplesAreReproducible(t *testing.T) {
	specs, err := filepath.Glob(filepath.Join("..", "examples", "*.fsb.hcl"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	const epoch = 1700000000
	controlled := false
	var control func(t *testing.T)
	for _, path := range specs {
		name := strings.TrimSuffix(filepath.Base(path), ".fsb.hcl")
		s, p, diags := plan.LoadSealed(path, spec.Options{})
		if diags.HasErrors() {
			t.Fatalf("%s: %s", path, diags.Error())
		}
		for _, v := range p.Variants {
			img, part, hasExt4 := firstExt4(v)
			if hasExt4 && control == nil {
				control = func(t *testing.T) {
					needFS(t, variantTypes(v)...)
					a := buildVariant(t, s.Dir, p, v, epoch)
					epochChanges(t, s.Dir, p, v, img, part, epoch, imageDigests(t, filepath.Join(a, img.File), img))
				}
			}
			t.Run(name+"/"+v.Name, func(t *testing.T) {
				needFS(t, variantTypes(v)...)
				a := buildVariant(t, s.Dir, p, v, epoch)
				b := buildVariant(t, s.Dir, p, v, epoch)
				for _, img := range v.Images {
					da := imageDigests(t, filepath.Join(a, img.File), img)
					db := imageDigests(t, filepath.Join(b, img.File), img)
					if da.outside != db.outside {
						t.Errorf("%s: the bytes outside the partitions (tables, gaps) differ between two builds", img.File)
					}
					for _, part := range img.Partitions {
						if deterministic(part) {
							if da.parts[part.Name] != db.parts[part.Name] {
								t.Errorf("%s: partition %s (%s) differs between two builds with the same epoch: %s vs %s",
									img.File, part.Name, fsName(part), da.parts[part.Name], db.parts[part.Name])
							}
							continue
						}
						compareReadback(t, img, part, filepath.Join(a, img.File), filepath.Join(b, img.File))
					}
				}
				if ci, cp, ok := firstExt4(v); ok && !controlled {
					controlled = true
					epochChanges(t, s.Dir, p, v, ci, cp, epoch, imageDigests(t, filepath.Join(a, ci.File), ci))
				}
			})
		}
	}
	// When -run left out the variant that has it.
	if !controlled {
		t.Run("negative-control", func(t *testing.T) {
			if control == nil {
				t.Fatal("no example has an ext4 partition for the negative control")
			}
			control(t)
		})
	}
}

// firstExt4 finds the first deterministic ext4 partition of v.
func firstExt4(v plan.Variant) (plan.Image, plan.Partition, bool) {
	for _, img := range v.Images {
		for _, p := range img.Partitions {
			if p.Filesystem != nil && p.Filesystem.Type == "ext4" && p.Filesystem.Deterministic {
				return img, p, true
			}
		}
	}
	return plan.Image{}, plan.Partition{}, false
}

// epochChanges builds v with epoch+1 and checks that the ext4 partition
// part no longer has the hash it had with epoch.
func epochChanges(t *testing.T, specDir string, p *plan.Plan, v plan.Variant, img plan.Image, part plan.Partition, epoch int64, before digests) {
	t.Helper()
	c := buildVariant(t, specDir, p, v, epoch+1)
	after := imageDigests(t, filepath.Join(c, img.File), img)
	if after.parts[part.Name] == before.parts[part.Name] {
		t.Errorf("%s: ext4 partition %s kept its hash %s with SOURCE_DATE_EPOCH %d instead of %d",
			img.File, part.Name, before.parts[part.Name], epoch+1, epoch)
		return
	}
	t.Logf("negative control: ext4 partition %s of %s (%s) changes with the epoch", part.Name, img.File, v.Name)
}

// variantTypes are the filesystem types of v.
func variantTypes(v plan.Variant) []string {
	seen := map[string]bool{}
	var types []string
	for _, img := range v.Images {
		for _, p := range img.Partitions {
			if p.Filesystem != nil && !seen[p.Filesystem.Type] {
				seen[p.Filesystem.Type] = true
				types = append(types, p.Filesystem.Type)
			}
		}
	}
	sort.Strings(types)
	return types
}

func deterministic(p plan.Partition) bool { return p.Filesystem == nil || p.Filesystem.Deterministic }

func fsName(p plan.Partition) string {
	if p.Filesystem == nil {
		return "no filesystem"
	}
	return p.Filesystem.Type
}

// buildVariant builds v into a new directory and returns the directory
// holding its images.
func buildVariant(t *testing.T, specDir string, p *plan.Plan, v plan.Variant, epoch int64) string {
	t.Helper()
	out := t.TempDir()
	opt := Options{OutDir: out, SpecDir: specDir, Epoch: epoch, CacheDir: testbin.CacheDir(),
		Runner: testbin.Runner(t, v.Board.Arch), HelperRunner: testbin.Runner(t, "")}
	if _, err := Build(context.Background(), p, v, opt); err != nil {
		t.Fatalf("building %s: %v", v.Name, err)
	}
	return filepath.Join(out, v.Name)
}

// digests are the SHA-256 of each deterministic partition of an image and
// of everything outside its partitions.
type digests struct {
	parts   map[string]string
	outside string
}

// imageDigests reads image once: each deterministic partition's bytes into
// its own hash, and the ranges between partitions, each prefixed with its
// offset and length, into one hash. Non-deterministic partitions are not
// read.
func imageDigests(t *testing.T, image string, img plan.Image) digests {
	t.Helper()
	f, err := os.Open(image)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != img.Size {
		t.Fatalf("%s is %d bytes, the plan says %d", image, fi.Size(), img.Size)
	}
	parts := append([]plan.Partition(nil), img.Partitions...)
	sort.Slice(parts, func(i, j int) bool { return parts[i].Offset < parts[j].Offset })
	buf := make([]byte, 4<<20)
	zero := make([]byte, len(buf))
	hash := func(h io.Writer, off, n int64) {
		// Holes hash as the zeros they read as, without reading them.
		err := eachRange(f, off, n, func(start, end int64, data bool) error {
			for p := start; p < end; {
				k := min(int64(len(buf)), end-p)
				chunk := zero[:k]
				if data {
					if _, err := f.ReadAt(buf[:k], p); err != nil {
						return err
					}
					chunk = buf[:k]
				}
				h.Write(chunk)
				p += k
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	d := digests{parts: map[string]string{}}
	outside := sha256.New()
	gap := func(from, to int64) {
		if to > from {
			fmt.Fprintf(outside, "%d+%d\n", from, to-from)
			hash(outside, from, to-from)
		}
	}
	pos := int64(0)
	for _, p := range parts {
		gap(pos, p.Offset)
		if deterministic(p) {
			h := sha256.New()
			hash(h, p.Offset, p.Size)
			d.parts[p.Name] = hex.EncodeToString(h.Sum(nil))
		}
		pos = p.Offset + p.Size
	}
	gap(pos, img.Size)
	d.outside = hex.EncodeToString(outside.Sum(nil))
	return d
}

// compareReadback compares what two builds of a non-deterministic
// partition hold, where the host can read it.
func compareReadback(t *testing.T, img plan.Image, part plan.Partition, a, b string) {
	t.Helper()
	typ := part.Filesystem.Type
	if readback.NeedsGuest(typ) {
		// nilfs2: nothing to compare on the host (see the test's doc).
		t.Logf("%s: partition %s (%s) is not compared: reading it needs a VM", img.File, part.Name, typ)
		return
	}
	t.Run("readback-"+part.Name, func(t *testing.T) {
		for _, tool := range readback.Tools(typ) {
			testenv.Tool(t, tool)
		}
		if readback.NeedsRoot(typ) && os.Geteuid() != 0 {
			testenv.Missing(t, "root to mount")
		}
		la := steady(readPartition(t, a, part), part.Filesystem.Varying)
		lb := steady(readPartition(t, b, part), part.Filesystem.Varying)
		for _, d := range la.Diff(lb) {
			t.Errorf("%s: partition %s (%s) holds different contents in two builds: %s", img.File, part.Name, typ, d)
		}
	})
}

// steady is l without the paths the plan says vary between builds.
func steady(l readback.Listing, varying []string) readback.Listing {
	var out readback.Listing
	for _, e := range l {
		if !slices.ContainsFunc(varying, func(v string) bool { return e.Path == v || strings.HasPrefix(e.Path, v+"/") }) {
			out = append(out, e)
		}
	}
	return out
}

// readPartition lists one partition of image, extracted to a sparse file.
func readPartition(t *testing.T, image string, part plan.Partition) readback.Listing {
	t.Helper()
	path := extract(t, image, part.Name, part.Offset, part.Size)
	l, err := readback.List(context.Background(), part.Filesystem.Type, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(l) == 0 {
		t.Fatalf("%s: partition %s lists nothing, not even its root", image, part.Name)
	}
	return l
}

// extract copies one partition out of an image, as a board's kernel sees
// it, so that the filesystem's own tools can read it. All-zero megabytes
// stay holes: partitions are up to 1GiB and mostly empty.
func extract(t *testing.T, image, name string, offset, size int64) string {
	t.Helper()
	src, err := os.Open(image)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(t.TempDir(), name+".img")
	dst, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if err := dst.Truncate(size); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	zero := make([]byte, len(buf))
	err = eachRange(src, offset, size, func(start, end int64, data bool) error {
		for pos := start; data && pos < end; {
			n := min(int64(len(buf)), end-pos)
			if _, err := src.ReadAt(buf[:n], pos); err != nil {
				return err
			}
			if !bytes.Equal(buf[:n], zero[:n]) {
				if _, err := dst.WriteAt(buf[:n], pos-offset); err != nil {
					return err
				}
			}
			pos += n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// eachRange calls fn for the consecutive data and hole ranges of f within
// [off, off+n), as SEEK_DATA and SEEK_HOLE report them; where the
// filesystem cannot tell, everything is data.
func eachRange(f *os.File, off, n int64, fn func(start, end int64, data bool) error) error {
	end := off + n
	for pos := off; pos < end; {
		data, err := f.Seek(pos, unix.SEEK_DATA)
		switch {
		case errors.Is(err, unix.ENXIO): // only a hole remains
			data = end
		case err != nil:
			return fn(pos, end, true)
		}
		data = min(data, end)
		if data > pos {
			if err := fn(pos, data, false); err != nil {
				return err
			}
		}
		if data == end {
			return nil
		}
		hole, err := f.Seek(data, unix.SEEK_HOLE)
		if err != nil {
			hole = end
		}
		hole = min(hole, end)
		if err := fn(data, hole, true); err != nil {
			return err
		}
		pos = hole
	}
	return nil
}

// TestImageDigestsReadHolesAsZeros checks the hole-skipping digests
// against plain SHA-256 of the bytes, on a sparse file with data and holes
// inside, across and between partitions.
func TestImageDigestsReadHolesAsZeros(t *testing.T) {
	const mib = 1 << 20
	path := filepath.Join(t.TempDir(), "sparse.img")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	size := int64(64 * mib)
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	for i, off := range []int64{0, 3*mib + 17, 8*mib - 100, 20 * mib, 40*mib + 5, size - 4096} {
		if _, err := f.WriteAt(bytes.Repeat([]byte{byte(i + 1)}, 4096), off); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	img := plan.Image{Size: size, Partitions: []plan.Partition{
		{Name: "a", Offset: 1 * mib, Size: 7 * mib},
		{Name: "b", Offset: 16 * mib, Size: 8 * mib},
		{Name: "c", Offset: 32 * mib, Size: 16 * mib},
	}}
	got := imageDigests(t, path, img)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	outside := sha256.New()
	pos := int64(0)
	for _, p := range img.Partitions {
		sum := sha256.Sum256(data[p.Offset : p.Offset+p.Size])
		if want := hex.EncodeToString(sum[:]); got.parts[p.Name] != want {
			t.Errorf("partition %s: digest %s, want %s", p.Name, got.parts[p.Name], want)
		}
		fmt.Fprintf(outside, "%d+%d\n", pos, p.Offset-pos)
		outside.Write(data[pos:p.Offset])
		pos = p.Offset + p.Size
	}
	fmt.Fprintf(outside, "%d+%d\n", pos, size-pos)
	outside.Write(data[pos:])
	if want := hex.EncodeToString(outside.Sum(nil)); got.outside != want {
		t.Errorf("outside: digest %s, want %s", got.outside, want)
	}
	for _, p := range img.Partitions {
		part, err := os.ReadFile(extract(t, path, p.Name, p.Offset, p.Size))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(part, data[p.Offset:p.Offset+p.Size]) {
			t.Errorf("extractSparse of %s differs from the image's bytes", p.Name)
		}
	}
}
