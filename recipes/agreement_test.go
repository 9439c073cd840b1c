package recipes_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/target/runner"
)

// The host's catalogue and the runner's registry list the same recipes,
// each with the same schema: a recipe the host plans but the runner
// cannot execute, or one whose parameters or results the two sides read
// differently, fails here rather than on a board.
func TestCatalogueAndRunnerAgree(t *testing.T) {
	target := runner.Supported()
	host := map[string]int{}
	for _, r := range recipes.All() {
		host[r.Name] = r.Schema
	}
	for _, name := range slices.Sorted(maps.Keys(host)) {
		schema, ok := target[name]
		switch {
		case !ok:
			t.Errorf("recipe %s: the host catalogue has it, the runner does not execute it", name)
		case schema != host[name]:
			t.Errorf("recipe %s: schema %d on the host, %d in the runner", name, host[name], schema)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(target)) {
		if _, ok := host[name]; !ok {
			t.Errorf("recipe %s: the runner executes it, the host catalogue does not know it", name)
		}
	}
}
