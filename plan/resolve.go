package plan

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/internal/cmdline"
	"github.com/fsbench/fsbench/internal/digest"
	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
	"github.com/fsbench/fsbench/plan/layout"
	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/spec"
	"github.com/fsbench/fsbench/spec/diag"
	"github.com/fsbench/fsbench/wire/runplan"
)

// Resolve turns a loaded spec into a plan, without its inputs and
// fingerprint (see Seal). Problems that only show once
// partitions are placed and command lines derived (a partition that does
// not fit, a stride mke2fs would truncate) are reported at the attribute
// they stem from.
func Resolve(s *spec.Spec) (*Plan, hcl.Diagnostics) {
	// The spec's base name only: the plan and its fingerprint must not
	// depend on the directory fsbench runs from.
	p := &Plan{Format: Format, Spec: filepath.Base(s.Filename)}
	per := make([]hcl.Diagnostics, len(s.Variants))
	names := make([]string, len(s.Variants))
	for i, sv := range s.Variants {
		r := &resolver{}
		p.Variants = append(p.Variants, r.variant(sv))
		per[i] = r.diags
		names[i] = sv.Name
	}
	diags := diag.MergeVariants(names, per)
	diags = diag.Dedupe(diags)
	diag.Sort(diags)
	return p, diags
}

type resolver struct {
	diags hcl.Diagnostics
	board *spec.Board
}

func (r *resolver) errorf(rng hcl.Range, summary, format string, args ...any) {
	r.diags = append(r.diags, diag.Errorf(rng, summary, fmt.Sprintf(format, args...)))
}

func (r *resolver) variant(sv *spec.Variant) Variant {
	r.board = sv.Board
	v := Variant{Name: sv.Name, Board: Board{
		Name: sv.Board.Name, Arch: sv.Board.Arch, Console: sv.Board.Console, Storage: sv.Board.Storage,
		Init: sv.Board.Init, RootBy: sv.Board.RootBy, Bootloader: sv.Board.Bootloader, KernelArgs: sv.Board.KernelArgs,
	}}
	if sv.Board.RootWait > 0 {
		v.Board.RootWait = sv.Board.RootWait.String()
	}
	if l := sv.Board.LAVA; l != nil {
		v.Board.LAVA = &LAVA{DeviceType: l.DeviceType, Tags: l.Tags}
	}
	v.Board.Endurance = endurance(sv.Board.Endurance)
	if len(sv.Matrix) > 0 {
		v.Matrix = map[string]string{}
		for _, ch := range sv.Matrix {
			v.Matrix[ch.Axis] = ch.Key
		}
	}
	var root *Partition
	for _, si := range sv.Images {
		img := r.image(sv, si)
		v.Images = append(v.Images, img)
		for i := range img.Partitions {
			if img.Partitions[i].Root {
				root = &v.Images[len(v.Images)-1].Partitions[i]
			}
		}
	}
	r.checkRootBy(sv, root)
	r.checkEndurance(sv, &v)
	r.checkUnique(sv, v)
	v.Board.Boot = r.boot(sv, v)
	v.Bootargs = bootargs(v.Board, root)
	for _, st := range sv.Tests {
		t := r.test(st)
		r.fromPartitions(st, &t, &v)
		r.checkPartitionSpace(st, t, &v)
		v.Tests = append(v.Tests, t)
	}
	carryTestImages(sv, &v, root)
	return v
}

// fromPartitions sets in t's values, and in each case's, what follows
// from the partitions its fields name (recipes.Recipe.FromPartitions),
// and reports the written values that contradict them.
func (r *resolver) fromPartitions(st *spec.Test, t *Test, v *Variant) {
	rec, ok := recipes.Lookup(st.Recipe)
	if !ok || rec.FromPartitions == nil {
		return
	}
	parts := map[string]recipes.Placed{}
	for _, f := range rec.Fields {
		name, ok := st.Params[f.Name].(string)
		if f.Kind != fields.Partition || !ok {
			continue
		}
		if p, ok := v.TestPartition(name); ok {
			parts[f.Name] = recipes.Placed{Size: p.Size}
			if p.Filesystem != nil {
				parts[f.Name] = recipes.Placed{Size: p.Size, Filesystem: p.Filesystem.Type}
			}
		}
	}
	written := func(field string) bool { _, ok := st.Attrs[field]; return ok }
	t.Params = maps.Clone(t.Params)
	all := []recipes.Params{recipes.Params(t.Params)}
	for _, c := range t.Cases {
		all = append(all, c.Params)
	}
	for _, p := range all {
		probs := rec.FromPartitions(p, written, parts)
		for _, pr := range probs {
			r.errorf(st.Of(pr.Field), pr.Summary, "%s", pr.Detail)
		}
		if len(probs) > 0 {
			return // the cases would say the same again
		}
	}
}

