package report

import (
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/ftl"
	"github.com/fsbench/fsbench/report/svg"
	"github.com/fsbench/fsbench/wire/blocktrace"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// flashReport builds the report of the flash fixture.
func flashReport(t *testing.T) *Report {
	t.Helper()
	return fixtureNamed(t, "flash").build(t)
}

// contextOf returns the context whose target attribute is target.
func contextOf(t *testing.T, rep *Report, target string) *Context {
	t.Helper()
	for _, c := range rep.Contexts {
		if c.Value("target") == target {
			return c
		}
	}
	t.Fatalf("no %s context", target)
	return nil
}

func sectionOf(t *testing.T, rep *Report, c *Context, title string) *Section {
	t.Helper()
	for _, s := range rep.sectionsOf(c) {
		if s.Title == title {
			return s
		}
	}
	t.Fatalf("context %s has no section %q", c.ID, title)
	return nil
}

// blocksText is every text of a section's blocks, warnings marked.
func blocksText(s *Section) []string {
	var out []string
	for _, b := range s.Blocks {
		switch {
		case b.Warn:
			out = append(out, "WARN "+b.Text)
		case b.Text != "":
			out = append(out, b.Text)
		}
		out = append(out, b.Items...)
	}
	return out
}

// TestWriteAmplificationChart: one group per test case that measured
// write amplification, one bar per variant in each, the median drawn.
func TestWriteAmplificationChart(t *testing.T) {
	rep := flashReport(t)
	qemu := contextOf(t, rep, "qemu")
	s := sectionOf(t, rep, qemu, "Write amplification")
	cs := s.charts()
	if len(cs) != 1 || !strings.HasPrefix(cs[0].Title, "Write amplification per filesystem and workload") {
		t.Fatalf("charts %v", cs)
	}
	bc := cs[0].Bars
	wantGroups := []string{"fio.write write-4MiB-direct", "fio.write randwrite-4KiB-direct", "sqlite_tps.androbench insert", "endurance.day"}
	if !slices.Equal(bc.Groups, wantGroups) || !slices.Equal(bc.Series, qemu.Variants) {
		t.Fatalf("groups %q, series %q", bc.Groups, bc.Series)
	}
	for g, cells := range bc.Cells {
		for i, c := range cells {
			r := findRowIn(rep, qemu, wantGroups[g], bc.Series[i], "write_amplification")
			if !c.Has || r == nil || c.Value != r.Median {
				t.Errorf("%s %s: bar %+v, row %+v", bc.Groups[g], bc.Series[i], c, r)
			}
		}
	}
	// The flash_info results do not account I/O: no group of theirs.
	if slices.ContainsFunc(bc.Groups, func(g string) bool { return strings.HasPrefix(g, "flash_info") }) {
		t.Error("a test that does not write has a group")
	}
	if !strings.Contains(cs[0].Note, "NAND's own amplification") {
		t.Errorf("note %q does not say what comes on top", cs[0].Note)
	}
}

// findRowIn finds a row by its chart's group label.
func findRowIn(rep *Report, c *Context, group, variant, metric string) *Row {
	for _, r := range rep.Rows {
		if r.Context == c && caseLabel(r.Recipe, r.Test, r.Case) == group && r.Variant == variant && r.Metric == metric {
			return r
		}
	}
	return nil
}

// TestHostGuestDifferenceFlagged: an iteration whose emulator and guest
// counts differ by more than 1% marks its bar and its table row, and the
// section warns; the others pass.
func TestHostGuestDifferenceFlagged(t *testing.T) {
	rep := flashReport(t)
	qemu := contextOf(t, rep, "qemu")
	s := sectionOf(t, rep, qemu, "Write amplification")
	ch := s.charts()[0]
	var marked []string
	for g, cells := range ch.Bars.Cells {
		for i, c := range cells {
			if c.Label != "" {
				marked = append(marked, ch.Bars.Groups[g]+"/"+ch.Bars.Series[i]+"/"+c.Label)
			}
		}
	}
	if want := []string{"fio.write randwrite-4KiB-direct/btrfs/host ≠ guest"}; !slices.Equal(marked, want) {
		t.Errorf("marked bars %q, want %q", marked, want)
	}
	var failed, passed int
	for _, row := range ch.Table.Rows {
		switch cell := row[len(row)-1]; {
		case strings.HasPrefix(cell, "✗ cross-check failed: +2.7%"):
			failed++
		case strings.Contains(cell, "(within ±1%)"):
			passed++
		default:
			t.Errorf("host cell %q", cell)
		}
	}
	if failed != 1 || passed != len(ch.Table.Rows)-1 {
		t.Errorf("%d failed, %d passed of %d rows", failed, passed, len(ch.Table.Rows))
	}
	text := strings.Join(blocksText(s), "\n")
	if !strings.Contains(text, "WARN The cross-check failed") || !strings.Contains(text, "randwrite-4KiB-direct (btrfs, +2.7% in its worst iteration)") {
		t.Errorf("no warning naming the case:\n%s", text)
	}
	// On the board there are no host counters: no column, and the reason.
	board := contextOf(t, rep, "board")
	bs := sectionOf(t, rep, board, "Write amplification")
	if head := bs.charts()[0].Table.Head; strings.Contains(head[len(head)-1], "host") {
		t.Errorf("a host column without host counters: %q", head)
	}
	if text := strings.Join(blocksText(bs), "\n"); !strings.Contains(text, "not available: no virtio port") || strings.Contains(text, "WARN") {
		t.Errorf("board's section:\n%s", text)
	}
}

// TestLostTraceNotModelled: a trace the runner could not keep whole is
// not modelled, and the section says why; an earlier whole trace of the
// same case is modelled instead, and says which.
func TestLostTraceNotModelled(t *testing.T) {
	rep := flashReport(t)
	qemu := contextOf(t, rep, "qemu")
	s := sectionOf(t, rep, qemu, "Lifetime")
	text := strings.Join(blocksText(s), "\n")
	for _, want := range []string{
		"WARN Not modelled: the trace is incomplete (1843 events dropped by the kernel's trace buffer).",
		"Not modelled: iteration 2: the trace is incomplete (cut at trace_limit (512 KiB encoded)); the figures are those of iteration 1.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the section does not say %q:\n%s", want, text)
		}
	}
	var nand []svg.BarCell
	for _, ch := range s.charts() {
		nand = ch.Bars.Cells[1]
	}
	btrfs := slices.Index(qemu.Variants, "btrfs")
	if len(nand) == 0 || nand[btrfs].Has || nand[btrfs].Missing != "not modelled" {
		t.Errorf("btrfs's NAND bar: %+v", nand)
	}
	for _, row := range s.Blocks[2].Table.Rows { // the table of candidates
		if row[0] == "btrfs" && !strings.HasPrefix(row[3], "not modelled: the trace is incomplete") {
			t.Errorf("btrfs's row %q", row)
		}
	}
}

