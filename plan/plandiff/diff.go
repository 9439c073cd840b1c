// Package plandiff says what a change to a spec changes: it compares two
// resolved plans (package plan) and lists, per variant, the partitions
// added, removed, moved or resized, the filesystems' types, tuning, mkfs
// command lines and mount options, the kernel command line and boot
// settings, the tests and their cases, and the inputs' digests. Each
// change says whether it changes the images or only the tests baked into
// them, and whether it breaks an installed base: a board flashed with the
// old image that takes updates of single partitions.
//
// It compares plans only; it never reads a spec, a file or git itself.
package plandiff

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/internal/units"
	"github.com/fsbench/fsbench/plan"
)

// Format names the JSON form of a Diff.
const Format = "fsbench-plan-diff/1"

// Affects says what a change changes.
type Affects string

// What a change can affect.
const (
	// Image: the partition table, a filesystem, its contents or the boot
	// files: the image is built differently.
	Image Affects = "image"
	// Tests: the tests, and with them the run plan baked into the root
	// filesystem; the disk layout and the filesystems stay as they were.
	Tests Affects = "tests"
)

// Change is one difference.
type Change struct {
	// Where names the thing that changed: "image disk, partition rootfs",
	// "test fio.bandwidth", "board".
	Where string `json:"where"`
	// What is the property: "start", "size", "filesystem type", "mkfs",
	// "cases", ...; Kind is added, removed or changed.
	What string `json:"what"`
	Kind string `json:"kind"`
	// Old and New are the values, as plan prints them; empty for what
	// was added or removed.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Affects says what the change changes.
	Affects Affects `json:"affects"`
	// Breaking says why an installed base breaks, or "".
	Breaking string `json:"breaking,omitempty"`
}

// VariantDiff is what changed in one variant.
type VariantDiff struct {
	Name string `json:"name"`
	// Status is added, removed, changed or unchanged.
	Status  string   `json:"status"`
	Changes []Change `json:"changes,omitempty"`
}

// Side names one of the plans compared.
type Side struct {
	// Ref is what the plan was read from: a file, or git REV:PATH.
	Ref         string `json:"ref"`
	Fingerprint string `json:"fingerprint"`
}

// Diff is the comparison of two plans.
type Diff struct {
	Format string `json:"format"`
	Old    Side   `json:"old"`
	New    Side   `json:"new"`
	// Inputs are the changes of the files the plans read.
	Inputs   []Change      `json:"inputs,omitempty"`
	Variants []VariantDiff `json:"variants"`
	// ImageChanged, TestsChanged and Breaking sum the changes up.
	ImageChanged bool `json:"image_changed"`
	TestsChanged bool `json:"tests_changed"`
	Breaking     bool `json:"breaking"`
}

// Compare lists what changes from old to new; oldRef and newRef name them.
func Compare(old, new *plan.Plan, oldRef, newRef string) *Diff {
	d := &Diff{Format: Format, Old: Side{oldRef, old.Fingerprint}, New: Side{newRef, new.Fingerprint}}
	d.Inputs = inputs(old.Inputs, new.Inputs)
	oldV := map[string]*plan.Variant{}
	for i := range old.Variants {
		oldV[old.Variants[i].Name] = &old.Variants[i]
	}
	seen := map[string]bool{}
	for i := range new.Variants {
		nv := &new.Variants[i]
		seen[nv.Name] = true
		ov, ok := oldV[nv.Name]
		if !ok {
			d.Variants = append(d.Variants, VariantDiff{Name: nv.Name, Status: "added",
				Changes: []Change{{Where: "variant " + nv.Name, What: "variant", Kind: "added", Affects: Image}}})
			continue
		}
		c := &differ{}
		c.variant(ov, nv)
		vd := VariantDiff{Name: nv.Name, Status: "unchanged", Changes: c.changes}
		if len(c.changes) > 0 {
			vd.Status = "changed"
		}
		d.Variants = append(d.Variants, vd)
	}
	for _, ov := range old.Variants {
		if !seen[ov.Name] {
			d.Variants = append(d.Variants, VariantDiff{Name: ov.Name, Status: "removed",
				Changes: []Change{{Where: "variant " + ov.Name, What: "variant", Kind: "removed", Affects: Image}}})
		}
	}
	for _, c := range d.Inputs {
		d.sum(c)
	}
	for _, v := range d.Variants {
		for _, c := range v.Changes {
			d.sum(c)
		}
	}
	return d
}

