package plan

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/spec"
	"github.com/fsbench/fsbench/spec/diag"
)

// Load reads the spec at path and resolves its plan, the way `validate`
// does. Resolution runs only on a spec that decoded cleanly, so that one
// mistake is not reported again through its consequences. The diagnostics
// of both phases come back sorted together.
func Load(path string, opts spec.Options) (*spec.Spec, *Plan, hcl.Diagnostics) {
	return load(path, opts, false)
}

// LoadSealed is Load, then Plan.Seal on a plan without errors: the inputs
// are digested into the plan's fingerprint, as `plan`, `build` and `run`
// need it.
func LoadSealed(path string, opts spec.Options) (*spec.Spec, *Plan, hcl.Diagnostics) {
	return load(path, opts, true)
}

func load(path string, opts spec.Options, seal bool) (*spec.Spec, *Plan, hcl.Diagnostics) {
	s, diags := spec.Load(path, opts)
	if diags.HasErrors() {
		return s, nil, diags
	}
	p, pdiags := Resolve(s)
	diags = append(diags, pdiags...)
	if seal && !diags.HasErrors() {
		diags = append(diags, p.Seal(s)...)
	}
	diag.Sort(diags)
	return s, p, diags
}

// LoadSealedSource is LoadSealed for a spec already in memory (another
// version of a spec, read from git): relative paths count from path's
// directory, and inputs are read from there.
func LoadSealedSource(path string, src []byte, opts spec.Options) (*spec.Spec, *Plan, hcl.Diagnostics) {
	s, diags := spec.LoadSource(path, src, opts)
	if diags.HasErrors() {
		return s, nil, diags
	}
	p, pdiags := Resolve(s)
	diags = append(diags, pdiags...)
	if !diags.HasErrors() {
		diags = append(diags, p.Seal(s)...)
	}
	diag.Sort(diags)
	return s, p, diags
}
