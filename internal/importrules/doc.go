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
//   - no target/ package imports a host package, and no host package
//     imports a target/ package: what both sides must agree on lives in
//     wire/;
//   - the host's stages import only down the data flow (spec, plan,
//     imagegen, driver and capture, report, cmd), over a floor of wire/,
//     internal/ and the packages several stages share (the filesystems
//     and recipes catalogues, the flash model ftl, the QEMU engine qemu).
//     A folder the table of stages does not know fails the test, so a new
//     one gets its place deliberately.
//
// Each rule has a negative control: a made-up import graph that breaks it.
//
// It holds no code: `go list` reports the imports, and the tests judge
// them.
package importrules