func (d *Diff) sum(c Change) {
	switch c.Affects {
	case Image:
		d.ImageChanged = true
	case Tests:
		d.TestsChanged = true
	}
	d.Breaking = d.Breaking || c.Breaking != ""
}

// Empty reports whether nothing changed.
func (d *Diff) Empty() bool { return !d.ImageChanged && !d.TestsChanged && !d.Breaking }

func inputs(old, new []plan.Input) []Change {
	// The spec is one file whatever its name (another version of it may
	// be another file); the other inputs are matched by role and path.
	key := func(in plan.Input) string {
		if in.Role == "spec" {
			return "spec"
		}
		return in.Role + " " + in.Path
	}
	om := map[string]plan.Input{}
	for _, in := range old {
		om[key(in)] = in
	}
	var out []Change
	nm := map[string]bool{}
	for _, in := range new {
		nm[key(in)] = true
		o, ok := om[key(in)]
		switch {
		case !ok:
			out = append(out, Change{Where: "input " + in.Path, What: in.Role, Kind: "added", New: short(in.SHA256), Affects: Image})
		case o.SHA256 != in.SHA256:
			out = append(out, Change{Where: "input " + in.Path, What: in.Role, Kind: "changed", Old: short(o.SHA256), New: short(in.SHA256), Affects: Image})
		}
	}
	for _, in := range old {
		if !nm[key(in)] {
			out = append(out, Change{Where: "input " + in.Path, What: in.Role, Kind: "removed", Old: short(in.SHA256), Affects: Image})
		}
	}
	// The spec file itself always differs when anything does: its digest
	// is not news.
	return slices.DeleteFunc(out, func(c Change) bool { return c.What == "spec" && c.Kind == "changed" })
}

func short(sum string) string {
	if len(sum) > 16 {
		return sum[:16]
	}
	return sum
}

// differ collects the changes of one variant.
type differ struct {
	changes []Change
}

func (c *differ) add(ch Change) { c.changes = append(c.changes, ch) }

// field records a changed value.
func (c *differ) field(where, what string, old, new any, affects Affects, breaking string) {
	o, n := render(old), render(new)
	if o == n {
		return
	}
	c.add(Change{Where: where, What: what, Kind: "changed", Old: o, New: n, Affects: affects, Breaking: breaking})
}