// checkPartitionSpace refuses a partition that a test's field names (the
// write log of crash_states) when it is placed smaller than any case of
// the test needs: the run would only find out on the board.
func (r *resolver) checkPartitionSpace(st *spec.Test, t Test, v *Variant) {
	rec, ok := recipes.Lookup(st.Recipe)
	if !ok || rec.Partitions == nil {
		return
	}
	for _, f := range rec.Fields {
		name, ok := st.Params[f.Name].(string)
		if f.Kind != fields.Partition || !ok {
			continue
		}
		p, ok := v.TestPartition(name)
		if !ok {
			continue
		}
		var on recipes.Placed
		if op, ok := v.TestPartition(t.On); ok {
			on.Size = op.Size
			if op.Filesystem != nil {
				on.Filesystem = op.Filesystem.Type
			}
		}
		for _, c := range t.Cases {
			need, why := rec.Partitions(recipes.Params(c.Params), f.Name, on)
			if need > p.Size {
				r.errorf(st.Of(f.Name), "Partition too small",
					"Test %q %q case %s needs about %s on partition %q for %s, and the partition holds %s: make it larger or the workload smaller.",
					st.Recipe, st.Name, c.Name, units.FormatSize(need), name, why, units.FormatSize(p.Size))
				return
			}
		}
	}
}

func (r *resolver) image(sv *spec.Variant, si *spec.Image) Image {
	img := Image{Name: si.Name, File: si.Name + ".img", Table: si.Table, Size: si.Size, SectorSize: si.SectorSize, Align: si.Align, DiskID: strings.ToLower(si.DiskID)}
	if img.DiskID == "" && si.Table != "none" {
		if si.Table == "gpt" {
			img.DiskID = nameUUID(r.board.Name, sv.Name, si.Name, "disk")
		} else {
			img.DiskID = mbrSignature(r.board.Name, sv.Name, si.Name)
		}
	}
	reqs := make([]layout.Request, len(si.Partitions))
	for i, sp := range si.Partitions {
		reqs[i] = layout.Request{Name: sp.Name, Size: sp.Size, Offset: sp.Offset, Align: sp.Align, Grow: sp.Grow, Logical: sp.Logical}
	}
	disk := layout.Disk{Table: si.Table, Size: si.Size, SectorSize: si.SectorSize, Align: si.Align,
		GPTEntries: si.GPTLocation, ExtendedSlot: si.ExtendedSlot}
	for _, sr := range si.Raw {
		disk.Reserved = append(disk.Reserved, layout.Span{Name: sr.Name, Start: sr.Offset, End: sr.Offset + sr.Size})
	}
	placed, problems := layout.Place(disk, reqs)
	for _, pr := range problems {
		rng := si.Of(pr.Field)
		if pr.Index >= 0 {
			rng = si.Partitions[pr.Index].Of(pr.Field)
		}
		r.errorf(rng, pr.Summary, "%s", pr.Detail)
	}
	img.Size = placed.Size
	img.Fill = si.Fill
	if e := placed.Extended; e != nil {
		img.Extended = &Extended{StartSector: e.StartSector, Sectors: e.Sectors, Type: ExtendedType, Slot: e.Slot}
	}
	byIndex := map[int]layout.Placed{}
	for _, pl := range placed.Partitions {
		byIndex[pl.Index] = pl
	}
	for i, sp := range si.Partitions {
		pl, ok := byIndex[i]
		if !ok {
			continue // its placement failed and was reported
		}
		img.Partitions = append(img.Partitions, r.partition(sv, si, sp, pl, img.DiskID))
	}
	r.raw(si, &img, placed)
	if si.Table == "gpt" {
		img.GPT = r.gpt(si, &img, placed)
	}
	return img
}

