// Package importrules checks, in its tests, the rules that keep fsbench's
// three sides apart:
//
//   - the target binary (cmd/fsbench-runner) links nothing but the
//     standard library, golang.org/x/sys, the target/ and wire/ packages,
//     and leaf utilities of internal/ that themselves link only the
//     standard library (internal/atomicfile): no HCL, no cty, no logrus, no
//     host package, so that the static runner stays small for every
//     board and cannot come to depend on the spec language;
//   - the wire/ packages, the contracts both sides share, import nothing
//     but the standard library and each other;
//   - no target/ package imports a host package.
//
// It holds no code: `go list` reports the imports, and the tests judge
// them.
package importrules
