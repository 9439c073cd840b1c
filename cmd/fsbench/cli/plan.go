package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/gitrev"
	"github.com/fsbench/fsbench/internal/units"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/plan/plandiff"
	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/spec"
)

func runPlan(env *Env, args []string) int {
	fs := newFlagSet(env, "plan", "SPEC",
		"Resolve a spec and show, per variant, the partition table, the exact mkfs and\npopulate command lines, mount options, kernel command line, the tests with their\ncases, and a fingerprint of every input. -json writes the plan ("+plan.Format+")\nthat 'build' and the target runner consume.")
	var sf specFlags
	sf.register(fs)
	asJSON := fs.Bool("json", false, "write the resolved plan as JSON on stdout (with -compare, the diff as "+plandiff.Format+")")
	variant := fs.String("variant", "", "only this variant")
	compare := fs.String("compare", "", "show what changes from another version of the spec: a file, or a git revision of the same path (origin/main, HEAD~1), read with git show")
	if code, done := parse(fs, args); done {
		return code
	}
	path, code := oneSpec(env, fs, &sf)
	if code != ExitOK {
		return code
	}
	s, p, diags := plan.LoadSealed(path, sf.planningOptions(env))
	if diags.HasErrors() {
		writeDiags(env, s, diags)
		return ExitInvalid
	}
	writeDiags(env, s, diags) // warnings
	variants, code := selectVariants(env, p, *variant)
	if code != ExitOK {
		return code
	}
	p.Variants = variants
	if *compare != "" {
		return comparePlans(env, &sf, path, *compare, *variant, p, *asJSON)
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(p); err != nil {
			return ExitIO
		}
		return ExitOK
	}
	writePlan(env.Stdout, p)
	if lines := s.PendingLines(); len(lines) > 0 {
		fmt.Fprintf(env.Stdout, "\npending (the build provides them; the fingerprint changes once it has):\n")
		for _, l := range lines {
			fmt.Fprintf(env.Stdout, "  %s\n", l)
		}
	}
	return ExitOK
}

func writePlan(w io.Writer, p *plan.Plan) {
	fmt.Fprintf(w, "spec:        %s\n", p.Spec)
	fmt.Fprintf(w, "fingerprint: sha256:%s\n", p.Fingerprint)
	fmt.Fprintf(w, "inputs:\n")
	for _, in := range p.Inputs {
		sum := "pending         "
		if !in.Pending {
			sum = in.SHA256[:16]
		}
		fmt.Fprintf(w, "  %-16s %s  %s\n", in.Role, sum, in.Path)
	}
	for _, v := range p.Variants {
		fmt.Fprintf(w, "\n== variant %s", v.Name)
		if len(v.Matrix) > 0 {
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(v.Matrix)) {
				parts = append(parts, k+"="+v.Matrix[k])
			}
			fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
		}
		fmt.Fprintf(w, "\n")
		b := v.Board
		fmt.Fprintf(w, "board %s: arch %s, console %s, storage /dev/%s, init %s, bootloader %s\n", b.Name, b.Arch, b.Console, b.Storage, b.Init, b.Bootloader)
		if e := b.Endurance; e != nil {
			fmt.Fprintf(w, "endurance: %s\n", e)
		}
		for _, img := range v.Images {
			writeImage(w, img)
		}
		fmt.Fprintf(w, "\nbootargs: %s\n", strings.Join(v.Bootargs, " "))
		if bt := b.Boot; bt != nil {
			writeBoot(w, b.Bootloader, bt)
		}
		if b.RootWait != "" {
			fmt.Fprintf(w, "root wait: %s\n", b.RootWait)
		}
		writeTests(w, &v)
	}
}