// gpt records where the GPT's structures lie. The first usable sector
// also covers the raw regions before the first partition, as genimage
// does, so that a partitioning tool never offers a bootloader's sectors
// as free space.
func (r *resolver) gpt(si *spec.Image, img *Image, placed layout.Result) *GPT {
	g := &GPT{EntriesSector: placed.EntriesSector, EntriesSectors: placed.EntriesSectors,
		FirstUsable: placed.FirstUsable, LastUsable: placed.LastUsable, Backup: si.GPTBackup}
	firstStart := int64(-1)
	for _, p := range img.Partitions {
		if firstStart < 0 || p.StartSector < firstStart {
			firstStart = p.StartSector
		}
	}
	for _, rr := range img.Raw {
		end := (rr.Offset + rr.Size + img.SectorSize - 1) / img.SectorSize
		if (firstStart < 0 || end <= firstStart) && end > g.FirstUsable && end <= g.LastUsable {
			g.FirstUsable = end
		}
	}
	for i, name := range si.HybridMBR {
		if e, ok := r.hybridEntry(si, img, i, name); ok {
			g.Hybrid = append(g.Hybrid, e)
		}
	}
	return g
}

// hybridEntry mirrors a GPT partition in the MBR, with the MBR id its
// mbr_type or its type gives.
func (r *resolver) hybridEntry(si *spec.Image, img *Image, i int, name string) (HybridEntry, bool) {
	var sp *spec.Partition
	for _, x := range si.Partitions {
		if x.Name == name {
			sp = x
		}
	}
	var p *Partition
	for j := range img.Partitions {
		if img.Partitions[j].Name == name {
			p = &img.Partitions[j]
		}
	}
	if sp == nil || p == nil {
		return HybridEntry{}, false // reported by the spec's checks, or its placement failed
	}
	given, rng := sp.MBRType, sp.Of("mbr_type")
	if given == "" {
		given, rng = p.TypeName, si.OfElem("hybrid_mbr", i)
		if given == "" {
			r.errorf(rng, "Hybrid MBR entry without an MBR id",
				"Partition %q has the type GUID %s, which has no MBR id: give it mbr_type, such as \"0x0c\" for FAT32 or \"0x83\" for Linux.", name, p.Type)
			return HybridEntry{}, false
		}
	}
	t, err := resolvePartType("mbr", given, r.board.Arch)
	if err == nil && t == "0xee" {
		err = fmt.Errorf("0xee is the protective entry fsbench writes itself")
	}
	if err == nil && t == "0x00" {
		err = fmt.Errorf("0x00 marks an empty MBR entry, which the hybrid MBR would not mirror")
	}
	if err != nil {
		r.errorf(rng, "Invalid hybrid MBR entry", "Partition %q: %s. Give it mbr_type, such as \"0x0c\" for FAT32 or \"0x83\" for Linux.", name, err)
		return HybridEntry{}, false
	}
	if p.StartSector+p.Sectors > 1<<32 {
		r.errorf(si.OfElem("hybrid_mbr", i), "Partition beyond the MBR's reach",
			"Partition %q ends at sector %d; an MBR entry counts sectors in 32 bits, up to %d.", name, p.StartSector+p.Sectors-1, int64(1<<32)-1)
		return HybridEntry{}, false
	}
	return HybridEntry{Partition: name, Type: t, Bootable: p.Bootable}, true
}

