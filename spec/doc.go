// Package spec reads fsbench specs: HCL files that describe a board's
// storage (images, partitions, filesystems and their tuning) and the tests
// to run on it. It decodes the files, evaluates variables, locals and the
// matrix, and returns one evaluated Variant per matrix combination, every
// value still carrying the source range it came from.
//
// The package never reads the clock, a random source or the environment:
// everything that may differ between runs (variable values, the contents
// of files a spec names) comes in through Options, so that the same inputs
// always give the same variants. It does not lay out partitions or build
// command lines; package plan does that with the variants returned here.
package spec
