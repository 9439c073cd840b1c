package hclfmt

import (
	"bytes"
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines shown around each change,
// diff -u's default.
const diffContext = 3

// Diff returns a unified diff from a to b in the format of `diff -u`, with
// headers "--- a/NAME" and "+++ b/NAME" (no timestamps, as git prints them)
// and three lines of context. It returns nil when a and b are equal.
func Diff(name string, a, b []byte) []byte {
	if bytes.Equal(a, b) {
		return nil
	}
	al, bl := splitLines(a), splitLines(b)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "--- a/%s\n+++ b/%s\n", name, name)
	for _, h := range hunks(lineEdits(al, bl), diffContext) {
		writeHunk(&buf, h, al, bl)
	}
	return buf.Bytes()
}

// hunks cuts an edit script into hunks: each change with up to ctx equal
// lines around it, merging changes whose context would touch or overlap
// (at most 2*ctx equal lines apart), as diff(1) does.
func hunks(edits []edit, ctx int) [][]edit {
	var out [][]edit
	for i := nextChange(edits, 0); i < len(edits); {
		last := lastChangeOfHunk(edits, i, ctx)
		start := max(i-ctx, 0)
		end := min(last+1+ctx, len(edits))
		out = append(out, edits[start:end])
		i = nextChange(edits, end)
	}
	return out
}

// nextChange returns the index of the first non-equal edit at or after i,
// or len(edits).
func nextChange(edits []edit, i int) int {
	for i < len(edits) && edits[i].kind == opEqual {
		i++
	}
	return i
}

// lastChangeOfHunk follows changes from first for as long as the equal runs
// between them are short enough to share one hunk, and returns the index of
// the last change reached.
func lastChangeOfHunk(edits []edit, first, ctx int) int {
	last := first
	for i := first; i < len(edits); {
		if edits[i].kind != opEqual {
			last = i
			i++
			continue
		}
		next := nextChange(edits, i)
		if next == len(edits) || next-i > 2*ctx {
			break
		}
		i = next
	}
	return last
}

// writeHunk prints one hunk. Within each run of changes, deletions are
// printed before insertions whatever order the script found them in, so the
// output reads like diff(1)'s.
func writeHunk(buf *bytes.Buffer, h []edit, a, b []string) {
	fmt.Fprintf(buf, "@@ -%s +%s @@\n", hunkRange(h, opDelete), hunkRange(h, opInsert))
	for i := 0; i < len(h); {
		if h[i].kind == opEqual {
			writeLine(buf, ' ', a[h[i].a])
			i++
			continue
		}
		j := i
		for j < len(h) && h[j].kind != opEqual {
			j++
		}
		writeRun(buf, h[i:j], opDelete, '-', a)
		writeRun(buf, h[i:j], opInsert, '+', b)
		i = j
	}
}

// writeRun prints the lines of the given kind in a run of changes.
func writeRun(buf *bytes.Buffer, run []edit, kind opKind, mark byte, lines []string) {
	for _, e := range run {
		switch {
		case e.kind != kind:
		case kind == opDelete:
			writeLine(buf, mark, lines[e.a])
		default:
			writeLine(buf, mark, lines[e.b])
		}
	}
}

// writeLine prints one diff line, adding diff(1)'s marker when the line is
// the last of its file and has no newline.
func writeLine(buf *bytes.Buffer, mark byte, line string) {
	buf.WriteByte(mark)
	buf.WriteString(line)
	if !strings.HasSuffix(line, "\n") {
		buf.WriteString("\n\\ No newline at end of file\n")
	}
}

// hunkRange formats the "start,count" of a hunk header for side a (side is
// opDelete) or b (opInsert). Like diff(1), count 1 is left implicit and an
// empty range names the line before it.
func hunkRange(h []edit, side opKind) string {
	start, count := h[0].a, 0
	if side == opInsert {
		start = h[0].b
	}
	for _, e := range h {
		if e.kind == opEqual || e.kind == side {
			count++
		}
	}
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	default:
		return fmt.Sprintf("%d,%d", start+1, count)
	}
}