func (r *resolver) partition(sv *spec.Variant, si *spec.Image, sp *spec.Partition, pl layout.Placed, diskID string) Partition {
	ss := si.SectorSize
	p := Partition{
		Name: sp.Name, Number: pl.Number, StartSector: pl.StartSector, Sectors: pl.Sectors,
		EndSector: pl.StartSector + pl.Sectors - 1, Offset: pl.Start(ss), Size: pl.Size(ss),
		Bootable: sp.Bootable, Label: sp.Label, Logical: sp.Logical, EBRSector: pl.EBRSector,
		Root: sp.Root, Image: sp.ImageFile,
	}
	if si.Table == "none" {
		// No table: no type, no id; the spec refused them (checkUntabled).
		p.Label = ""
		if sp.Filesystem != nil {
			p.Filesystem = r.filesystem(sv, si, sp, p.Size)
		}
		return p
	}
	typeName := sp.Type
	if typeName == "" {
		fsType := ""
		if sp.Filesystem != nil {
			fsType = sp.Filesystem.Type
		}
		typeName = defaultPartType(fsType)
	}
	t, err := resolvePartType(si.Table, typeName, r.board.Arch)
	if err != nil {
		hint := ""
		if _, known := knownPartType(typeName); !known {
			hint = diag.DidYouMean(typeName, PartTypeNames())
		}
		r.errorf(sp.Of("type"), "Invalid partition type", "%s.%s", upperFirst(err.Error()), hint)
	}
	p.Type = t
	if name, ok := knownPartType(typeName); ok {
		p.TypeName = name
	}
	switch {
	case sp.UUID != "":
		p.UUID = strings.ToLower(sp.UUID)
	case si.Table == "gpt":
		p.UUID = nameUUID(r.board.Name, sv.Name, si.Name, "partition", sp.Name)
	default:
		p.UUID = mbrPartUUID(diskID, pl.Number)
	}
	if sp.Filesystem != nil {
		p.Filesystem = r.filesystem(sv, si, sp, p.Size)
	}
	return p
}

func (r *resolver) filesystem(sv *spec.Variant, si *spec.Image, sp *spec.Partition, size int64) *Filesystem {
	sf := sp.Filesystem
	uuid := strings.ToLower(sf.UUID)
	if uuid == "" {
		uuid = nameUUID(r.board.Name, sv.Name, si.Name, "filesystem", sp.Name)
	}
	in := filesystems.Spec{
		Type: sf.Type, Label: sf.Label, UUID: uuid, BlockSize: sf.BlockSize, Features: sf.Features,
		Journal: sf.Journal, Size: size, Tuning: sf.Tuning, Mount: sf.Mount, ExtraArgs: sf.MkfsArgs,
		HasContents: sp.Contents != nil || receivesLayers(sv, si, sp),
	}
	if sf.Geometry != nil {
		in.Geometry = filesystems.Geometry{EraseBlock: sf.Geometry.EraseBlock, PageSize: sf.Geometry.PageSize}
	}
	if sp.Contents != nil {
		for _, f := range sp.Contents.Files {
			if f.SourceDir {
				in.Files = append(in.Files, f.Path+"/")
			} else {
				in.Files = append(in.Files, f.Path)
			}
		}
	}
	res, problems := filesystems.Resolve(in)
	for _, pr := range problems {
		r.errorf(fsProblemRange(sp, pr.Field, pr.Index), pr.Summary, "%s", pr.Detail)
	}
	typ, _ := filesystems.Lookup(sf.Type)
	r.checkUserland(sp, typ)
	fs := &Filesystem{
		Type: sf.Type, Label: sf.Label, UUID: uuid, BlockSize: sf.BlockSize, Features: sf.Features,
		Journal: sf.Journal, Mount: res.MountOptions, Mountpoint: sf.Mountpoint, RootFlags: res.RootFlags,
		VFSFlags: res.VFSFlags, Derived: res.Derived, Mkfs: res.Mkfs, Populate: res.Populate,
		Deterministic: res.Deterministic, Note: res.Note, ReadOnly: typ != nil && typ.ReadOnly,
	}
	if g := sf.Geometry; g != nil {
		fs.EraseBlock, fs.PageSize = g.EraseBlock, g.PageSize
	}
	if len(res.Check.Argv) > 0 {
		c := res.Check
		fs.Check = &c
	}
	if typ != nil && !fs.ReadOnly {
		fs.Cleaner = slices.Clone(typ.Cleaner)
		fs.CleanerPeriod = slices.Clone(typ.CleanerPeriod)
	}
	if sp.Root && sf.Mountpoint != "" && sf.Mountpoint != "/" {
		r.errorf(sf.Of("mountpoint"), "Invalid mountpoint", "The root partition is mounted at /, not %s.", sf.Mountpoint)
	}
	if ct := sp.Contents; ct != nil {
		fs.Contents = &Contents{Dir: ct.Dir, Tar: ct.Tar, Userland: ct.Userland}
		for _, f := range ct.Files {
			fs.Contents.Files = append(fs.Contents.Files, File{Path: f.Path, Source: f.Source, Dir: f.SourceDir, Content: f.Content,
				Mode: fmt.Sprintf("%04o", f.Mode), UID: f.UID, GID: f.GID})
		}
	}
	return fs
}

