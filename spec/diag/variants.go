package diag

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// MergeVariants reports a problem found while evaluating several variants
// of a spec once; when it occurs in some variants only, its detail names
// them. per[i] holds the diagnostics of the variant called names[i].
func MergeVariants(names []string, per []hcl.Diagnostics) hcl.Diagnostics {
	type key struct {
		file            string
		start           int
		summary, detail string
	}
	var order []key
	first := map[key]*hcl.Diagnostic{}
	in := map[key][]string{}
	for i, diags := range per {
		seen := map[key]bool{}
		for _, d := range diags {
			k := key{summary: d.Summary, detail: d.Detail}
			if d.Subject != nil {
				k.file, k.start = d.Subject.Filename, d.Subject.Start.Byte
			}
			if seen[k] {
				continue
			}
			seen[k] = true
			if _, ok := first[k]; !ok {
				first[k] = d
				order = append(order, k)
			}
			in[k] = append(in[k], names[i])
		}
	}
	var out hcl.Diagnostics
	for _, k := range order {
		d := *first[k]
		if n := len(in[k]); n < len(names) {
			s := "s"
			if n == 1 {
				s = ""
			}
			d.Detail = strings.TrimSpace(d.Detail + fmt.Sprintf(" (in variant%s %s)", s, strings.Join(in[k], ", ")))
		}
		out = append(out, &d)
	}
	return out
}
