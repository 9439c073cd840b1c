package spec

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/dynblock"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/fsbench/fsbench/internal/srcfile"
	"github.com/fsbench/fsbench/spec/diag"
)

// Options carries everything outside the spec file that may change its
// meaning. The package reads nothing else.
type Options struct {
	// Vars are -var flags as "name=value", in command-line order.
	Vars []string
	// VarFiles are -var-file paths, in command-line order.
	VarFiles []string
	// Environ is the process environment as "KEY=VALUE"; only FSB_VAR_*
	// entries are read. Callers pass os.Environ() explicitly.
	Environ []string
	// Roots are directories besides the spec's own that contents may be
	// read from (a build system's output directory, say).
	Roots []string
	// Planning loads the spec for the commands that plan a build
	// (validate, plan, bootargs, buildvars, kconfig), which run before the
	// build system has made the files the spec reads: an input that does
	// not exist yet, or a path from a required variable nobody gave, is
	// Pending rather than an error. Only a build needs them.
	Planning bool
	// NoPayload says the images are built without the runner (build
	// -no-payload), so that tests need no root filesystem to carry it.
	NoPayload bool
}

// Spec is a loaded spec: its sources and its evaluated variants.
type Spec struct {
	Filename  string
	Dir       string
	VarFiles  []string     // the -var-file paths read
	Included  []string     // the files its include attributes merged in, as diagnostics name them
	Sources   diag.Sources // every source text, for diagnostics
	Variables map[string]cty.Value
	Variants  []*Variant
	// Pending are the inputs a planning load found missing, for the build
	// to provide (Options.Planning), sorted by where the spec names them.
	Pending []Pending
	// BuildVariables are the required variables a planning load had no
	// value for: the build system gives them.
	BuildVariables []string
	// IgnoredEnv are the FSB_VAR_ names of the environment that the spec
	// declares no variable for: ignored, as values for other specs.
	IgnoredEnv []string
}

// Pending is an input the spec reads that a planning load did not find:
// a file the build system makes, or a path taken from a variable that
// only the build system sets.
type Pending struct {
	At   hcl.Range
	Path string // as written, or "var.NAME" for a variable's value
	Kind string // "file" or "dir"
	// Where is the path the build will look at, absolute; "" for a
	// variable's value.
	Where string
	// Variables names the variables the path comes from and that have no
	// value yet.
	Variables []string
}

var topSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "locals"},
		{Type: "matrix", LabelNames: []string{"name"}},
		{Type: "board", LabelNames: []string{"name"}},
		{Type: "image", LabelNames: []string{"name"}},
		{Type: "test", LabelNames: []string{"recipe", "name"}},
		{Type: "verdict"},
	},
}

// parseSource parses an HCL file read into memory, refusing first a
// nesting deeper than srcfile allows.
func parseSource(src []byte, name string) (*hclsyntax.Body, hcl.Diagnostics) {
	if d := srcfile.CheckNesting(src, name); d != nil {
		return nil, hcl.Diagnostics{d}
	}
	file, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	return file.Body.(*hclsyntax.Body), diags
}

// Load reads, evaluates and checks the spec at filename.
func Load(filename string, opts Options) (*Spec, hcl.Diagnostics) {
	src, err := srcfile.Read(filename)
	if err != nil {
		return nil, hcl.Diagnostics{diag.Errorf(wholeFile(filename), "Cannot read spec", err.Error())}
	}
	return LoadSource(filename, src, opts)
}

