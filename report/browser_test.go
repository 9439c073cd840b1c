package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/report/svg"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// chromium runs headless Chromium on page with args and returns its
// standard output.
func chromium(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	argv := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.CommandContext(ctx, bin, append(argv, page)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(argv, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// domChart is what the browser's DOM holds of one chart.
type domChart struct {
	title                                  string
	bars, segs, stackbars, points, missing int
}

var (
	// chartLink is a link of the contents to a chart ("#A-01-fio-..."),
	// not to a section ("#A-lifetime").
	chartLink = regexp.MustCompile(`<li><a href="#[A-Za-z]+-\d{2}-`)
	svgChart  = regexp.MustCompile(`(?s)<svg[^>]*class="chart"[^>]*>.*?</svg>`)
	svgTitle  = regexp.MustCompile(`<title>([^<]*)</title>`)
)

func domCharts(dom string) []domChart {
	var out []domChart
	for _, s := range svgChart.FindAllString(dom, -1) {
		c := domChart{
			bars: strings.Count(s, `<rect class="bar"`), segs: strings.Count(s, `<rect class="seg"`),
			stackbars: strings.Count(s, `<g class="stackbar"`), points: strings.Count(s, `<circle class="pt"`),
			missing: strings.Count(s, `<text class="missing"`),
		}
		if m := svgTitle.FindStringSubmatch(s); m != nil {
			c.title = m[1]
		}
		out = append(out, c)
	}
	return out
}

// sumWhere adds up a count over the charts whose title matches.
func sumWhere(cs []domChart, title string, count func(domChart) int) (n, charts int) {
	re := regexp.MustCompile(title)
	for _, c := range cs {
		if re.MatchString(c.title) {
			n += count(c)
			charts++
		}
	}
	return n, charts
}

// distinct counts the distinct keys the results give (empty keys left
// out).
func distinct(ins []Input, key func(r *resultframe.Result) []string) int {
	seen := map[string]bool{}
	for _, in := range ins {
		for i := range in.Results {
			for _, k := range key(&in.Results[i]) {
				seen[k] = true
			}
		}
	}
	return len(seen)
}

func hasMetric(r *resultframe.Result, name string) bool {
	for _, m := range r.Metrics {
		if m.Name == name {
			return true
		}
	}
	return false
}

// okWith lists "context/case/variant/metric" for each metric of names
// that an ok result of recipe has.
func okWith(recipe string, names ...string) func(r *resultframe.Result) []string {
	return func(r *resultframe.Result) []string {
		if r.Recipe != recipe || r.Status != resultframe.StatusOK {
			return nil
		}
		var keys []string
		for _, n := range names {
			if hasMetric(r, n) {
				keys = append(keys, contextKey(r)+"/"+r.Case+"/"+r.Variant+"/"+n)
			}
		}
		return keys
	}
}

// layoutProbe is added to a copy of the report (the report itself has no
// script): once the page is laid out it writes what the test checks into
// the DOM, which --dump-dom then prints.
const layoutProbe = `<script>
window.addEventListener("load", function () {
  var out = {width: window.innerWidth, scroll: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight, charts: [], wide: []};
  document.querySelectorAll("svg.chart").forEach(function (s) {
    var r = s.getBoundingClientRect();
    out.charts.push({title: s.querySelector("title").textContent, left: r.left, right: r.right,
      width: r.width, height: r.height, natural: s.width.baseVal.value, room: s.parentNode.clientWidth});
  });
  document.querySelectorAll("body *").forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.right > window.innerWidth + 0.5 && !e.closest(".scroll")) out.wide.push(e.tagName + " " + (e.id || e.className.baseVal || e.className));
  });
  var pre = document.createElement("pre");
  pre.id = "fsbench-layout";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>`

type pageLayout struct {
	Width, Scroll, Height float64
	Charts                []struct {
		Title                                     string
		Left, Right, Width, Height, Natural, Room float64
	}
	Wide []string
}

// measureLayout opens the report, with the probe added, at width and
// returns what the probe found.
func measureLayout(t *testing.T, bin, dir string, width int) pageLayout {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(dir, "probe.html")
	os.WriteFile(probe, bytes.Replace(page, []byte("</body>"), []byte(layoutProbe+"</body>"), 1), 0o644)
	dom := chromium(t, bin, "file://"+probe, "--dump-dom", "--virtual-time-budget=5000", fmt.Sprintf("--window-size=%d,900", width))
	m := regexp.MustCompile(`(?s)<pre id="fsbench-layout">(.*?)</pre>`).FindSubmatch(dom)
	if m == nil {
		t.Fatalf("the layout probe wrote nothing")
	}
	var l pageLayout
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &l); err != nil {
		t.Fatalf("layout: %v", err)
	}
	return l
}

// TestBrowserRendersReport opens the HTML report of real and synthetic
// results in headless Chromium at a laptop's width (1280 pixels): nothing
// overflows the page, every chart is drawn at its full size (960 pixels),
// the screenshot shows the charts in the variants' colours, the page
// prints, and the charts' elements in the page's DOM match what the
// results hold.
func TestBrowserRendersReport(t *testing.T) {
	bin := testenv.Tool(t, "chromium")
	for _, name := range []string{"quickstart", "settled", "first", "synthetic", "flash"} {
		t.Run(name, func(t *testing.T) {
			fx := fixtureNamed(t, name)
			ins, err := Load(glob(t, fx.inputs))
			if err != nil {
				t.Fatal(err)
			}
			rep := Build(ins, Options{})
			dir, err := filepath.Abs(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rep.Write(dir); err != nil {
				t.Fatal(err)
			}
			page := "file://" + filepath.Join(dir, HTMLFile)

			l := measureLayout(t, bin, dir, 1280)
			t.Logf("layout at 1280: page %v wide in %v, %v high, %d charts (first %+v)", l.Scroll, l.Width, l.Height, len(l.Charts), l.Charts[0])
			if l.Scroll > l.Width {
				t.Errorf("the page is %v pixels wide in a window of %v", l.Scroll, l.Width)
			}
			if len(l.Wide) > 0 {
				t.Errorf("elements overflow the window: %q", l.Wide)
			}
			if len(l.Charts) != len(rep.Charts) {
				t.Errorf("%d charts laid out, the report has %d", len(l.Charts), len(rep.Charts))
			}
			for _, c := range l.Charts {
				switch {
				case c.Width <= 0 || c.Height <= 0:
					t.Errorf("chart %q not drawn (%vx%v)", c.Title, c.Width, c.Height)
				case c.Right > l.Width:
					t.Errorf("chart %q ends at %v, past the window's %v", c.Title, c.Right, l.Width)
				case c.Width < math.Min(c.Natural, c.Room)-1:
					t.Errorf("chart %q drawn %v wide, though %v fit", c.Title, c.Width, math.Min(c.Natural, c.Room))
				case c.Natural < svg.ChartWidth:
					t.Errorf("chart %q is %v wide, want %v", c.Title, c.Natural, svg.ChartWidth)
				}
			}

			shot := filepath.Join(dir, "shot.png")
			height := int(math.Min(l.Height, 16000))
			chromium(t, bin, page, "--screenshot="+shot, fmt.Sprintf("--window-size=1280,%d", height))
			first := palette[variantColors(rep.Contexts[0].Variants)[rep.Contexts[0].Variants[0]]]
			checkScreenshot(t, shot, first)
			if out := os.Getenv("FSBENCH_REPORT_SCREENSHOT"); out != "" && name == "first" {
				cropPNG(t, shot, out, 1280, 3300)
			}

			pdf := filepath.Join(dir, "report.pdf")
			chromium(t, bin, page, "--print-to-pdf="+pdf, "--no-pdf-header-footer")
			if b, err := os.ReadFile(pdf); err != nil || !bytes.HasPrefix(b, []byte("%PDF")) || len(b) < 20000 {
				t.Errorf("printing the page gave %d bytes (%v)", len(b), err)
			}

			dom := string(chromium(t, bin, page, "--dump-dom"))
			charts := domCharts(dom)
			if links := len(chartLink.FindAllString(dom, -1)); len(charts) == 0 || len(charts) != links {
				t.Errorf("%d charts in the page, %d in its contents", len(charts), links)
			}
			checkChartCounts(t, ins, charts)
		})
	}
}

// decodePNG reads the PNG at path.
func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// cropPNG writes the top w x h pixels of the PNG at from to to.
func cropPNG(t *testing.T, from, to string, w, h int) {
	t.Helper()
	img := decodePNG(t, from)
	sub := img.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(image.Rect(0, 0, w, min(h, img.Bounds().Dy())))
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&b, sub); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkScreenshot decodes the PNG and checks that it is not blank and
// that the charts were drawn: the first variant's colour fills bars.
func checkScreenshot(t *testing.T, path, color string) {
	t.Helper()
	img := decodePNG(t, path)
	want, _ := strconv.ParseUint(color[1:], 16, 32)
	wr, wg, wb := float64(want>>16&0xff), float64(want>>8&0xff), float64(want&0xff)
	b := img.Bounds()
	var ink, firstSeries int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			if r != 255 || g != 255 || bl != 255 {
				ink++
			}
			// give or take the renderer's rounding
			if near(float64(r), wr, 2) && near(float64(g), wg, 2) && near(float64(bl), wb, 2) {
				firstSeries++
			}
		}
	}
	total := b.Dx() * b.Dy()
	if ink < total/50 {
		t.Errorf("screenshot nearly blank: %d of %d pixels not white", ink, total)
	}
	if firstSeries < 500 {
		t.Errorf("only %d pixels of the first variant's colour %s: the charts were not drawn", firstSeries, color)
	}
	t.Logf("screenshot %dx%d: %d pixels drawn, %d of the first variant's colour", b.Dx(), b.Dy(), ink, firstSeries)
}

// checkChartCounts compares the elements of the charts with the results:
// a bar per candidate and case measured, a mark per candidate whose
// every iteration failed, a stacked bar per candidate and case of the
// reliability tests with a segment per outcome seen.
func checkChartCounts(t *testing.T, ins []Input, charts []domChart) {
	t.Helper()
	bar := func(c domChart) int { return c.bars }
	expect := func(what string, got, charts, want int) {
		t.Helper()
		if want > 0 && charts == 0 {
			t.Errorf("%s: no chart, but the results hold %d values for it", what, want)
		}
		if got != want {
			t.Errorf("%s: %d drawn, the results hold %d", what, got, want)
		}
	}
	got, n := sumWhere(charts, `^fio .*: bandwidth per case`, bar)
	expect("fio bandwidth bars", got, n, distinct(ins, okWith("fio", "read_bw", "write_bw")))
	measured, failed := map[string]bool{}, map[string]bool{}
	for _, in := range ins {
		for _, r := range in.Results {
			if r.Recipe == "fio" {
				k := contextKey(&r) + "/" + r.Case + "/" + r.Variant
				measured[k] = measured[k] || r.Status == resultframe.StatusOK
				failed[k] = failed[k] || r.Status == resultframe.StatusFailed
			}
		}
	}
	allFailed := 0
	for k := range failed {
		if !measured[k] {
			allFailed++
		}
	}
	got, n = sumWhere(charts, `^fio .*: bandwidth per case`, func(c domChart) int { return c.missing })
	expect("fio cases whose every run failed", got, n, allFailed)
	got, n = sumWhere(charts, `^Boot time .*: root mount to prompt`, bar)
	expect("boot time bars", got, n, distinct(ins, okWith("boot_time", "host_boot", "target_boot")))
	got, n = sumWhere(charts, `^Mount time .*: real, user and system`, bar)
	expect("mount time bars", got, n, distinct(ins, okWith("mount_time", "mount_time", "mount_user", "mount_sys")))
	got, n = sumWhere(charts, `^fsck time .*: real, user and system`, bar)
	expect("fsck time bars", got, n, distinct(ins, okWith("fsck_time", "fsck_time", "fsck_user", "fsck_sys")))
	got, n = sumWhere(charts, `^dd .*: rate against block size`, func(c domChart) int { return c.points })
	expect("dd points", got, n, distinct(ins, okWith("dd_sweep", "write_rate", "read_rate")))
	got, n = sumWhere(charts, `^SQLite .*: transactions per second`, bar)
	expect("SQLite bars", got, n, distinct(ins, okWith("sqlite_tps", "tps")))
	got, n = sumWhere(charts, `^Write amplification per filesystem and workload`, bar)
	expect("write amplification bars", got, n, distinct(ins, func(r *resultframe.Result) []string {
		if r.Status == resultframe.StatusOK && hasMetric(r, "write_amplification") {
			return []string{contextKey(r) + "/" + r.Recipe + "/" + r.Name + "/" + r.Case + "/" + r.Variant}
		}
		return nil
	}))
	for _, rc := range []struct{ recipe, title string }{{"power_loss", "Power loss"}, {"dm_flakey", "dm-flakey faults"}} {
		for _, axis := range []string{"consistency", "data"} {
			title := fmt.Sprintf(`^%s .*: %s outcomes`, rc.title, axis)
			got, n = sumWhere(charts, title, func(c domChart) int { return c.stackbars })
			expect(rc.recipe+" "+axis+" bars", got, n, distinct(ins, func(r *resultframe.Result) []string {
				if r.Recipe == rc.recipe && r.Attrs[axis] != "" {
					return []string{contextKey(r) + "/" + r.Case + "/" + r.Variant}
				}
				return nil
			}))
			got, n = sumWhere(charts, title, func(c domChart) int { return c.segs })
			expect(rc.recipe+" "+axis+" segments", got, n, distinct(ins, func(r *resultframe.Result) []string {
				if r.Recipe == rc.recipe && r.Attrs[axis] != "" {
					return []string{contextKey(r) + "/" + r.Case + "/" + r.Variant + "/" + r.Attrs[axis]}
				}
				return nil
			}))
		}
	}
}
