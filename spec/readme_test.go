package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// readmeMaxLines is the README's hard limit: it is the front door, and
// everything longer than a first look belongs in docs/.
const readmeMaxLines = 200

// TestReadmeFrontDoor keeps the README what a newcomer opens first: short,
// with the two set-up commands (the second is the one CI runs), and no
// link that leads nowhere.
func TestReadmeFrontDoor(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n >= readmeMaxLines {
		t.Errorf("README.md has %d lines; the front door stays under %d, the rest goes to docs/", n, readmeMaxLines)
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "scripts/test.sh") {
		t.Errorf(".ci/run no longer runs scripts/test.sh:\n%s", ci)
	}
	commands := shellLines(readme)
	for _, want := range []string{"scripts/quickstart.sh", "scripts/test.sh"} {
		if !commands[want] {
			t.Errorf("README.md has no ```sh block with the command %s (found %q)", want, sortedKeys(commands))
		}
	}
	for _, problem := range brokenLinks(t, "..", "README.md") {
		t.Error(problem)
	}
}

// TestDocsLinks: every relative link of the documentation leads to a file
// of the repository, and every anchor to a heading of its page.
func TestDocsLinks(t *testing.T) {
	docs, err := filepath.Glob("../docs/*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs: %v", err)
	}
	for _, d := range docs {
		rel, _ := filepath.Rel("..", d)
		for _, problem := range brokenLinks(t, "..", rel) {
			t.Error(problem)
		}
	}
}

// The link checker must catch what it is there for.
func TestBrokenLinksFound(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	os.WriteFile(filepath.Join(dir, "docs", "a.md"), []byte("# A page\n\n## Its `second` part: here\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte(strings.Join([]string{
		"# Title",
		"[good](docs/a.md) [good anchor](docs/a.md#its-second-part-here) [self](#title)",
		"[web](https://example.com/x.md) ![img](docs/a.md)",
		"`[in code](nowhere.md)`",
		"```sh",
		"echo [fenced](nowhere.md)",
		"```",
		"[missing](docs/b.md) [bad anchor](docs/a.md#third) [bad self](#nothing)",
		"",
	}, "\n")), 0o644)
	got := brokenLinks(t, dir, "README.md")
	want := []string{
		"README.md:8: docs/b.md: no such file",
		"README.md:8: docs/a.md#third: no heading with that anchor",
		"README.md:8: #nothing: no heading with that anchor",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var (
	mdLink     = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)
	inlineCode = regexp.MustCompile("`[^`]*`")
)

// brokenLinks lists the relative links of the Markdown file page (a path
// under root) whose file does not exist under root, or whose anchor names
// no heading of the page it points to.
func brokenLinks(t *testing.T, root, page string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	fenced := false
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if why := checkLink(root, page, target); why != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", page, i+1, target, why))
			}
		}
	}
	return problems
}

// checkLink says what is wrong with one relative link of page, or "".
func checkLink(root, page, target string) string {
	file, anchor, _ := strings.Cut(target, "#")
	path := filepath.Join(root, page)
	if file != "" {
		path = filepath.Join(root, filepath.Dir(page), filepath.FromSlash(file))
		if _, err := os.Stat(path); err != nil {
			return "no such file"
		}
	}
	if anchor == "" {
		return ""
	}
	if !strings.HasSuffix(path, ".md") {
		return "an anchor in a file that is not Markdown"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if !headingAnchors(string(b))[anchor] {
		return "no heading with that anchor"
	}
	return ""
}

// headingAnchors are the anchors GitHub gives a page's headings: lower
// case, punctuation dropped, spaces as hyphens, a repeated one numbered.
func headingAnchors(md string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		text, ok := strings.CutPrefix(line, "#")
		if fenced || !ok {
			continue
		}
		text = strings.TrimLeft(text, "#")
		if !strings.HasPrefix(text, " ") {
			continue
		}
		var a strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(text)) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				a.WriteRune(r)
			case r == ' ':
				a.WriteRune('-')
			}
		}
		s := a.String()
		if n := seen[s]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			anchors[s] = true
		}
		seen[s]++
	}
	return anchors
}

// shellLines are the commands of a Markdown file's ```sh blocks: the first
// word of each line.
func shellLines(md string) map[string]bool {
	cmds := map[string]bool{}
	in := false
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !in && trimmed == "```sh":
			in = true
		case in && trimmed == "```":
			in = false
		case in:
			if f := strings.Fields(trimmed); len(f) > 0 {
				cmds[f[0]] = true
			}
		}
	}
	return cmds
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