// LoadSource is Load for a spec already in memory; relative paths in it
// count from filename's directory.
func LoadSource(filename string, src []byte, opts Options) (*Spec, hcl.Diagnostics) {
	s := &Spec{Filename: filename, Dir: filepath.Dir(filename), Sources: diag.Sources{filename: src}}
	body, diags := parseSource(src, filename)
	if diags.HasErrors() {
		return s, finish(diags)
	}
	paths, err := newResolver(s.Dir, opts.Roots)
	if err != nil {
		return s, append(diags, diag.Errorf(wholeFile(filename), "Invalid root", err.Error()))
	}
	paths.planning, paths.noPayload = opts.Planning, opts.NoPayload
	seen := map[string]bool{}
	if abs, err := filepath.Abs(filename); err == nil {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			seen[real] = true
		}
	}
	if idiags := s.includes(body, filename, paths, 0, seen); idiags.HasErrors() {
		return s, finish(append(diags, idiags...))
	}
	if fdiags := checkForNesting(body); fdiags.HasErrors() {
		return s, finish(append(diags, fdiags...))
	}
	useSizeOperators(body)
	content, cdiags := body.Content(topSchema)
	diags = append(diags, cdiags...)

	decls, locals, ddiags := declarations(content)
	diags = append(diags, ddiags...)
	if len(decls) > MaxDeclarations || len(locals) > MaxDeclarations {
		return s, finish(append(diags, diag.Errorf(wholeFile(filename), "Too many declarations",
			fmt.Sprintf("The spec declares %d variables and %d locals; a spec may declare %d of each.", len(decls), len(locals), MaxDeclarations))))
	}
	refDiags := checkReferences(body, decls, locals)
	varCtx, vdiags := s.variables(decls, opts)
	diags = append(diags, vdiags...)
	axes, adiags := decodeAxes(content.Blocks.OfType("matrix"), varCtx)
	diags = append(diags, adiags...)
	diags = append(diags, checkVariantCount(axes)...)
	if !diags.HasErrors() {
		diags = append(diags, s.evalVariants(content, combinations(axes), varCtx, locals, paths)...)
	}
	s.Pending = paths.pendingInputs()
	return s, finish(dropShadowed(append(diags, refDiags...), refDiags))
}

// declarations reads the variable blocks and the locals' attributes.
func declarations(content *hcl.BodyContent) (map[string]*variable, []*hcl.Attribute, hcl.Diagnostics) {
	decls, diags := declareVariables(content.Blocks.OfType("variable"))
	var locals []*hcl.Attribute
	for _, b := range content.Blocks.OfType("locals") {
		attrs, ldiags := b.Body.JustAttributes()
		diags = append(diags, ldiags...)
		for _, a := range attrs {
			locals = append(locals, a)
		}
	}
	sort.Slice(locals, func(i, j int) bool { return locals[i].NameRange.Start.Byte < locals[j].NameRange.Start.Byte })
	return decls, locals, append(diags, checkDuplicateLocals(locals)...)
}

// variables assigns the variables and returns the context every later
// expression is evaluated in.
func (s *Spec) variables(decls map[string]*variable, opts Options) (*hcl.EvalContext, hcl.Diagnostics) {
	base := &hcl.EvalContext{Functions: functions()}
	given, diags := s.givenVariables(opts)
	vals, fromBuild, ignored, adiags := assignVariables(decls, given, base, opts.Planning)
	s.Variables, s.BuildVariables, s.IgnoredEnv = vals, fromBuild, ignored
	ctx := base.NewChild()
	ctx.Variables = map[string]cty.Value{"var": cty.ObjectVal(vals)}
	return ctx, append(diags, adiags...)
}

func decodeAxes(blocks hcl.Blocks, ctx *hcl.EvalContext) ([]*axis, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var axes []*axis
	seen := map[string]bool{}
	for _, b := range blocks {
		ax, adiags := decodeAxis(b, ctx)
		diags = append(diags, adiags...)
		if seen[ax.Name] {
			diags = append(diags, diag.Errorf(b.LabelRanges[0], "Duplicate matrix", fmt.Sprintf("Matrix %q is already declared.", ax.Name)))
			continue
		}
		seen[ax.Name] = true
		if len(ax.Choices) > 0 {
			axes = append(axes, ax)
		}
	}
	return axes, diags
}

// evalVariants evaluates every variant and reports each problem once.
func (s *Spec) evalVariants(content *hcl.BodyContent, combos [][]MatrixChoice, varCtx *hcl.EvalContext, locals []*hcl.Attribute, paths *resolver) hcl.Diagnostics {
	per := make([]hcl.Diagnostics, len(combos))
	names := make([]string, len(combos))
	for i, combo := range combos {
		v, vdiags := evalVariant(content, combo, varCtx, locals, paths)
		s.Variants = append(s.Variants, v)
		per[i], names[i] = vdiags, v.Name
	}
	return diag.MergeVariants(names, per)
}

func finish(diags hcl.Diagnostics) hcl.Diagnostics {
	diags = diag.Dedupe(diags)
	diag.Sort(diags)
	return diags
}

func declareVariables(blocks hcl.Blocks) (map[string]*variable, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	decls := map[string]*variable{}
	for _, b := range blocks {
		v, vdiags := decodeVariable(b)
		diags = append(diags, vdiags...)
		if prev, ok := decls[v.Name]; ok {
			diags = append(diags, diag.Errorf(b.LabelRanges[0], "Duplicate variable",
				fmt.Sprintf("Variable %q is already declared at %s.", v.Name, describeRange(prev.DeclRange))))
			continue
		}
		decls[v.Name] = v
	}
	return decls, diags
}