// TestLifetimeListsAssumptions: every modelled candidate's figures are
// followed by the list of what they rest on: the report's own choices and
// every sentence of the model's Result and Lifetime.
func TestLifetimeListsAssumptions(t *testing.T) {
	rep := flashReport(t)
	board := contextOf(t, rep, "board")
	s := sectionOf(t, rep, board, "Lifetime")
	runs := 0
	for i, b := range s.Blocks {
		if b.Heading == "" {
			continue
		}
		runs++
		figures, list := s.Blocks[i+1], s.Blocks[i+2]
		if figures.Table == nil || list.Text != "Assumptions:" {
			t.Fatalf("%s: blocks after the heading: %+v, %+v", b.Heading, figures, list)
		}
		items := strings.Join(list.Items, "\n")
		for _, want := range []string{
			"NAND page 16KiB: the spec's geometry (page_size)", "erase block 4MiB: the spec's geometry (erase_block)",
			"over-provisioning 7.0%: the board's endurance block",
			"logical capacity 8GiB: the board's endurance block; the partition's 512MiB at its start take the trace, the other 7.5GiB are static data",
			"the product writes 256MiB a day (the board's writes_per_day)",
			"page-level mapping; greedy garbage collection", "steady state: the trace replayed",
			"lifetime: ", "3000 rated P/E cycles", "the most-worn block wears",
		} {
			if !strings.Contains(items, want) {
				t.Errorf("%s: the assumptions lack %q:\n%s", b.Heading, want, items)
			}
		}
		var rows []string
		for _, r := range figures.Table.Rows {
			rows = append(rows, r[0]+" = "+r[1])
		}
		got := strings.Join(rows, "\n")
		for _, want := range []*regexp.Regexp{
			regexp.MustCompile(`NAND write amplification \(model\) = \d`),
			regexp.MustCompile(`total write amplification \(filesystem × NAND\) = \d`),
			regexp.MustCompile(`erases per GiB written to the device \(model\) = \d`),
			regexp.MustCompile(`lifetime, ideal wear leveling .* = [\d.]+ years`),
			regexp.MustCompile(`lifetime, most-worn block .* = [\d.]+ years`),
		} {
			if !want.MatchString(got) {
				t.Errorf("%s: no figure %s in\n%s", b.Heading, want, got)
			}
		}
	}
	if runs != 2 {
		t.Errorf("%d candidates modelled, want 2", runs)
	}
	// Without rated cycles (QEMU: no endurance block), the amplification
	// and where the lifetime would come from.
	qs := sectionOf(t, rep, contextOf(t, rep, "qemu"), "Lifetime")
	if text := strings.Join(blocksText(qs), "\n"); !strings.Contains(text, "No lifetime: the results carry no rated P/E cycles: give the board an endurance block") ||
		!strings.Contains(text, "over-provisioning 7.0%: assumed, the board has no endurance block") ||
		!strings.Contains(text, "NAND page 16KiB: assumed, the spec's geometry gives no page_size") {
		t.Errorf("QEMU's lifetime section:\n%s", text)
	}
}

