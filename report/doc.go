// Package report turns results files (JSON Lines of resultframe.Result, as
// fsbench run and fsbench capture store them) into a report a reviewer can
// read without fsbench: a self-contained HTML page with inline SVG charts,
// a Markdown summary with the same charts as SVG files beside it, and the
// aggregated table as CSV and JSON.
//
// What it must never do: pool results measured in different contexts
// (kernel, machine, storage device, runner) without saying so, average a
// failed or skipped result, or produce output that depends on anything but
// its inputs (no clock, no map order, fixed float formatting), so that a
// report is reviewable as a diff and its tests are golden files.
package report
