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
//
// Size: about 4,700 lines of code, above the project's 4,000, because
// its sections (each recipe's charts, write amplification, lifetime,
// flash geometry, the runs across contexts), the verdict and the exports
// all read one model of the results (view, the aggregates, the contexts)
// that splitting them would have to export. The drawing, which needs none
// of it, is package svg.
package report
