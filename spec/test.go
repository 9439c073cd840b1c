package spec

import (
	"slices"

	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/spec/diag"
)

// decodeTest reads a test block against its recipe's schema. The "on"
// attribute is a reference (partition.NAME), read statically so that a
// wrong name is reported at the reference; it is resolved by the caller
// once every partition is known.
func (d *decoder) test(b *hcl.Block) *Test {
	t := &Test{Recipe: b.Labels[0], Name: b.Labels[1], Params: map[string]any{}}
	if !partNameRegex.MatchString(t.Name) || len(t.Name) > maxNameLen {
		d.errorf(b.LabelRanges[1], "Invalid test name",
			"A test name starts with a letter or digit and holds up to 64 letters, digits, '_', '.' and '-': it names the test's results, scratch directories and charts.")
	}
	r, ok := recipes.Lookup(t.Recipe)
	if !ok {
		d.errorf(b.LabelRanges[0], "Unknown test recipe", "fsbench has no recipe %q.%s Recipes: %s.",
			t.Recipe, diag.DidYouMean(t.Recipe, recipes.Names()), joinNames(recipes.Names()))
		t.Ranges = Ranges{Decl: b.DefRange, Attrs: map[string]hcl.Range{}}
		return t
	}
	schema := &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "on"}}, Blocks: []hcl.BlockHeaderSchema{{Type: "settle"}}}
	for _, f := range r.Fields {
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: f.Name, Required: f.Required})
	}
	before := len(d.diags)
	c := d.content(b.Body, schema)
	t.Ranges = newRanges(b.DefRange, c.Attributes)
	if a, ok := c.Attributes["on"]; ok {
		t.OnAt = a.Expr.Range()
		t.On = d.partitionRef(a, "on")
	}
	for _, f := range r.Fields {
		if a, ok := c.Attributes[f.Name]; ok && f.Kind == fields.Partition {
			if name := d.partitionRef(a, f.Name); name != "" {
				t.Params[f.Name] = name
			}
			continue
		}
		if x, ok := d.field(c.Attributes, f, "Invalid test parameter"); ok {
			t.Params[f.Name] = x
		}
	}
	for _, blk := range c.Blocks {
		if t.Settle != nil {
			d.errorf(blk.DefRange, "Duplicate settle block", "Test %q %q already has a settle block at %s.", t.Recipe, t.Name, describeRange(t.Settle.Decl))
			continue
		}
		t.Settle = d.settle(blk, r, t)
	}
	if !d.diags[before:].HasErrors() {
		for _, p := range r.Validate(recipes.Params(t.Params)) {
			d.errorf(t.Of(p.Field), p.Summary, "%s", p.Detail)
		}
	}
	return t
}

// partitionRef reads `on = partition.NAME`, or another attribute that
// names a partition the same way.
func (d *decoder) partitionRef(a *hcl.Attribute, attr string) string {
	summary, example := "Invalid test target", "partition.rootfs"
	if attr != "on" {
		summary, example = "Invalid partition reference", "partition.log"
	}
	tr, diags := hcl.AbsTraversalForExpr(a.Expr)
	if diags.HasErrors() || len(tr) != 2 || tr.RootName() != "partition" {
		d.errorf(a.Expr.Range(), summary, "%s takes a partition reference such as %s.", attr, example)
		return ""
	}
	step, ok := tr[1].(hcl.TraverseAttr)
	if !ok {
		d.errorf(a.Expr.Range(), summary, "%s takes a partition reference such as %s.", attr, example)
		return ""
	}
	return step.Name
}

// checkTestTargets resolves every test's partition reference. Tests run
// on the image the board boots, the one with the root partition: a name
// several images share means that image's partition.
func (d *decoder) checkTestTargets(tests []*Test, images []*Image) {
	boot := BootImage(images)
	var names []string
	for _, img := range images {
		for _, p := range img.Partitions {
			if !slices.Contains(names, p.Name) {
				names = append(names, p.Name)
			}
		}
	}
	seen := map[string]hcl.Range{}
	for _, t := range tests {
		key := t.Recipe + "." + t.Name
		if prev, ok := seen[key]; ok {
			d.errorf(t.Decl, "Duplicate test", "test %q %q is already declared at %s.", t.Recipe, t.Name, describeRange(prev))
		}
		seen[key] = t.Decl
		r, ok := recipes.Lookup(t.Recipe)
		if !ok {
			continue
		}
		if t.On == "" {
			if r.Target != recipes.OnRoot && t.OnAt == (hcl.Range{}) {
				d.errorf(t.Decl, "Missing test target", "A %s test runs on a partition: add on = partition.NAME.", t.Recipe)
			}
			continue
		}
		p, holders := testPartition(images, boot, t.On)
		switch {
		case p == nil && len(holders) == 0:
			d.errorf(t.OnAt, "Unknown partition", "No image has a partition %q.%s", t.On, diag.DidYouMean(t.On, names))
			continue
		case p == nil:
			d.errorf(t.OnAt, "Ambiguous partition",
				"Images %s each have a partition %q, and the image the board boots (%q, with the root partition) has none: rename one of them.",
				quoteAll(holders), t.On, images[boot].Name)
			continue
		}
		d.checkTarget(t, r, p)
		d.checkPartitionFields(t, r, images, boot, names)
	}
}