// render writes a value as plan's text does: strings as they are, lists
// joined with spaces, anything else as compact JSON.
func render(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []string:
		return strings.Join(x, " ")
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (c *differ) variant(o, n *plan.Variant) {
	c.field("board", "board", o.Board.Name, n.Board.Name, Image, "")
	c.field("board", "architecture", string(o.Board.Arch), string(n.Board.Arch), Image, "")
	c.field("board", "storage", o.Board.Storage, n.Board.Storage, Image, "")
	c.field("board", "init", o.Board.Init, n.Board.Init, Image, "")
	c.field("board", "bootloader", o.Board.Bootloader, n.Board.Bootloader, Image, "")
	c.field("board", "root_by", o.Board.RootBy, n.Board.RootBy, Image, "")
	c.field("board", "root_wait", o.Board.RootWait, n.Board.RootWait, Tests, "")
	c.field("board", "endurance", enduranceText(o.Board.Endurance), enduranceText(n.Board.Endurance), Tests, "")
	c.field("boot", "bootargs", o.Bootargs, n.Bootargs, Image, "")
	ob, nb := cmp.Or(o.Board.Boot, &plan.Boot{}), cmp.Or(n.Board.Boot, &plan.Boot{})
	moved := ""
	if o.Board.Boot != nil && n.Board.Boot != nil {
		moved = "the board's bootloader looks for its boot files where the installed base has them"
	}
	c.field("boot", "files in the image", strings.TrimSpace(ob.Image+" "+ob.Partition+" "+ob.Dir),
		strings.TrimSpace(nb.Image+" "+nb.Partition+" "+nb.Dir), Image, moved)
	c.field("boot", "kernel", ob.Kernel, nb.Kernel, Image, "")
	c.field("boot", "device tree", ob.DTB, nb.DTB, Image, "")
	c.field("boot", "device tree directory", ob.FDTDir, nb.FDTDir, Image, "")
	c.field("boot", "initramfs", ob.Initramfs, nb.Initramfs, Image, "")
	oi := map[string]*plan.Image{}
	for i := range o.Images {
		oi[o.Images[i].Name] = &o.Images[i]
	}
	seen := map[string]bool{}
	for i := range n.Images {
		ni := &n.Images[i]
		seen[ni.Name] = true
		if old, ok := oi[ni.Name]; ok {
			c.image(old, ni, n.Board.RootBy)
		} else {
			c.add(Change{Where: "image " + ni.Name, What: "image", Kind: "added", Affects: Image})
		}
	}
	for _, img := range o.Images {
		if !seen[img.Name] {
			c.add(Change{Where: "image " + img.Name, What: "image", Kind: "removed", Affects: Image,
				Breaking: "a board flashed with the old image has a disk no image describes"})
		}
	}
	c.tests(o.Tests, n.Tests)
}

func (c *differ) image(o, n *plan.Image, rootBy string) {
	where := "image " + n.Name
	c.field(where, "table", o.Table, n.Table, Image, "the partition table of a flashed board changes")
	c.field(where, "size", units.FormatSize(o.Size), units.FormatSize(n.Size), Image, "")
	c.field(where, "sector size", o.SectorSize, n.SectorSize, Image, "the flashed disk's sector size changes")
	c.field(where, "disk id", o.DiskID, n.DiskID, Image, "")
	c.gpt(where, o.GPT, n.GPT)
	c.field(where, "extended slot", extendedSlot(o), extendedSlot(n), Image, "the logical partitions' container moves to another MBR entry")
	op := map[string]*plan.Partition{}
	for i := range o.Partitions {
		op[o.Partitions[i].Name] = &o.Partitions[i]
	}
	seen := map[string]bool{}
	for i := range n.Partitions {
		np := &n.Partitions[i]
		seen[np.Name] = true
		if old, ok := op[np.Name]; ok {
			c.partition(where, old, np, rootBy)
		} else {
			c.add(Change{Where: where + ", partition " + np.Name, What: "partition", Kind: "added",
				New: sectors(np), Affects: Image})
		}
	}
	for _, p := range o.Partitions {
		if !seen[p.Name] {
			c.add(Change{Where: where + ", partition " + p.Name, What: "partition", Kind: "removed", Old: sectors(&p),
				Affects: Image, Breaking: "the partition and its data are gone from the new layout"})
		}
	}
	c.raw(where, o.Raw, n.Raw)
}

// gpt compares where the GPT's own structures lie.
func (c *differ) gpt(where string, o, n *plan.GPT) {
	if o == nil || n == nil {
		return // the table changed, and was reported
	}
	c.field(where, "GPT entries", fmt.Sprintf("sector %d", o.EntriesSector), fmt.Sprintf("sector %d", n.EntriesSector), Image,
		"the boot ROM or loader that reads the table finds the entries elsewhere, and what lay there is overwritten")
	c.field(where, "first usable sector", o.FirstUsable, n.FirstUsable, Image, "")
	c.field(where, "last usable sector", o.LastUsable, n.LastUsable, Image, "")
	c.field(where, "backup GPT", o.Backup, n.Backup, Image, "")
	c.field(where, "hybrid MBR", hybrid(o.Hybrid), hybrid(n.Hybrid), Image, "a boot ROM that reads the MBR sees other partitions")
}

func hybrid(es []plan.HybridEntry) []string {
	var out []string
	for _, e := range es {
		s := e.Partition + ":" + e.Type
		if e.Bootable {
			s += ":bootable"
		}
		out = append(out, s)
	}
	return out
}

func extendedSlot(img *plan.Image) int {
	if img.Extended == nil {
		return 0
	}
	return img.Extended.Slot
}

func sectors(p *plan.Partition) string {
	return fmt.Sprintf("sectors %d-%d (%s)", p.StartSector, p.EndSector, units.FormatSize(p.Size))
}

func (c *differ) partition(img string, o, n *plan.Partition, rootBy string) {
	where := img + ", partition " + n.Name
	if o.StartSector != n.StartSector {
		c.add(Change{Where: where, What: "start", Kind: "moved", Old: sectors(o), New: sectors(n), Affects: Image,
			Breaking: "the partition starts elsewhere: an update of this partition alone would overwrite its neighbour's data or miss its own"})
	}
	if o.Sectors != n.Sectors {
		c.add(Change{Where: where, What: "size", Kind: "resized", Old: sectors(o), New: sectors(n), Affects: Image,
			Breaking: "the partition's size changes: a flashed board keeps its old table and filesystem size"})
	}
	c.field(where, "number", o.Number, n.Number, Image, "the partition's device name changes")
	c.field(where, "type", o.Type, n.Type, Image, "")
	c.field(where, "PARTUUID", o.UUID, n.UUID, Image, "root=PARTUUID= and fstab name the partition by it")
	labelBreak := ""
	if rootBy == "partlabel" && n.Root {
		labelBreak = "root=PARTLABEL= names the root partition by it"
	}
	c.field(where, "label", o.Label, n.Label, Image, labelBreak)
	c.field(where, "bootable", o.Bootable, n.Bootable, Image, "")
	c.field(where, "root", o.Root, n.Root, Image, "")
	c.field(where, "image", o.Image, n.Image, Image, "")
	of, nf := o.Filesystem, n.Filesystem
	switch {
	case of == nil && nf == nil:
		return
	case of == nil:
		c.add(Change{Where: where, What: "filesystem", Kind: "added", New: nf.Type, Affects: Image})
		return
	case nf == nil:
		c.add(Change{Where: where, What: "filesystem", Kind: "removed", Old: of.Type, Affects: Image,
			Breaking: "the partition's data is no longer a filesystem"})
		return
	}
	typeBreak := ""
	if holdsData(o) {
		typeBreak = "the partition holds data a board keeps, which a filesystem of another type cannot read"
	}
	c.field(where, "filesystem type", of.Type, nf.Type, Image, typeBreak)
	c.field(where, "filesystem label", of.Label, nf.Label, Image, "")
	c.field(where, "filesystem UUID", of.UUID, nf.UUID, Image, "")
	c.field(where, "block size", of.BlockSize, nf.BlockSize, Image, "")
	c.field(where, "features", of.Features, nf.Features, Image, "")
	c.field(where, "journal", of.Journal, nf.Journal, Image, "")
	c.field(where, "flash geometry", geometry(of), geometry(nf), Image, "")
	c.field(where, "tuning", derived(of), derived(nf), Image, "")
	c.field(where, "mkfs", of.Mkfs.Argv, nf.Mkfs.Argv, Image, "")
	c.field(where, "populate", commands(of.Populate), commands(nf.Populate), Image, "")
	c.field(where, "mount options", of.Mount, nf.Mount, Image, "")
	c.field(where, "mountpoint", of.Mountpoint, nf.Mountpoint, Image, "")
	c.field(where, "contents", of.Contents, nf.Contents, Image, "")
	c.field(where, "reproducible", of.Deterministic, nf.Deterministic, Image, "")
}

// holdsData reports whether a flashed board keeps data on the partition:
// it is the root, mounted, or has contents.
func holdsData(p *plan.Partition) bool {
	f := p.Filesystem
	return f != nil && (p.Root || f.Mountpoint != "" || f.Contents != nil)
}

// enduranceText is the board's flash rating as plan prints it. It goes
// into the run plan only, for the flash-wear model: the tests change, not
// the disk.
func enduranceText(e *plan.Endurance) string {
	if e == nil {
		return ""
	}
	return e.String()
}

// geometry is the flash geometry mkfs was tuned for.
func geometry(f *plan.Filesystem) []string {
	var out []string
	if f.EraseBlock > 0 {
		out = append(out, "erase_block="+units.FormatSize(f.EraseBlock))
	}
	if f.PageSize > 0 {
		out = append(out, "page_size="+units.FormatSize(f.PageSize))
	}
	return out
}

func derived(f *plan.Filesystem) []string {
	var out []string
	for _, d := range f.Derived {
		out = append(out, fmt.Sprintf("%s=%v", d.Name, d.Value))
	}
	return out
}

func commands(cs []filesystems.Command) []string {
	var out []string
	for _, c := range cs {
		out = append(out, strings.Join(c.Argv, " "))
	}
	return out
}

func (c *differ) raw(img string, o, n []plan.Raw) {
	om := map[string]plan.Raw{}
	for _, r := range o {
		om[r.Name] = r
	}
	nm := map[string]bool{}
	for _, r := range n {
		nm[r.Name] = true
		where := img + ", raw " + r.Name
		old, ok := om[r.Name]
		if !ok {
			c.add(Change{Where: where, What: "raw region", Kind: "added", New: fmt.Sprintf("at %d", r.Offset), Affects: Image})
			continue
		}
		c.field(where, "offset", old.Offset, r.Offset, Image, "the boot ROM looks for the blob where it was")
		c.field(where, "size", old.Size, r.Size, Image, "")
		c.field(where, "file", old.File, r.File, Image, "")
		c.field(where, "holes", old.Holes, r.Holes, Image, "")
	}
	for _, r := range o {
		if !nm[r.Name] {
			c.add(Change{Where: img + ", raw " + r.Name, What: "raw region", Kind: "removed", Affects: Image})
		}
	}
}

func (c *differ) tests(o, n []plan.Test) {
	key := func(t plan.Test) string { return t.Recipe + "." + t.Name }
	om := map[string]plan.Test{}
	for _, t := range o {
		om[key(t)] = t
	}
	nm := map[string]bool{}
	for _, t := range n {
		nm[key(t)] = true
		where := "test " + key(t)
		old, ok := om[key(t)]
		if !ok {
			c.add(Change{Where: where, What: "test", Kind: "added", New: caseNames(t), Affects: Tests})
			continue
		}
		c.field(where, "on", old.On, t.On, Tests, "")
		c.field(where, "settle", settleText(old.Settle), settleText(t.Settle), Tests, "")
		oc := map[string]map[string]any{}
		for _, cs := range old.Cases {
			oc[cs.Name] = cs.Params
		}
		var added, removed []string
		for _, cs := range t.Cases {
			p, ok := oc[cs.Name]
			if !ok {
				added = append(added, cs.Name)
				continue
			}
			c.field(where+", case "+cs.Name, "parameters", params(p), params(cs.Params), Tests, "")
		}
		nc := map[string]bool{}
		for _, cs := range t.Cases {
			nc[cs.Name] = true
		}
		for _, cs := range old.Cases {
			if !nc[cs.Name] {
				removed = append(removed, cs.Name)
			}
		}
		if len(added) > 0 {
			c.add(Change{Where: where, What: "cases", Kind: "added", New: strings.Join(added, " "), Affects: Tests})
		}
		if len(removed) > 0 {
			c.add(Change{Where: where, What: "cases", Kind: "removed", Old: strings.Join(removed, " "), Affects: Tests})
		}
	}
	for _, t := range o {
		if !nm[key(t)] {
			c.add(Change{Where: "test " + key(t), What: "test", Kind: "removed", Old: caseNames(t), Affects: Tests})
		}
	}
}

// settleText writes a settle rule as the plan shows it, "none" without one.
func settleText(st *plan.Settle) string {
	if st == nil {
		return "none"
	}
	return fmt.Sprintf("ci %s%%, %d to %d iterations, on %s", strconv.FormatFloat(100*st.CI, 'g', -1, 64), st.Min, st.Max, strings.Join(st.Metrics, ", "))
}

func caseNames(t plan.Test) string {
	var names []string
	for _, c := range t.Cases {
		names = append(names, c.Name)
	}
	return strings.Join(names, " ")
}

// params writes a case's parameters in name order, one "name=value" each.
func params(p map[string]any) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(p)) {
		out = append(out, k+"="+render(p[k]))
	}
	return out
}