// TestGeometryMismatchWarns: a stated erase unit other than the spec's
// erase block warns, with the tuning the stated one would give; the probe
// that agrees with the spec does not.
func TestGeometryMismatchWarns(t *testing.T) {
	rep := flashReport(t)
	s := sectionOf(t, rep, contextOf(t, rep, "board"), "Flash geometry and health")
	var warns []string
	for _, b := range s.Blocks {
		if b.Warn {
			warns = append(warns, b.Text)
		}
	}
	want := []string{
		`The eMMC states a 512KiB erase group (EXT_CSD HC_ERASE_GRP_SIZE [224]); the spec tunes ext4 for 4MiB (-E stride=1024,stripe_width=1024): with erase_block = "512KiB" it would be -E stride=128,stripe_width=128.`,
		`The eMMC states a 512KiB erase group (EXT_CSD HC_ERASE_GRP_SIZE [224]); the spec tunes f2fs for 4MiB (-s 2): with erase_block = "512KiB" it would be -s 1.`,
	}
	if !slices.Equal(warns, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warns, "\n"), strings.Join(want, "\n"))
	}
	if text := strings.Join(blocksText(s), "\n"); !strings.Contains(text, "life time estimate A went from 0x01 (0-10% of life used) (before) to 0x02 (10-20% of life used) (after)") {
		t.Errorf("no health change:\n%s", text)
	}
}

// flashInfoResult is a flash_info result of an SD card that states its
// allocation unit.
func flashInfoResult(fstype string, au, spec float64) resultframe.Result {
	return resultframe.Result{Version: 1, RunID: "r", Seq: 1, Recipe: "flash_info", Name: "before", Case: "single", Variant: fstype,
		Iteration: 1, Status: resultframe.StatusOK,
		Metrics: []resultframe.Metric{{Name: "ssr_au_size", Value: au, Unit: "bytes"}, {Name: "stated_erase_unit", Value: au, Unit: "bytes"},
			{Name: "spec_erase_block", Value: spec, Unit: "bytes"}},
		Attrs: map[string]string{"target": "board", "card_type": "SD", "fstype": fstype, "partition_bytes": "1073741824",
			"stated_erase_unit.source": "SD Status (sysfs device/ssr) AU_SIZE [431:428]", "probe": "not run: probe = false",
			"life_time_est_a": "not available: /dev/mmcblk0 is an SD card: EXT_CSD is an eMMC register"}}
}

