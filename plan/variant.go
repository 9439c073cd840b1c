package plan

import (
	"fmt"

	"github.com/fsbench/fsbench/recipes"
)

// BootImage is the index of the image the board boots: the one holding
// the root partition, else the first. Tests run on its partitions.
func (v *Variant) BootImage() int {
	for i, img := range v.Images {
		for _, p := range img.Partitions {
			if p.Root {
				return i
			}
		}
	}
	return 0
}

// TestPartition finds the partition a test names: the boot image's, or
// else the first image's with that name (validation refuses a name that
// several other images share).
func (v *Variant) TestPartition(name string) (*Partition, bool) {
	if len(v.Images) == 0 {
		return nil, false
	}
	boot := &v.Images[v.BootImage()]
	for i := range boot.Partitions {
		if boot.Partitions[i].Name == name {
			return &boot.Partitions[i], true
		}
	}
	for _, img := range v.Images {
		for i := range img.Partitions {
			if img.Partitions[i].Name == name {
				return &img.Partitions[i], true
			}
		}
	}
	return nil, false
}

// NotApplicable says why test t cannot apply to this variant, "" when it
// can: a test that times the checker (fsck_time) on a filesystem that has
// none (nilfs2).
func (v *Variant) NotApplicable(t Test) string {
	rec, ok := recipes.Lookup(t.Recipe)
	if !ok || !rec.Needs.CheckerOnly || t.On == "" {
		return ""
	}
	p, ok := v.TestPartition(t.On)
	if !ok || p.Filesystem == nil || p.Filesystem.Check != nil {
		return ""
	}
	return fmt.Sprintf("%s has no offline checker for %s to run", p.Filesystem.Type, t.Recipe)
}