// writeBoot says what build puts into the image for the bootloader.
func writeBoot(w io.Writer, loader string, bt *plan.Boot) {
	file := "extlinux/extlinux.conf"
	if loader == "uboot" {
		file = "boot.scr (from boot.cmd)"
	}
	kernel := "Debian's kernel for the board, fsbench's initramfs"
	if bt.Kernel != "" {
		kernel = "kernel " + bt.Kernel
		if bt.Initramfs != "" {
			kernel += ", initramfs " + bt.Initramfs
		}
	}
	if bt.DTB != "" {
		kernel += ", device tree " + bt.DTB
	}
	if bt.FDTDir != "" {
		kernel += ", device trees from " + bt.FDTDir + " (U-Boot's fdtfile)"
	}
	fmt.Fprintf(w, "boot files: image %s, partition %s, %s: %s; %s\n", bt.Image, bt.Partition, bt.Dir, file, kernel)
}

func writeImage(w io.Writer, img plan.Image) {
	fmt.Fprintf(w, "\nimage %s: %s, %s (%d sectors of %d bytes), align %s, disk id %s\n",
		img.File, img.Table, units.FormatSize(img.Size), img.Size/img.SectorSize, img.SectorSize, units.FormatSize(img.Align), img.DiskID)
	if g := img.GPT; g != nil {
		backup := "backup at the end"
		if !g.Backup {
			backup = "no backup"
		}
		fmt.Fprintf(w, "  GPT: entries at sectors %d-%d, usable sectors %d-%d, %s\n",
			g.EntriesSector, g.EntriesSector+g.EntriesSectors-1, g.FirstUsable, g.LastUsable, backup)
		for i, e := range g.Hybrid {
			boot := ""
			if e.Bootable {
				boot = ", bootable"
			}
			fmt.Fprintf(w, "  hybrid MBR entry %d: partition %s, type %s%s\n", i+1, e.Partition, e.Type, boot)
		}
		if len(g.Hybrid) > 0 {
			fmt.Fprintf(w, "  hybrid MBR entry %d: protective 0xee, sectors 1-%d\n", len(g.Hybrid)+1, g.EntriesSector+g.EntriesSectors-1)
		}
	}
	fmt.Fprintf(w, "  %-3s %-12s %10s %10s %10s %9s  %-18s %s\n", "#", "name", "start", "end", "sectors", "size", "type", "uuid")
	if e := img.Extended; e != nil {
		fmt.Fprintf(w, "  %-3d %-12s %10d %10d %10d %9s  %-18s\n", e.Slot, "(extended)", e.StartSector, e.StartSector+e.Sectors-1, e.Sectors, units.HumanSize(e.Sectors*img.SectorSize), e.Type)
	}
	for _, pt := range img.Partitions {
		typ := pt.Type
		if pt.TypeName != "" {
			typ = pt.TypeName
		}
		flags := ""
		if pt.Bootable {
			flags += " bootable"
		}
		if pt.Root {
			flags += " root"
		}
		fmt.Fprintf(w, "  %-3d %-12s %10d %10d %10d %9s  %-18s %s%s\n", pt.Number, pt.Name, pt.StartSector, pt.EndSector, pt.Sectors, units.HumanSize(pt.Size), typ, pt.UUID, flags)
	}
	for _, r := range img.Raw {
		holes := ""
		for _, h := range r.Holes {
			holes += fmt.Sprintf(", hole at bytes %d-%d", r.Offset+h.Offset, r.Offset+h.Offset+h.Size)
		}
		fmt.Fprintf(w, "  raw %s: %s at byte %d (%d bytes)%s\n", r.Name, r.File, r.Offset, r.Size, holes)
	}
	for _, pt := range img.Partitions {
		if pt.Image != "" {
			fmt.Fprintf(w, "\n  partition %s: written from %s\n", pt.Name, pt.Image)
		}
		if pt.Filesystem != nil {
			writeFilesystem(w, pt)
		}
	}
}