// TestRetuningPerFilesystem: the tuning text names, for each filesystem,
// the mkfs options the measured erase block changes, from the plan's own
// derivation.
func TestRetuningPerFilesystem(t *testing.T) {
	for _, c := range []struct {
		fstype string
		want   string
	}{
		{"ext4", `The card states a 8MiB allocation unit (SD Status (sysfs device/ssr) AU_SIZE [431:428]); the spec tunes ext4 for 4MiB (-E stride=1024,stripe_width=1024): with erase_block = "8MiB" it would be -E stride=2048,stripe_width=2048.`},
		{"f2fs", `the spec tunes f2fs for 4MiB (-s 2): with erase_block = "8MiB" it would be -s 4.`},
		{"xfs", `the spec tunes xfs for 4MiB (-d su=4194304,sw=1,agcount=4): with erase_block = "8MiB" it would be -d su=8388608.`},
		{"nilfs2", `the spec tunes nilfs2 for 4MiB (-B 1024): with erase_block = "8MiB" it would be -B 2048.`},
		{"btrfs", `the spec tunes btrfs for 4MiB: with erase_block = "8MiB" its options would not change (mkfs.btrfs 6.2 has no setting that uses the erase block).`},
	} {
		rep := Build([]Input{{Path: "x.jsonl", Results: []resultframe.Result{flashInfoResult(c.fstype, 8<<20, 4<<20)}}}, Options{})
		s := sectionOf(t, rep, rep.Contexts[0], "Flash geometry and health")
		var warn string
		for _, b := range s.Blocks {
			if b.Warn {
				warn = b.Text
			}
		}
		if !strings.HasSuffix(warn, c.want) {
			t.Errorf("%s: %q\nwant it to end %q", c.fstype, warn, c.want)
		}
	}
	// Without the filesystem's type the report says it cannot derive.
	r := flashInfoResult("ext4", 8<<20, 4<<20)
	delete(r.Attrs, "fstype")
	rep := Build([]Input{{Path: "x.jsonl", Results: []resultframe.Result{r}}}, Options{})
	if text := strings.Join(blocksText(sectionOf(t, rep, rep.Contexts[0], "Flash geometry and health")), "\n"); !strings.Contains(text,
		"the result does not name the partition's filesystem (attribute fstype), so the tuning 8MiB would give is not derived") {
		t.Errorf("without fstype:\n%s", text)
	}
}