// checkUserland refuses a userland on a root filesystem that cannot
// keep symlinks: busybox's applets are symlinks to it.
func (r *resolver) checkUserland(sp *spec.Partition, typ *filesystems.Type) {
	ct := sp.Contents
	if ct == nil || ct.Userland == "" || !sp.Root || typ == nil || !typ.Loses.Symlinks {
		return
	}
	r.errorf(ct.Of("userland"), "Userland on a filesystem without symlinks",
		"The %s userland links its commands to one binary with symlinks, and %s cannot keep symlinks (%s): choose another filesystem for the root partition.",
		ct.Userland, typ.Name, typ.Loses.Why)
}

// receivesLayers tells whether build stages files over a partition
// without a contents block: the runner's payload goes to the root
// partition of a spec with tests, the boot files to their partition,
// and an update's images are its slots' filesystem with contents.
func receivesLayers(sv *spec.Variant, si *spec.Image, sp *spec.Partition) bool {
	if sp.Root && len(sv.Tests) > 0 || filledByTest(sv, sp.Name) {
		return true
	}
	bf := sv.Board.Boot
	if bf == nil || sv.Images[spec.BootImage(sv.Images)] != si {
		return false
	}
	return (bf.Partition == "" && sp.Root) || bf.Partition == sp.Name
}

// carryTestImages marks the root filesystem not deterministic when it
// carries the images of a partition a test fills (an update's slot)
// whose filesystem is not: the images are built with the root's build.
func carryTestImages(sv *spec.Variant, v *Variant, root *Partition) {
	if root == nil || root.Filesystem == nil || !root.Filesystem.Deterministic {
		return
	}
	for _, img := range v.Images {
		for _, p := range img.Partitions {
			if p.Filesystem == nil || p.Filesystem.Deterministic || !filledByTest(sv, p.Name) {
				continue
			}
			root.Filesystem.Deterministic = false
			root.Filesystem.Varying = []string{runplan.UpdateDir}
			root.Filesystem.Note += fmt.Sprintf(" Not deterministic here: it carries, in %s, a test's images of partition %s, a %s filesystem, which is not.",
				runplan.UpdateDir, p.Name, p.Filesystem.Type)
			return
		}
	}
}

// filledByTest tells whether a test writes a filesystem with contents
// into the partition (a field marked Formatted names it: an update's
// slot, whose images are its filesystem with the root's contents).
func filledByTest(sv *spec.Variant, partition string) bool {
	for _, t := range sv.Tests {
		rec, ok := recipes.Lookup(t.Recipe)
		if !ok {
			continue
		}
		for _, f := range rec.Fields {
			if name, ok := t.Params[f.Name].(string); ok && f.Formatted && name == partition {
				return true
			}
		}
	}
	return false
}

// fsProblemRange maps a filesystems.Problem field path to where the spec
// wrote it.
func fsProblemRange(sp *spec.Partition, field string, index int) hcl.Range {
	sf := sp.Filesystem
	head, tail, nested := strings.Cut(field, ".")
	switch {
	case head == "size":
		return sp.Of("size")
	case head == "contents" && sp.Contents != nil:
		return sp.Contents.Decl
	case head == "files" && sp.Contents != nil && index >= 0 && index < len(sp.Contents.Files):
		return sp.Contents.Files[index].Decl
	case nested && head == "geometry" && sf.Geometry != nil:
		return sf.Geometry.Of(tail)
	case nested && head == "tuning" && sf.TuningAt.Attrs != nil:
		return sf.TuningAt.Of(tail)
	}
	return sf.OfElem(head, index)
}