func checkDuplicateLocals(locals []*hcl.Attribute) hcl.Diagnostics {
	var diags hcl.Diagnostics
	seen := map[string]*hcl.Attribute{}
	for _, a := range locals {
		if prev, ok := seen[a.Name]; ok {
			diags = append(diags, diag.Errorf(a.NameRange, "Duplicate local",
				fmt.Sprintf("local.%s is already defined at %s.", a.Name, describeRange(prev.NameRange))))
			continue
		}
		seen[a.Name] = a
	}
	return diags
}

// givenVariables gathers values from the environment, var-files and -var
// flags; a later source overrides an earlier one.
func (s *Spec) givenVariables(opts Options) (map[string]rawVar, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	given := map[string]rawVar{}
	for _, kv := range opts.Environ {
		k, v, _ := strings.Cut(kv, "=")
		if name, ok := strings.CutPrefix(k, "FSB_VAR_"); ok && name != "" {
			raw := textVar(k, v, "environment variable "+k, s.Sources)
			raw.fromEnv = true
			given[name] = raw
		}
	}
	for _, path := range opts.VarFiles {
		src, err := srcfile.Read(path)
		if err != nil {
			diags = append(diags, diag.Errorf(wholeFile(path), "Cannot read variable file", err.Error()))
			continue
		}
		s.Sources[path] = src
		s.VarFiles = append(s.VarFiles, path)
		body, fdiags := parseSource(src, path)
		diags = append(diags, fdiags...)
		if fdiags.HasErrors() {
			continue
		}
		if ndiags := checkForNesting(body); ndiags.HasErrors() {
			diags = append(diags, ndiags...)
			continue
		}
		attrs, adiags := body.JustAttributes()
		diags = append(diags, adiags...)
		for name, a := range attrs {
			given[name] = rawVar{Expr: a.Expr, Name: a.NameRange, Source: path}
		}
	}
	for i, arg := range opts.Vars {
		name, value, err := ParseVarFlag(arg)
		if err != nil {
			r := textVar(fmt.Sprintf("-var #%d", i+1), arg, "-var", s.Sources)
			diags = append(diags, diag.Errorf(r.Name, "Invalid -var option", err.Error()))
			continue
		}
		given[name] = textVar("-var "+name, value, "-var "+name, s.Sources)
	}
	return given, diags
}

// evalVariant decodes every block for one combination of matrix values.
func evalVariant(content *hcl.BodyContent, combo []MatrixChoice, varCtx *hcl.EvalContext, locals []*hcl.Attribute, paths *resolver) (*Variant, hcl.Diagnostics) {
	v := &Variant{Name: variantName(combo), Matrix: combo}
	ctx := varCtx.NewChild()
	ctx.Variables = map[string]cty.Value{
		"matrix":  matrixObject(combo),
		"variant": cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(v.Name)}),
	}
	localVals, diags := evalLocals(locals, ctx)
	ctx.Variables["local"] = cty.ObjectVal(localVals)

	d := &decoder{ctx: ctx}
	for _, b := range content.Blocks.OfType("board") {
		if v.Board != nil {
			d.errorf(b.DefRange, "Duplicate board", "A spec describes one board; %q is already declared.", v.Board.Name)
			continue
		}
		v.Board = d.board(expand(b, ctx), paths)
	}
	if v.Board == nil {
		v.Board = DefaultBoard()
	}
	images := map[string]*Image{}
	for _, b := range content.Blocks.OfType("image") {
		img := d.image(expand(b, ctx), paths)
		if prev, ok := images[img.Name]; ok {
			d.errorf(b.LabelRanges[0], "Duplicate image", "Image %q is already declared at %s.", img.Name, describeRange(prev.Decl))
			continue
		}
		images[img.Name] = img
		v.Images = append(v.Images, img)
	}
	d.checkUniquePartitions(v.Images)
	d.checkBootFiles(v.Board, v.Images)
	for _, b := range content.Blocks.OfType("test") {
		v.Tests = append(v.Tests, d.test(expand(b, ctx)))
	}
	d.checkTestTargets(v.Tests, v.Images)
	if !paths.noPayload {
		d.checkTestsHaveRoot(v.Tests, v.Images)
	}
	d.checkFilePlaces(v.Board, v.Images, v.Tests, paths.noPayload)
	for _, b := range content.Blocks.OfType("verdict") {
		if v.Verdict != nil {
			d.errorf(b.DefRange, "Duplicate verdict block", "A spec has one verdict block; one is already declared at %s.", describeRange(v.Verdict.Decl))
			continue
		}
		v.Verdict = d.verdict(expand(b, ctx))
	}
	return v, append(diags, d.diags...)
}