func writeFilesystem(w io.Writer, pt plan.Partition) {
	f := pt.Filesystem
	fmt.Fprintf(w, "\n  partition %s: %s, uuid %s", pt.Name, f.Type, f.UUID)
	if f.Label != "" {
		fmt.Fprintf(w, ", label %q", f.Label)
	}
	fmt.Fprintf(w, "\n")
	for _, d := range f.Derived {
		if d.Value == nil {
			fmt.Fprintf(w, "    derived:   %s not set: %s\n", d.Name, d.From)
			continue
		}
		fmt.Fprintf(w, "    derived:   %s = %v (%s)\n", d.Name, d.Value, d.From)
	}
	fmt.Fprintf(w, "    mkfs:      %s\n", commandLine(f.Mkfs))
	for _, c := range f.Populate {
		fmt.Fprintf(w, "    populate:  %s\n", commandLine(c))
	}
	if f.Contents != nil {
		c := f.Contents
		switch {
		case c.Dir != "":
			fmt.Fprintf(w, "    contents:  directory %s\n", c.Dir)
		case c.Tar != "":
			fmt.Fprintf(w, "    contents:  tarball %s\n", c.Tar)
		}
		for _, file := range c.Files {
			src := file.Source
			if file.Content != nil {
				src = fmt.Sprintf("%d bytes inline", len(*file.Content))
			}
			fmt.Fprintf(w, "    file:      %s (%s %d:%d) from %s\n", file.Path, file.Mode, file.UID, file.GID, src)
		}
	}
	if f.Check != nil {
		fmt.Fprintf(w, "    check:     %s\n", commandLine(*f.Check))
	} else {
		fmt.Fprintf(w, "    check:     none (%s has no offline checker)\n", f.Type)
	}
	if len(f.Cleaner) > 0 {
		fmt.Fprintf(w, "    cleaner:   %s (started beside the mounts of the tests that write)\n", strings.Join(f.Cleaner, " "))
	}
	if len(f.Mount) > 0 {
		fmt.Fprintf(w, "    mount:     %s", strings.Join(f.Mount, ","))
		if pt.Root {
			fmt.Fprintf(w, " (rootflags=%s; VFS flags %s applied by remount)", orNone(f.RootFlags), orNone(strings.Join(f.VFSFlags, ",")))
		}
		fmt.Fprintf(w, "\n")
	}
	if f.Mountpoint != "" {
		fmt.Fprintf(w, "    mountpoint: %s\n", f.Mountpoint)
	}
	if !f.Deterministic {
		fmt.Fprintf(w, "    reproducible: no. %s\n", f.Note)
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func writeTests(w io.Writer, v *plan.Variant) {
	tests := v.Tests
	if len(tests) == 0 {
		return
	}
	fmt.Fprintf(w, "\ntests:\n")
	var iters int
	var total time.Duration
	for _, t := range tests {
		on := ""
		if t.On != "" {
			on = " on " + t.On
		}
		fmt.Fprintf(w, "  %s %q%s: %d case%s\n", t.Recipe, t.Name, on, len(t.Cases), plural(len(t.Cases)))
		var params []string
		for _, k := range slices.Sorted(maps.Keys(t.Params)) {
			if t.Params[k] == "" {
				continue // an empty pattern adds nothing (the JSON form has it)
			}
			params = append(params, k+"="+showParam(t.Recipe, k, t.Params[k]))
		}
		writeWrapped(w, "    params: ", params)
		var cases []string
		for _, c := range t.Cases {
			cases = append(cases, c.Name)
		}
		writeWrapped(w, "    cases:  ", cases)
		writeEstimates(w, t)
		if st := t.Settle; st != nil {
			fmt.Fprintf(w, "    settle: each case until the 95%% interval of the mean of %s is within ±%s%%, %d to %d iterations\n",
				strings.Join(st.Metrics, ", "), strconv.FormatFloat(100*st.CI, 'g', -1, 64), st.Min, st.Max)
		}
		if na := v.NotApplicable(t); na != "" {
			fmt.Fprintf(w, "    not applicable: %s; reported so, not run\n", na)
			continue
		}
		n, d := worstCase(t)
		iters += n
		total += d
	}
	fmt.Fprintf(w, "  worst case: %d iterations, %s if each takes its whole timeout\n", iters, total.Round(time.Second))
}

// writeEstimates writes what each case's recipe estimates of it (a
// crash_states model's count of states).
func writeEstimates(w io.Writer, t plan.Test) {
	rec, ok := recipes.Lookup(t.Recipe)
	if !ok || rec.Estimate == nil {
		return
	}
	for _, c := range t.Cases {
		if e := rec.Estimate(c.Params); e != "" {
			fmt.Fprintf(w, "    %s: %s\n", c.Name, e)
		}
	}
}

// worstCase is the most iterations a test runs, over all its cases, and
// their time if each takes its timeout.
func worstCase(t plan.Test) (int, time.Duration) {
	rec, ok := recipes.Lookup(t.Recipe)
	if !ok {
		return 0, 0
	}
	var n int
	var d time.Duration
	for _, c := range t.Cases {
		k := int64(1)
		switch {
		case t.Settle != nil:
			k = int64(t.Settle.Max)
		case rec.Count != "":
			if x, ok := c.Params[rec.Count].(int64); ok {
				k = x
			}
		}
		timeout := rec.Timeout()
		if s, ok := c.Params["timeout"].(string); ok {
			if x, err := time.ParseDuration(s); err == nil {
				timeout = x
			}
		}
		n += int(k)
		d += time.Duration(k) * timeout
	}
	return n, d
}

// writeWrapped writes words after prefix, wrapping near 100 columns with
// continuation lines indented under the first word.
func writeWrapped(w io.Writer, prefix string, words []string) {
	line := prefix
	indent := strings.Repeat(" ", len(prefix))
	for i, word := range words {
		if i > 0 && len(line)+1+len(word) > 100 {
			fmt.Fprintln(w, line)
			line = indent + word
			continue
		}
		if i > 0 {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}

// showParam writes a test parameter as a spec author would: sizes with
// units, lists in brackets.
func showParam(recipe, name string, v any) string {
	kind := fields.String
	if r, ok := recipes.Lookup(recipe); ok {
		if f, ok := r.Field(name); ok {
			kind = f.Kind
		}
	}
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = showParam(recipe, name, e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case int64:
		if kind == fields.Size {
			return units.FormatSize(x)
		}
	case string:
		if x == "" || strings.ContainsAny(x, " \t\"") {
			return strconv.Quote(x)
		}
	}
	return fmt.Sprint(v)
}

// commandLine shows argv as a shell would need it quoted; fsbench itself
// never runs it through a shell.
func commandLine(c filesystems.Command) string {
	var parts []string
	parts = append(parts, c.Env...)
	for _, a := range c.Argv {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%{}^", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// comparePlans loads the other version of the spec and writes what
// changes from it to p. The exit code says what the change changes:
// ExitOK nothing, ExitTestsChanged only the tests, ExitImageChanged the
// images, ExitBreaking the images in a way that breaks an installed base.
func comparePlans(env *Env, sf *specFlags, path, ref, variant string, p *plan.Plan, asJSON bool) int {
	var (
		s      *spec.Spec
		old    *plan.Plan
		diags  hcl.Diagnostics
		oldRef = ref
	)
	if fi, err := os.Stat(ref); err == nil && fi.Mode().IsRegular() {
		s, old, diags = plan.LoadSealed(ref, sf.planningOptions(env))
	} else {
		src, err := gitrev.Show(context.Background(), ref, path)
		if err != nil {
			fmt.Fprintf(env.Stderr, "fsbench plan: -compare %s: neither a file nor a git revision of %s: %s\n", ref, path, err)
			return ExitIO
		}
		oldRef = ref + ":" + path
		s, old, diags = plan.LoadSealedSource(path, src, sf.planningOptions(env))
	}
	if diags.HasErrors() {
		fmt.Fprintf(env.Stderr, "fsbench plan: the version to compare with (%s) does not load:\n", oldRef)
		writeDiags(env, s, diags)
		return ExitInvalid
	}
	if variant != "" {
		old.Variants = slices.DeleteFunc(old.Variants, func(v plan.Variant) bool { return v.Name != variant })
	}
	d := plandiff.Compare(old, p, oldRef, path)
	var err error
	if asJSON {
		err = d.WriteJSON(env.Stdout)
	} else {
		err = d.WriteText(env.Stdout)
	}
	if err != nil {
		return ExitIO
	}
	switch {
	case d.Breaking:
		return ExitBreaking
	case d.ImageChanged:
		return ExitImageChanged
	case d.TestsChanged:
		return ExitTestsChanged
	}
	return ExitOK
}
