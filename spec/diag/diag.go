// Package diag renders located diagnostics (hcl.Diagnostics) for people and
// for tools. Every phase of fsbench reports problems as hcl.Diagnostic so
// that each one keeps the file, line and column it stems from; this package
// sorts them, merges duplicates, and writes them as text with the offending
// source line or as versioned JSON. It never decides what is an error.
package diag

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
)

// Sort orders diagnostics by file, line, column, then severity and summary,
// so that output is stable run to run. Diagnostics without a subject come
// last.
func Sort(diags hcl.Diagnostics) {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i], diags[j]
		if (a.Subject == nil) != (b.Subject == nil) {
			return a.Subject != nil
		}
		if a.Subject != nil {
			ra, rb := *a.Subject, *b.Subject
			if ra.Filename != rb.Filename {
				return ra.Filename < rb.Filename
			}
			if ra.Start.Byte != rb.Start.Byte {
				return ra.Start.Byte < rb.Start.Byte
			}
		}
		if a.Severity != b.Severity {
			return a.Severity == hcl.DiagError
		}
		if a.Summary != b.Summary {
			return a.Summary < b.Summary
		}
		return a.Detail < b.Detail
	})
}

// Dedupe drops diagnostics equal in severity, subject, summary and detail to
// an earlier one. Evaluating one spec per variant reports a mistake once per
// variant; the user wants it once.
func Dedupe(diags hcl.Diagnostics) hcl.Diagnostics {
	type key struct {
		sev             hcl.DiagnosticSeverity
		file            string
		start, end      int
		summary, detail string
	}
	seen := map[key]bool{}
	out := diags[:0:0]
	for _, d := range diags {
		k := key{sev: d.Severity, summary: d.Summary, detail: d.Detail}
		if d.Subject != nil {
			k.file, k.start, k.end = d.Subject.Filename, d.Subject.Start.Byte, d.Subject.End.Byte
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	return out
}

// Errorf builds an error diagnostic at rng.
func Errorf(rng hcl.Range, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr()}
}

// Warnf builds a warning diagnostic at rng.
func Warnf(rng hcl.Range, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: detail, Subject: rng.Ptr()}
}
