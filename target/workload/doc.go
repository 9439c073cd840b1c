// Package workload holds the target's workloads: the I/O a recipe runs
// against a filesystem and times or later checks. PostMark 1.51 and
// bonnie++ 1.03 re-done in Go (seed 004's small-file tests), the fill of a
// filesystem to a percentage with files of a realistic shape, and the
// writer of the reliability tests, whose every byte can be recomputed from
// a file's name (Pattern), so that a check after a power cut knows what
// each file should hold.
//
// A workload returns what it measured (measure.Set, or its own counters);
// it never writes a result, keeps state across boots or judges a
// filesystem: the runner's recipes and package crash do.
package workload
