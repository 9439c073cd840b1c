package runplan

import (
	"slices"
	"testing"

	"github.com/fsbench/fsbench/filesystems"
)

// TestDefaultCheckerMatchesTheCatalogue: the runner's default checker of a
// type is the read-only checker the build runs on its images, so a check on
// the target means what the build's check meant.
func TestDefaultCheckerMatchesTheCatalogue(t *testing.T) {
	known := 0
	for _, name := range filesystems.Names() {
		got := DefaultChecker(name)
		if got == nil {
			continue
		}
		known++
		typ, _ := filesystems.Lookup(name)
		if !slices.Equal(got, typ.Checker) {
			t.Errorf("%s: DefaultChecker %q, the catalogue checks with %q", name, got, typ.Checker)
		}
		got[0] = "changed"
		if DefaultChecker(name)[0] == "changed" {
			t.Errorf("%s: DefaultChecker returns a shared slice", name)
		}
	}
	if known < 5 || DefaultChecker("nilfs2") != nil {
		t.Errorf("%d types have a default checker; nilfs2 has %q", known, DefaultChecker("nilfs2"))
	}
}