// TestNotAvailableIsNeverZero: a fact the device does not state, a
// writer histogram the kernel did not give, and host counters that do
// not exist are shown with their reason, in every table and in both
// renderings, never as a zero.
func TestNotAvailableIsNeverZero(t *testing.T) {
	rep := flashReport(t)
	qemu := contextOf(t, rep, "qemu")
	s := sectionOf(t, rep, qemu, "Flash geometry and health")
	var tab *Table
	for _, b := range s.Blocks {
		if b.Table != nil {
			tab = b.Table
		}
	}
	for _, row := range tab.Rows {
		if slices.Contains([]string{"spec erase_block (the partition's geometry)", "probe estimate of the erase block"}, row[0]) {
			continue
		}
		if !strings.HasPrefix(row[1], "not available: ") {
			t.Errorf("%s: %q", row[0], row[1])
		}
	}
	// A result without a writers' histogram or fs-thread bytes.
	var in []resultframe.Result
	for _, fx := range flashFixture(t) {
		if fx.name == "qemu-ext4" {
			for _, r := range fx.out {
				if r.Recipe == "sqlite_tps" {
					r.Attrs["io_writers"] = "not available: no tracefs hist triggers (CONFIG_HIST_TRIGGERS)"
					r.Metrics = slices.DeleteFunc(r.Metrics, func(m resultframe.Metric) bool {
						return m.Name == "fs_thread_write_bytes" || m.Name == "writeback_write_bytes" || m.Name == "host_guest_difference"
					})
					r.Attrs["host_counters"] = "not available: QMP: connection refused"
					in = append(in, r)
				}
			}
		}
	}
	one := Build([]Input{{Path: "x.jsonl", Results: in}}, Options{})
	row := sectionOf(t, one, one.Contexts[0], "Write amplification").charts()[0].Table.Rows[0]
	if row[8] != "not available: no tracefs hist triggers (CONFIG_HIST_TRIGGERS)" || row[9] != row[8] {
		t.Errorf("fs threads and writers: %q", row)
	}
	if !strings.HasPrefix(row[len(row)-1], "not available: QMP") && len(row) == 11 {
		t.Errorf("host cell %q", row[len(row)-1])
	}
	// Neither rendering writes a zero for a fact not read.
	for name, page := range map[string]string{"html": rep.HTML(), "markdown": rep.Markdown()} {
		for _, zero := range []string{"<td>0B</td>", "| 0B |", "<td>0 bytes</td>", "| 0 bytes |"} {
			if strings.Contains(page, zero) {
				t.Errorf("%s holds %q", name, zero)
			}
		}
	}
}

// TestSectionsInBothRenderings: the HTML page and the Markdown summary
// hold the same sections, warnings and assumptions.
func TestSectionsInBothRenderings(t *testing.T) {
	rep := flashReport(t)
	h, md := rep.HTML(), rep.Markdown()
	for _, s := range rep.Sections {
		if !strings.Contains(h, `<section id="`+s.ID+`">`) || !strings.Contains(h, `<a href="#`+s.ID+`">`) {
			t.Errorf("the page lacks section %s or its link", s.ID)
		}
		if !strings.Contains(md, "\n### "+mdText(s.Title)+"\n") {
			t.Errorf("the summary lacks section %s", s.Title)
		}
		for _, b := range s.Blocks {
			for _, it := range append(b.Items, b.Text) {
				if it != "" && !strings.Contains(md, mdText(it)) {
					t.Errorf("the summary lacks %q", it)
				}
			}
		}
	}
	warns := 0
	for _, s := range rep.Sections {
		for _, b := range s.Blocks {
			if b.Warn {
				warns++
				if !strings.Contains(h, `<p class="warn">`+html.EscapeString(b.Text)+`</p>`) || !strings.Contains(md, "> **Warning:** "+mdText(b.Text)) {
					t.Errorf("warning %q not in both", b.Text)
				}
			}
		}
	}
	if rep.Verdict != nil && len(rep.Verdict.Rankings) > 0 {
		for _, c := range rep.Contexts {
			if emulatedNote(c) != "" {
				warns++ // the verdict's note on an emulated target
			}
		}
	}
	if n := strings.Count(md, "> **Warning:**"); n != warns || warns == 0 {
		t.Errorf("%d warnings in the summary, %d in the sections", n, warns)
	}
}

// TestModelBudget: a trace that programs few pages a pass gets fewer
// rounds, or is refused, rather than a report that takes minutes.
func TestModelBudget(t *testing.T) {
	s := ftl.Settings{PageSize: 16 << 10, EraseBlockSize: 4 << 20, LogicalBytes: 8 << 30, OverProvisioning: 0.07, StaticShare: 0.5}
	// 10^5 requests that program a hundred pages a pass: rewrites of one
	// 4 KiB block, which the device's buffer merges, and a flush every
	// 1000.
	var rs []blocktrace.Record
	for i := range 100000 {
		if i%1000 == 999 {
			rs = append(rs, blocktrace.Record{Op: blocktrace.Flush})
			continue
		}
		rs = append(rs, blocktrace.Record{Op: blocktrace.Write, Sector: 0, Sectors: 8})
	}
	_, _, err := convergenceFor(s, rs)
	if err == nil || !strings.Contains(err.Error(), "more than the report's budget") {
		t.Errorf("a trace that programs 100 pages a pass: %v", err)
	}
	// A day's trace is modelled in full.
	day := dayTrace(dayShape{seconds: 86400, fsyncEvery: 3, logLine: 400, txEvery: 60, cfgEvery: 900, cfgBlocks: 4, update: 2340,
		sectors: 1 << 21, seed: 1}, false)
	conv, note, err := convergenceFor(s, day)
	if err != nil || conv.MaxRounds != 0 || note != "" {
		t.Errorf("a day's trace: %+v %q %v", conv, note, err)
	}
}

