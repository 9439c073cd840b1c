package hclfmt

// opKind says what an edit does to a line.
type opKind int

const (
	opEqual  opKind = iota // line present in both inputs
	opDelete               // line only in a
	opInsert               // line only in b
)

// edit is one step of an edit script. a and b are the 0-based line indexes
// in each input where the step happens; for an insertion a is the position
// in a before which the line goes, and likewise b for a deletion, which is
// what hunk headers need.
type edit struct {
	kind opKind
	a, b int
}

// lineEdits returns a shortest edit script turning a into b. The common
// prefix and suffix are matched first, since formatting diffs are mostly
// unchanged lines and that keeps the quadratic part small.
func lineEdits(a, b []string) []edit {
	pre := commonPrefix(a, b)
	suf := commonSuffix(a[pre:], b[pre:])
	var edits []edit
	for i := range pre {
		edits = append(edits, edit{opEqual, i, i})
	}
	for _, e := range myers(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		edits = append(edits, edit{e.kind, e.a + pre, e.b + pre})
	}
	for i := range suf {
		edits = append(edits, edit{opEqual, len(a) - suf + i, len(b) - suf + i})
	}
	return edits
}

func commonPrefix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// myers is Myers' O((N+M)D) greedy algorithm ("An O(ND) Difference
// Algorithm and Its Variations", 1986). It records the frontier of each
// round and walks it backwards to recover the script. Each snapshot keeps
// only the diagonals that round can reach, so memory is O(D²), fine for
// spec files.
func myers(a, b []string) []edit {
	n, m := len(a), len(b)
	off := n + m + 1 // diagonal k lives at v[off+k]; k ranges over ±(n+m+1)
	v := make([]int, 2*off+1)
	var trace [][]int
	for d := 0; d <= n+m; d++ {
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			x := nextX(v[off+k-1], v[off+k+1], k, d)
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m)
			}
		}
	}
	return nil // unreachable: d = n+m always reaches the end
}

// nextX picks the better predecessor for diagonal k in round d, given the
// furthest x reached on diagonals k-1 (left) and k+1 (above): move down
// (insert) from k+1 or right (delete) from k-1. Ties favour deletion, so
// removed lines come before added ones, as in diff(1).
func nextX(left, above, k, d int) int {
	if k == -d || (k != d && left < above) {
		return above
	}
	return left + 1
}

// backtrack turns the recorded frontiers into an edit script, last step
// first, then reverses it.
func backtrack(trace [][]int, x, y int) []edit {
	var rev []edit
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d] // v[i] is diagonal i-d-1
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && v[k-1+d+1] < v[k+1+d+1]) {
			prevK = k + 1
		}
		prevX := v[prevK+d+1]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			rev = append(rev, edit{opEqual, x, y})
		}
		if d == 0 {
			break
		}
		if x == prevX {
			rev = append(rev, edit{opInsert, x, prevY})
		} else {
			rev = append(rev, edit{opDelete, prevX, y})
		}
		x, y = prevX, prevY
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
