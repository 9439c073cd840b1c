// Package svg draws the report's charts as standalone SVG documents:
// grouped vertical bars with whiskers and labels (Bars), stacked
// horizontal bars of outcomes or phases (Stack), and lines over a
// logarithmic axis (Lines), each under its title and caption.
//
// It holds drawing only: what a chart shows, and its table, are the
// report's. Like the report, it must never produce output that depends
// on anything but its input (no map order, fixed float formatting), so
// that charts are reviewable as diffs and its tests are golden files.
package svg