// BenchmarkFlashModel is the model on a day of a busy logger: about 10^5
// requests, 8 GiB of eMMC with 1 GiB traced. It takes some 50 ms.
func BenchmarkFlashModel(b *testing.B) {
	for _, logged := range []bool{false, true} {
		day := dayTrace(dayShape{seconds: 86400, fsyncEvery: 3, logLine: 400, txEvery: 60, cfgEvery: 900, cfgBlocks: 4, update: 2340,
			sectors: 1 << 21, seed: 1}, logged)
		s := ftl.Settings{PageSize: 16 << 10, EraseBlockSize: 4 << 20, LogicalBytes: 8 << 30, OverProvisioning: 0.07, StaticShare: 0.875}
		b.Run(map[bool]string{false: "in-place", true: "log-structured"}[logged], func(b *testing.B) {
			for b.Loop() {
				conv, _, err := convergenceFor(s, day)
				if err != nil {
					b.Fatal(err)
				}
				res, err := ftl.SteadyState(s, day, conv)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(res.Passes()), "passes")
				b.ReportMetric(float64(len(day)), "requests")
			}
		})
	}
}

// TestWriteAmplificationTableUsesItsIterations: mount_time writes only in
// its first iteration, the fill; the table's workload and device columns
// are those of the iterations the amplification is the median of, not
// the medians of every mount's few bytes.
func TestWriteAmplificationTableUsesItsIterations(t *testing.T) {
	line := func(iter int, workload, device float64, wa bool) string {
		m := fmt.Sprintf(`{"name":"mount_time","value":0.02,"unit":"s"},{"name":"workload_write_bytes","value":%v,"unit":"B"},`+
			`{"name":"device_write_bytes","value":%v,"unit":"B"},{"name":"fs_thread_write_bytes","value":%v,"unit":"B"}`, workload, device, device/4)
		if wa {
			m += fmt.Sprintf(`,{"name":"write_amplification","value":%v,"unit":"x"}`, device/workload)
		}
		return fmt.Sprintf(`{"v":1,"run":"r","seq":%d,"recipe":"mount_time","name":"bench","case":"single","variant":"ext4","iter":%d,"status":"ok","metrics":[%s]}`,
			iter, iter, m)
	}
	text := strings.Join([]string{line(1, 200<<20, 210<<20, true), line(2, 31, 16384, false), line(3, 39, 16384, false)}, "\n") + "\n"
	ins, err := Load([]string{writeFile(t, t.TempDir(), "r.jsonl", text)})
	if err != nil {
		t.Fatal(err)
	}
	rep := Build(ins, Options{})
	s := sectionOf(t, rep, rep.Contexts[0], "Write amplification")
	rows := s.charts()[0].Table.Rows
	if len(rows) != 1 {
		t.Fatalf("rows %q", rows)
	}
	// test case, candidate, n, workload, device, WA, flushes, discards, threads
	if got := rows[0][3:6]; !slices.Equal(got, []string{"200.0", "210.0", "1.050"}) {
		t.Errorf("workload, device, WA: %q, want the first iteration's", got)
	}
	if rows[0][8] != "25.0%" {
		t.Errorf("filesystem threads' share %q, want 25.0%%", rows[0][8])
	}
}
