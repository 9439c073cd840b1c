package runner

import "github.com/fsbench/fsbench/target/step"

// registry holds the recipes this runner executes, by name; each recipe's
// file registers itself.
var registry = map[string]step.Recipe{}

func register(name string, r step.Recipe) {
	if _, dup := registry[name]; dup {
		panic("runner: recipe " + name + " registered twice")
	}
	registry[name] = r
}

// Supported lists the recipes this runner executes with the schema of
// each.
func Supported() map[string]int {
	out := map[string]int{}
	for k, r := range registry {
		out[k] = r.Schema
	}
	return out
}