// expand applies `dynamic` blocks inside b, keeping its header.
func expand(b *hcl.Block, ctx *hcl.EvalContext) *hcl.Block {
	nb := *b
	nb.Body = dynblock.Expand(b.Body, ctx)
	return &nb
}

// checkUniquePartitions allows one root partition across images: the
// board boots one root filesystem. Partition names are unique within an
// image only: several images may each have a "boot" and a "rootfs".
func (d *decoder) checkUniquePartitions(images []*Image) {
	var root *Partition
	var rootImage string
	for _, img := range images {
		for _, p := range img.Partitions {
			if !p.Root {
				continue
			}
			if root != nil && rootImage != img.Name {
				d.errorf(p.Of("root"), "More than one root partition",
					"Partition %q of image %q is already the root; a board boots one root filesystem.", root.Name, rootImage)
			}
			if root == nil {
				root, rootImage = p, img.Name
			}
		}
	}
}

// checkTestsHaveRoot refuses tests the runner could not run: without a
// root partition, on a root that is a prebuilt image (the runner goes
// into the root filesystem), and on a read-only root with no other
// writable partition free of tests, where the runner would keep its
// progress. build -no-payload builds the images without the runner and
// the tests.
func (d *decoder) checkTestsHaveRoot(tests []*Test, images []*Image) {
	if len(tests) == 0 {
		return
	}
	var root *Partition
	for _, img := range images {
		for _, p := range img.Partitions {
			if p.Root {
				root = p
			}
		}
	}
	switch {
	case root == nil:
		d.errorf(tests[0].Decl, "Tests without a root filesystem",
			"The runner that runs the tests goes into the root filesystem the board boots, and no partition is root = true: "+
				"mark the board's root partition (with a filesystem block), or build with -no-payload to leave the runner and the tests out.")
	case root.Filesystem == nil && root.ImageFile != "":
		d.errorf(root.Of("image"), "Tests on a prebuilt root filesystem",
			"The runner that runs the tests goes into the root filesystem, and partition %q is a prebuilt image fsbench does not open: "+
				"give it a filesystem block with contents { tar = ... }, or build with -no-payload to leave the runner and the tests out.", root.Name)
	case root.Filesystem != nil && readOnlyType(root.Filesystem.Type) && !hasStatePartition(tests, images):
		d.errorf(root.Filesystem.Of("type"), "No writable partition for the runner's progress",
			"The root filesystem (%s) is read-only and every other writable partition is used by a test, so the runner has nowhere to keep its progress across reboots: "+
				"add a small writable partition (ext4, say) that no test uses.", root.Filesystem.Type)
	}
}

// hasStatePartition says whether a writable partition other than the
// root is free of tests: the runner keeps its progress there when the root
// is read-only.
func hasStatePartition(tests []*Test, images []*Image) bool {
	used := map[string]bool{}
	for _, t := range tests {
		used[t.On] = true
	}
	for _, img := range images {
		for _, p := range img.Partitions {
			if !p.Root && p.Filesystem != nil && !readOnlyType(p.Filesystem.Type) && !used[p.Name] {
				return true
			}
		}
	}
	return false
}

// wholeFile is the position of a problem with a file as a whole, such as
// one that cannot be read.
func wholeFile(name string) hcl.Range {
	return hcl.Range{Filename: name, Start: hcl.InitialPos, End: hcl.InitialPos}
}

// PendingLines says, one line each, what the build must provide before
// it can run: the inputs a planning load did not find, where it will look
// for them, and the variables only the build gives. Empty when nothing is
// pending.
func (s *Spec) PendingLines() []string {
	var out []string
	for _, p := range s.Pending {
		at := fmt.Sprintf("%s:%d", filepath.Base(p.At.Filename), p.At.Start.Line)
		if len(p.Variables) > 0 {
			out = append(out, fmt.Sprintf("%s (%s): a %s named by %s, which the build gives", p.Path, at, p.Kind, strings.Join(p.Variables, ", ")))
			continue
		}
		out = append(out, fmt.Sprintf("%s (%s): a %s the build makes, looked for at %s", p.Path, at, p.Kind, p.Where))
	}
	for _, v := range s.BuildVariables {
		out = append(out, fmt.Sprintf("variable %s: no value yet; the build gives it (-var %s=..., or FSB_VAR_%s)", v, v, v))
	}
	return out
}