// raw places raw regions and checks they collide with nothing, but in
// their holes: there the table's bytes, or anything else, may lie.
func (r *resolver) raw(si *spec.Image, img *Image, placed layout.Result) {
	ss := si.SectorSize
	var spans []span
	// The first sector holds the MBR's partition table from byte 440 on
	// (disk signature and entries); boot code before it may be replaced.
	if si.Table != "none" {
		spans = append(spans, span{"the partition table (MBR)", 440, 512, true})
	}
	if si.Table == "gpt" {
		spans = append(spans, span{"the GPT header", ss, 2 * ss, true})
		spans = append(spans, span{"the GPT entries", placed.EntriesSector * ss, (placed.EntriesSector + placed.EntriesSectors) * ss, true})
		if si.GPTBackup {
			spans = append(spans, span{"the backup GPT", (placed.LastUsable + 1) * ss, img.Size, true})
		}
	}
	for _, p := range img.Partitions {
		spans = append(spans, span{"partition " + p.Name, p.Offset, p.Offset + p.Size, false})
		if p.Logical {
			spans = append(spans, span{"the EBR of partition " + p.Name, p.EBRSector * ss, (p.EBRSector + 1) * ss, true})
		}
	}
	for _, sr := range si.Raw {
		end := sr.Offset + sr.Size
		if end > img.Size {
			r.errorf(sr.Of("offset"), "Raw region does not fit", "Raw region %q ends at byte %d, past the end of the %d-byte image.", sr.Name, end, img.Size)
		}
		holes := make([]span, 0, len(sr.Holes))
		for k, h := range sr.Holes {
			if h.Offset+h.Size > sr.Size {
				r.errorf(sr.OfElem("holes", k), "Hole outside its raw region",
					"The hole at bytes %d-%d of the file lies past the end of raw region %q (%d bytes).", h.Offset, h.Offset+h.Size, sr.Name, sr.Size)
			}
			holes = append(holes, span{start: sr.Offset + h.Offset, end: sr.Offset + h.Offset + h.Size})
		}
		for _, sp := range spans {
			lo, hi := max(sr.Offset, sp.start), min(end, sp.end)
			if lo >= hi {
				continue
			}
			if gap, ok := uncovered(lo, hi, holes); ok {
				hint := ""
				if sp.table {
					hint = holeHint(sr, gap, len(holes) > 0)
				}
				if sp.name == "the GPT entries" {
					hint += ", or move the entries out of its way with gpt_location"
				}
				r.errorf(sr.Of("offset"), "Raw region overlaps", "Raw region %q (bytes %d-%d) overlaps %s (bytes %d-%d)%s.",
					sr.Name, sr.Offset, end, sp.name, sp.start, sp.end, hint)
			}
		}
		spans = append(spans, span{"raw region " + sr.Name, sr.Offset, end, false})
		raw := Raw{Name: sr.Name, Offset: sr.Offset, Size: sr.Size, File: sr.File}
		for _, h := range sr.Holes {
			raw.Holes = append(raw.Holes, Hole{Offset: h.Offset, Size: h.Size})
		}
		img.Raw = append(img.Raw, raw)
	}
}

// span is a named byte range, end exclusive; table marks the table's
// own structures.
type span struct {
	name       string
	start, end int64
	table      bool
}