// checkPartitionFields resolves the partitions a test's fields name
// besides `on` (crash_states' log): each must be another partition of the
// image the board boots, not the root one, and hold no filesystem, since
// the test overwrites it (unless the field says the test writes a
// filesystem there).
func (d *decoder) checkPartitionFields(t *Test, r *recipes.Recipe, images []*Image, boot int, names []string) {
	for _, f := range r.Fields {
		name, ok := t.Params[f.Name].(string)
		if f.Kind != fields.Partition || !ok {
			continue
		}
		at := t.Of(f.Name)
		p, holders := testPartition(images, boot, name)
		switch {
		case p == nil && len(holders) == 0:
			d.errorf(at, "Unknown partition", "No image has a partition %q.%s", name, diag.DidYouMean(name, names))
		case p == nil:
			d.errorf(at, "Ambiguous partition", "Images %s each have a partition %q, and the image the board boots has none: rename one of them.", quoteAll(holders), name)
		case name == t.On:
			d.errorf(at, "Partition used twice", "%s names the partition the test runs on (%q); the test overwrites it, so give %s a partition of its own.", f.Name, name, f.Name)
		case p.Root:
			d.errorf(at, "Root partition overwritten", "%s names the root partition %q, and the test overwrites it; give %s a partition of its own.", f.Name, name, f.Name)
		case p.Filesystem != nil && !f.Formatted:
			d.errorf(at, "Partition with a filesystem overwritten",
				"%s names partition %q, which has a filesystem block; the test overwrites the partition, so give %s one without a filesystem.", f.Name, name, f.Name)
		}
	}
}

// BootImage is the index of the image the board boots: the one holding
// the root partition, else the first.
func BootImage(images []*Image) int {
	for i, img := range images {
		for _, p := range img.Partitions {
			if p.Root {
				return i
			}
		}
	}
	return 0
}

// testPartition finds the partition a test names: the boot image's, or
// the only image's that has one of that name. holders lists the images
// that have one.
func testPartition(images []*Image, boot int, name string) (*Partition, []string) {
	var found *Partition
	var holders []string
	for i, img := range images {
		for _, p := range img.Partitions {
			if p.Name != name {
				continue
			}
			holders = append(holders, img.Name)
			if i == boot {
				return p, holders
			}
			found = p
		}
	}
	if len(holders) > 1 {
		return nil, holders
	}
	return found, holders
}

// checkTarget checks that the partition a test names suits its recipe.
func (d *decoder) checkTarget(t *Test, r *recipes.Recipe, p *Partition) {
	switch {
	case r.Target == recipes.OnRoot && !p.Root:
		d.errorf(t.OnAt, "Invalid test target", "A %s test measures the root filesystem; %q is not the root partition.", t.Recipe, t.On)
	case r.Target != recipes.OnRoot && r.Target != recipes.OnFilesystem && p.Root:
		what := "mounts and unmounts its filesystem"
		if r.Destructive {
			what = "reformats or corrupts its partition"
		}
		d.errorf(t.OnAt, "Test needs a partition of its own",
			"%s %s, which the running system cannot do to its root filesystem %q. Give it a partition of its own.", t.Recipe, what, t.On)
	case p.Filesystem == nil && r.Target != recipes.OnDevice:
		d.errorf(t.OnAt, "Test on a partition without a filesystem", "%s tests run on a filesystem; partition %q has no filesystem block.", t.Recipe, t.On)
	case r.NeedsEmpty && p.Contents != nil:
		d.errorf(t.OnAt, "Test needs an empty filesystem", "%s measures a freshly made filesystem; partition %q gets contents.", t.Recipe, t.On)
	case !r.ReadOnly && p.Filesystem != nil && readOnlyType(p.Filesystem.Type):
		d.errorf(t.OnAt, "Test writes to a read-only filesystem",
			"%s writes to its filesystem, and partition %q holds %s, which is read-only. Give the test a writable partition.", t.Recipe, t.On, p.Filesystem.Type)
	}
}

func readOnlyType(name string) bool {
	t, ok := filesystems.Lookup(name)
	return ok && t.ReadOnly
}