// uncovered returns the first part of [lo, hi) no hole covers.
func uncovered(lo, hi int64, holes []span) (span, bool) {
	sorted := slices.Clone(holes)
	slices.SortFunc(sorted, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	at := lo
	for _, h := range sorted {
		if h.end <= at {
			continue
		}
		if h.start > at {
			break
		}
		at = h.end
		if at >= hi {
			return span{}, false
		}
	}
	next := hi
	for _, h := range sorted {
		if h.start > at && h.start < next {
			next = h.start
		}
	}
	return span{start: at, end: next}, true
}

// holeHint tells which hole would leave the table's bytes alone.
func holeHint(sr *spec.RawRegion, gap span, hasHoles bool) string {
	what := "; if the file leaves those bytes out for the table, say so with"
	if hasHoles {
		what = "; its holes leave bytes " + fmt.Sprintf("%d-%d", gap.start, gap.end) + " written: add"
	}
	return fmt.Sprintf("%s holes = [{ offset = %d, size = %d }] (bytes from the file's start)", what, gap.start-sr.Offset, gap.end-gap.start)
}

func (r *resolver) test(st *spec.Test) Test {
	t := Test{Recipe: st.Recipe, Name: st.Name, On: st.On, Params: st.Params}
	rec, ok := recipes.Lookup(st.Recipe)
	if !ok {
		return t
	}
	if st.Settle != nil {
		t.Settle = &Settle{CI: st.Settle.CI, Min: st.Settle.Min, Max: st.Settle.Max, Metrics: st.Settle.Metrics}
		t.Params = maps.Clone(st.Params)
		delete(t.Params, rec.Count)
	}
	t.Cases = rec.Expand(recipes.Params(t.Params))
	return t
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Seal digests every file the plan depends on and sets Inputs and the
// Fingerprint. It reads every contents tree and tarball, so only the
// commands that show or build the plan call it.
func (p *Plan) Seal(s *spec.Spec) hcl.Diagnostics {
	inputs, diags := collectInputs(s, nil)
	return p.seal(inputs, diags)
}

// StartSeal is Seal in the background, for a build that need not wait
// for the inputs' digests before it starts (only the manifest and the
// runner's plan carry the fingerprint). The returned function waits for
// them, sets Inputs and the Fingerprint, and returns Seal's diagnostics;
// it may be called any number of times, and nothing may read Inputs or
// the Fingerprint before it returned. Files that cache knows to be
// unchanged since a build took their digests are not read again; cache
// may be nil.
func (p *Plan) StartSeal(s *spec.Spec, cache *digest.Cache) func() hcl.Diagnostics {
	type sealed struct {
		inputs []Input
		diags  hcl.Diagnostics
	}
	done := make(chan sealed, 1)
	go func() {
		inputs, diags := collectInputs(s, cache)
		done <- sealed{inputs, diags}
	}()
	return sync.OnceValue(func() hcl.Diagnostics {
		r := <-done
		return p.seal(r.inputs, r.diags)
	})
}

func (p *Plan) seal(inputs []Input, diags hcl.Diagnostics) hcl.Diagnostics {
	p.Inputs = inputs
	fp, err := fingerprint(p)
	if err != nil {
		return append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot fingerprint the plan", Detail: err.Error()})
	}
	p.Fingerprint = fp
	return diags
}

// checkUnique refuses two partitions of a variant with one PARTUUID, two
// filesystems with one UUID, or two mounted at one place: root=PARTUUID=,
// root=UUID=, fstab and by-uuid links would each pick one of them.
func (r *resolver) checkUnique(sv *spec.Variant, v Variant) {
	type seen struct {
		part *spec.Partition
		img  string
	}
	partUUID, fsUUID, mounts := map[string]seen{}, map[string]seen{}, map[string]seen{}
	for i, img := range v.Images {
		for _, p := range img.Partitions {
			sp := specPartition(sv.Images[i], p.Name)
			if sp == nil {
				continue
			}
			if p.UUID == "" {
				// no table, no PARTUUID
			} else if o, dup := partUUID[p.UUID]; dup {
				r.errorf(sp.Of("uuid"), "Duplicate partition UUID",
					"Partition %q of image %q has PARTUUID %s, as partition %q of image %q does: root= and fstab would name either. Give each a uuid of its own, or leave uuid out to derive one from the names.",
					p.Name, img.Name, p.UUID, o.part.Name, o.img)
			} else {
				partUUID[p.UUID] = seen{sp, img.Name}
			}
			f := p.Filesystem
			if f == nil || sp.Filesystem == nil {
				continue
			}
			if o, dup := fsUUID[f.UUID]; dup {
				r.errorf(sp.Filesystem.Of("uuid"), "Duplicate filesystem UUID",
					"The filesystem of partition %q has UUID %s, as that of partition %q of image %q: root=UUID= and /dev/disk/by-uuid would name either. Give each a uuid of its own, or leave uuid out.",
					p.Name, f.UUID, o.part.Name, o.img)
			} else {
				fsUUID[f.UUID] = seen{sp, img.Name}
			}
			if f.Mountpoint != "" {
				if o, dup := mounts[f.Mountpoint]; dup {
					r.errorf(sp.Filesystem.Of("mountpoint"), "Duplicate mountpoint",
						"Partition %q is mounted at %s, as partition %q is: the second mount would hide the first.", p.Name, f.Mountpoint, o.part.Name)
				} else {
					mounts[f.Mountpoint] = seen{sp, img.Name}
				}
			}
		}
	}
}

func specPartition(si *spec.Image, name string) *spec.Partition {
	for _, sp := range si.Partitions {
		if sp.Name == name {
			return sp
		}
	}
	return nil
}

// boot places the boot files, and checks that U-Boot's distro boot will
// look in their partition: it scans the partitions marked bootable, or
// partition 1 when none is.
func (r *resolver) boot(sv *spec.Variant, v Variant) *Boot {
	bf := sv.Board.Boot
	if bf == nil || len(v.Images) == 0 {
		return nil
	}
	img := v.Images[v.BootImage()]
	b := &Boot{Image: img.Name, Partition: bf.Partition, Dir: "/", Kernel: bf.Kernel, DTB: bf.DTB, Initramfs: bf.Initramfs, FDTDir: bf.FDTDir}
	var part *Partition
	bootable := false
	for i := range img.Partitions {
		p := &img.Partitions[i]
		bootable = bootable || p.Bootable
		if (bf.Partition == "" && p.Root) || p.Name == bf.Partition {
			part = p
		}
	}
	if part == nil {
		return nil // its placement failed, and was reported
	}
	b.Partition = part.Name
	if part.Root {
		b.Dir = "/boot"
	}
	rng := bf.PartitionAt
	if bf.Partition == "" {
		rng = bf.Decl
	}
	switch {
	case sv.Board.Bootloader == "rpi":
		if part.Number != 1 {
			r.errorf(rng, "Raspberry Pi boot files off the first partition",
				"The Raspberry Pi firmware reads config.txt, cmdline.txt and the kernel from partition 1 only; partition %q is number %d: make it the first.", part.Name, part.Number)
		}
		// The firmware reads the partition's top directory.
		b.Dir = "/"
		b.ConfigTxt = bf.ConfigTxt
	case bootable && !part.Bootable:
		r.errorf(rng, "Boot files on a partition U-Boot does not scan",
			"U-Boot's distro boot looks for boot files on the partitions marked bootable, and partition %q is not: mark it bootable = true.", part.Name)
	case !bootable && part.Number != 1:
		r.errorf(rng, "Boot files on a partition U-Boot does not scan",
			"U-Boot's distro boot looks for boot files on the partitions marked bootable, or on partition 1 when none is; partition %q is number %d: mark it bootable = true.", part.Name, part.Number)
	}
	return b
}

// checkRootBy makes sure root= can name the root partition the way the
// board asks.
func (r *resolver) checkRootBy(sv *spec.Variant, root *Partition) {
	if root == nil || sv.Board.RootBy != "partlabel" {
		return
	}
	for _, img := range sv.Images {
		for _, p := range img.Partitions {
			if p.Name != root.Name {
				continue
			}
			switch {
			case img.Table == "mbr":
				r.errorf(sv.Board.Of("root_by"), "No partition label on MBR",
					"root_by = \"partlabel\" needs a GPT table: MBR partitions have no labels. Use partuuid or device.")
			case strings.Contains(root.Label, ","):
				r.errorf(p.Of("label"), "Label unusable in root=",
					"The kernel reads root=PARTLABEL=%s up to the first comma; choose a label without one or root_by = \"partuuid\".", root.Label)
			default:
				if err := cmdline.Word("root=PARTLABEL=" + root.Label); err != nil {
					r.errorf(p.Of("label"), "Label unusable in root=",
						"root=PARTLABEL=%s cannot be one kernel argument: %v. Choose another label or root_by = \"partuuid\".", root.Label, err)
				}
			}
		}
	}
}
